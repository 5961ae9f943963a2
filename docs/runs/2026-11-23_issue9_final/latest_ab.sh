# A/B on the GPU of the schedule's LATEST: the working tree (7/8) against copies at 3/4 (abtmp/l34) and 13/16 (abtmp/l1316), the
# document mask fwd and bwd, alternating, twice; then causal and ALiBi forward with the working tree. summary.txt in $OUT.
source scripts/ab_bench.sh
for r in a b; do for v in new l34 l1316; do
  bench $v ${v}_document_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done; done
for m in none alibi none alibi; do bench new new_$m B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20; done
