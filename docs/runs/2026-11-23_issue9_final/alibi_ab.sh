# A/B on the GPU of ALiBi's and causal's forward: the kernels of 5209600 (abtmp/base), of the tree before the staged output
# (abtmp/prev), the working tree (new) and a copy that carries tile indices only where a block map lists them (abtmp/nocarry),
# B=1 H=16 N=16384 D=128 causal, 64x32x4, alternating, twice. Logs and summary.txt in $OUT.
source scripts/ab_bench.sh
for r in a b; do for m in none alibi; do for v in base prev new nocarry; do
  bench $v ${v}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done; done; done
