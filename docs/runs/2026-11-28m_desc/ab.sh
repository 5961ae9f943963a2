# wgmma descriptors by one add a K-step (desc.patch: a 32-bit low word made once a product, each K-step adding its offset >> 4,
# where the descriptor was built again, five uniform instructions an operand) against the commit it applies to, both here: the
# package and bench.py copied to .ab_old first, then the patch applied. fp16, bench.py VERIFY=1, one process a run, old then new,
# default configs, FA_UOP_TUNE=0. Log: ab.log. ~6 minutes. The GPU tests of the patched kernels are a call of their own (gpu_tests.sh).
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
rm -rf .ab_old && mkdir .ab_old && cp -r fa_uop bench.py .ab_old/
git apply docs/runs/2026-11-28m_desc/desc.patch || patch -p1 < docs/runs/2026-11-28m_desc/desc.patch
while read M B H N D C; do for w in old new; do
  b=bench.py; [ $w = old ] && b=.ab_old/bench.py
  echo "== $w $M D=$D N=$N causal=$C"
  CNT=20 VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=$C MODE=$M timeout 100 python3 $b 2>&1 | grep -E "^fa_uop|verify|Error|error" | cut -c1-150
done; done <<'SHAPES' 2>&1 | tee $OUT/ab.log
bwd 1 16 16384 128 0
bwd 1 16 16384 128 1
bwd 1 32 16384 64 0
bwd 16 16 1024 128 0
fwd 1 16 16384 128 0
fwd 16 16 1024 128 0
fwd 4 32 4096 64 1
SHAPES
