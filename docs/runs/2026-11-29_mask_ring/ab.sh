# causal dK/dV's ring (128x64x8tr2) under a window or a document mask (mask_ring.patch: its producer walks a plan of its own, one query
# head a KV head), for issue 33's "masks' ratios to causal kept": the rings sped causal's backward, the masks kept the kernels without.
# First the patch's GPU test (against the kernels without the ring, TinyJit replays equal to eager), then bench.py MODE=bwd at
# B=1 H=16 N=16384 D=128 causal, one process a run, CNT=20, no peers: the masks' default pair (64x64x4,64x64x4x3) against the ring's
# dK/dV beside the same dQ, alternating twice, VERIFY on the ring's first run; causal's default once for the ratio. ~6 minutes;
# carry [".whl"]. Log: ab.log. Prediction in docs/journal.md (2026-11-29, thirty-sixth session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-29_mask_ring/mask_ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "under_masks" 2>&1 | tail -2
run() {  # name verify env...
  local n=$1 vf=$2; shift 2
  (env CNT=20 VERIFY=$vf B=1 H=16 N=16384 D=128 CAUSAL=1 MODE=bwd "$@" timeout 120 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$n: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok"; [ $rc = 0 ] || echo "rc=$rc"
}
run causal 0
for m in "WINDOW=4096," "MASK=document"; do
  run "$m plain" 0 $m BWD_CONFIG=64x64x4,64x64x4x3; run "$m ring" 1 $m BWD_CONFIG=128x64x8tr2,64x64x4x3
  run "$m plain" 0 $m BWD_CONFIG=64x64x4,64x64x4x3; run "$m ring" 0 $m BWD_CONFIG=128x64x8tr2,64x64x4x3
done
} 2>&1 | tee $OUT/ab.log
