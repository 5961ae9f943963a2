# Two warpgroups per block on the Hopper target (128-row blocks, each warpgroup's 64 rows by wgmma) against one (64x64x4), with
# dynamic shared memory past 48 KB: the Hopper tests on the GPU, then the forward of causal and the document mask (issue 9's shape,
# B=1 H=16 N=16384 D=128) and B=4 N=4096 non-causal (issue 12's bar, beside FA2) at each config, two rounds, the first verified.
# Logs and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -3 | tee -a $OUT/summary.txt
for r in 1 2; do
  for c in ${CONFIGS:-64x64x4 128x64x8 128x32x8 128x128x8}; do
    V=$([ $r = 1 ] && echo 1 || echo 0)
    bench new causal_${c}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=$V
    bench new document_${c}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=document MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=$V
    bench new full_${c}_$r B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=fwd CONFIG=$c PEERS=$([ $r = 1 ] && [ $c = 64x64x4 ] && echo torch_flash) CNT=20 VERIFY=$V
  done
done
cd $OUT && tar czf logs.tgz *.log && rm *.log
