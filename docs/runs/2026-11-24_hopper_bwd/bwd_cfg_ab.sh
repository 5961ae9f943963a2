# The Hopper backward's tiles: 128 rows of 8 warps (two warpgroups) for dK/dV, dQ or both, against 64x32x4 for both; causal and the
# document mask at B=1 H=16 N=16384 D=128, the 128x32x8 pair verified; then the best guess at B=4 N=4096 beside FA2
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for m in none document; do
  M="MASK=$([ $m = none ] || echo $m)"
  for c in 64x32x4 128x32x8 128x32x8,64x32x4 64x32x4,128x32x8; do
    bench new bwd_${c/,/_}_${m} B=1 H=16 N=16384 D=128 CAUSAL=1 $M MODE=bwd PEERS= CNT=20 BWD_CONFIG=$c VERIFY=$([ $c = 128x32x8 ] && echo 1 || echo 0)
  done
done
bench new bwd_full_d128_128 B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=0 BWD_CONFIG=128x32x8
cd $OUT && tar czf logs.tgz *.log && rm *.log
