# A/B on the GPU of Smem.index's swizzle written with the XOR on the chunk's low bits only (the same addresses; nvcc then keeps fewer
# fragment addresses live): the working tree (new) against abtmp/prev (the commit before), causal and the document mask fwd and bwd,
# B=8 N=2048 causal, 64x32x4, alternating, twice, the new runs of the first round verified. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
big() { bench $1 $1_$2_$3 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=${4:-0} CNT=20; }
for r in a b; do
  for m in none document; do big prev $m $r; big new $m $r $([ $r = a ] && echo 1); done
  bench prev train_prev_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
  bench new train_new_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done
