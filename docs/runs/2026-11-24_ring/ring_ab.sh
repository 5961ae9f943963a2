# (with docs/runs/2026-11-24_ring/ring.patch applied to the working tree: `git apply` it; abtmp/prev: the tree of 8adebab)
# A/B on the GPU of the forward's ring of K and V tiles (the next tile copied all through a step): the working tree (new) against
# the commit before it (abtmp/prev), forward only (the backward is unchanged), causal, the document mask, a causal window of 4096,
# ALiBi and B=8 N=2048 causal, 64x32x4, alternating, twice, the new runs of the first round verified. Logs and summary.txt in $OUT.
source scripts/ab_bench.sh
big() { bench $1 $1_$2_$3 B=1 H=16 N=16384 D=128 CAUSAL=1 $([ $2 = window ] && echo WINDOW=4096,) MASK=$([ $2 = none ] || [ $2 = window ] || echo $2) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=${4:-0} CNT=20; }
for r in a b; do
  for m in none document; do big prev $m $r; big new $m $r $([ $r = a ] && echo 1); done
  bench prev train_prev_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
  bench new train_new_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=$([ $r = a ] && echo 1 || echo 0) CNT=20
done
for m in window alibi; do big prev $m a; big new $m a 1; done
