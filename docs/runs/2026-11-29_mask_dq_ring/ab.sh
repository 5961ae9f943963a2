# dQ's ring (64x64x4x2tr2) under a causal window or mask_mod (dq_ring.patch: its producer walks the block's plan; a block is one query
# head, so GQA too), after 7edf789 gave dK/dV's ring there (one query head a KV head). For the bar's masks-to-causal ratios: causal's
# backward runs both rings (dQ's was ~5% of causal's +11% at 783d471). First the patch's GPU tests (against the kernels without the
# rings, eager and TinyJit; dQ's ring with GQA; both rings), then bench.py MODE=bwd at B=1 H=16 N=16384 D=128 causal, one process a
# run, CNT=20, no peers, alternating twice, VERIFY on each new pair's first run: window(4096) and document, the default pair
# (128x64x8tr2,64x64x4x3) against dQ's ring beside it; then with GQA (HKV=4) the default (64x64x4,64x64x4x3) against dQ's ring.
# ~7 minutes; carry [".whl"]. Log: ab.log. Prediction in docs/journal.md (2026-11-29, thirty-seventh session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-29_mask_dq_ring/dq_ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "under_masks" 2>&1 | tail -2
run() {  # name verify env...
  local n=$1 vf=$2; shift 2
  (env CNT=20 VERIFY=$vf B=1 H=16 N=16384 D=128 CAUSAL=1 MODE=bwd "$@" timeout 120 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$n: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok"; [ $rc = 0 ] || echo "rc=$rc"
}
for m in "WINDOW=4096," "MASK=document"; do
  run "$m default" 0 $m BWD_CONFIG=128x64x8tr2,64x64x4x3; run "$m both rings" 1 $m BWD_CONFIG=128x64x8tr2,64x64x4x2tr2
  run "$m default" 0 $m BWD_CONFIG=128x64x8tr2,64x64x4x3; run "$m both rings" 0 $m BWD_CONFIG=128x64x8tr2,64x64x4x2tr2
done
for m in "WINDOW=4096," "MASK=document"; do
  run "$m HKV=4 default" 0 $m HKV=4 BWD_CONFIG=64x64x4,64x64x4x3; run "$m HKV=4 dQ ring" 1 $m HKV=4 BWD_CONFIG=64x64x4,64x64x4x2tr2
  run "$m HKV=4 default" 0 $m HKV=4 BWD_CONFIG=64x64x4,64x64x4x3; run "$m HKV=4 dQ ring" 0 $m HKV=4 BWD_CONFIG=64x64x4,64x64x4x2tr2
done
} 2>&1 | tee $OUT/ab.log
