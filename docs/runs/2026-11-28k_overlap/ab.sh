# The backward's products in flight together (Sᵀ with dPᵀ, dV under dSᵀ; the dQ kernel's S with dP) against the commit before
# (.ab_old: `git archive <before> fa_uop bench.py`, carried), fp16, bench.py MODE=bwd VERIFY=1, default configs, one process a run,
# alternating old and new. Log: ab.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
while read B H N D C; do for w in old new; do
  b=bench.py; [ $w = old ] && b=.ab_old/bench.py
  echo "== $w D=$D N=$N causal=$C"
  CNT=20 VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=$C MODE=bwd timeout 100 python3 $b 2>&1 | grep -E "^fa_uop|verify|Error|error" | cut -c1-150
done; done <<'SHAPES' 2>&1 | tee $OUT/ab.log
1 16 16384 128 0
1 16 16384 128 1
1 32 16384 64 0
16 16 1024 128 0
SHAPES
