# The forward with S = Q·Kᵀ by wgmma (FA_UOP_HOPPER=1: the SM90A target, sm_90a through nvrtc) against the mma.sync forward, both from
# the working tree, at 64x32x4 and 64x64x4: B=4 H=16 N=4096 D=128 non-causal (beside FA2) and B=1 H=16 N=16384 D=128 causal,
# alternating, the Hopper runs verified; then the Hopper tests on the GPU. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
for c in 64x32x4 64x64x4; do
  for v in 0 1; do
    bench new h${v}_${c}_full B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=fwd CONFIG=$c FA_UOP_HOPPER=$v PEERS=$([ $v = 0 ] && [ $c = 64x32x4 ] && echo torch_flash) CNT=20 VERIFY=$v
    bench new h${v}_${c}_causal B=1 H=16 N=16384 D=128 CAUSAL=1 MODE=fwd CONFIG=$c FA_UOP_HOPPER=$v PEERS= CNT=20 VERIFY=$v
  done
done
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -3 | tee -a $OUT/summary.txt
