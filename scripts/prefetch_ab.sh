# (with docs/runs/2026-11-24_prefetch/prefetch.patch applied to the working tree; abtmp/prev: the tree of 7ca80ec)
# A/B on the GPU of the forward's L2 prefetch of the tile after next (the working tree, new) against abtmp/prev (7ca80ec): causal and
# the document mask forward, B=8 N=2048 causal forward, 64x32x4, alternating, three rounds, the new runs of the first round verified.
source scripts/ab_bench.sh
big() { bench $1 $1_$2_$3 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=${4:-0} CNT=20; }
for r in a b c; do
  for m in none document; do big prev $m $r; big new $m $r $([ $r = a ] && echo 1); done
  bench prev train_prev_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
  bench new train_new_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done
