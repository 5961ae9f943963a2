# The causal dK/dV ring (128x64x8tr2, the D=128 causal default) in two stages (two.patch: the diagonal's query tiles masked, the rest
# free) where it took one (every tile masked: two spilled at 4ff6f86; at 2c33efd none at whole tiles, 20 bytes with GQA and tails).
# SASS (N=16384): the free step 333 instructions, the masked step 577. First the ring's GPU tests (float64, GQA, tails, one tile,
# TinyJit equal to eager: the causal pairs run two stages now), then the tree (copied to /tmp/base) against the patch, alternating
# twice, one process a run, CNT=20, no peers, fp16, backward, VERIFY on the patch's first run. ~6 minutes; carry [".whl"].
# Log: ab.log. Prediction in docs/journal.md (2026-11-29, thirty-sixth session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop bench.py scripts /tmp/base/
P=docs/runs/2026-11-29_causal_ring/two.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "ring_on_hopper" 2>&1 | tail -2
run() {  # tree mode B H N D causal verify
  (cd $([ $1 = new ] && echo . || echo /tmp/base) && CNT=20 VERIFY=$8 B=$3 H=$4 N=$5 D=$6 CAUSAL=$7 MODE=$2 timeout 90 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 $2 B=$3 H=$4 N=$5 D=$6 causal=$7: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok"; [ $rc = 0 ] || echo "rc=$rc"
}
for s in "bwd 1 16 16384 128 1" "bwd 4 16 4096 128 1" "bwd 16 16 1024 128 1" "bwd 16 16 1000 128 1"; do
  run base $s 0; run new $s 1; run base $s 0; run new $s 0
done
} 2>&1 | tee $OUT/ab.log
