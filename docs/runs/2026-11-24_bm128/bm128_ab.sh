# (abtmp/prev: the tree of the commit before) A/B on the GPU of the forward with 128-row blocks of 4 warps, Q's fragments read from
# LDS: first the working tree against abtmp/prev at 64x32x4 (fwd_ab: causal and the document mask at B=1 H=16 N=16384 D=128, B=8
# N=2048 causal, alternating, two rounds); then the working tree at 128x32x4 and 128x16x4: causal, the document mask, a causal
# window of 4096 and ALiBi, the first of each verified. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
fwd_ab "a b"
for r in a b; do
  for c in 128x32x4 128x16x4; do
    for m in none document window alibi; do
      [ $c = 128x16x4 ] && [ $r = b ] && continue
      ex=$([ $m = window ] && echo WINDOW=4096, || echo MASK=$([ $m = none ] || [ $m = window ] || echo $m))
      bench new ${c}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 $ex MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=$([ $r = a ] && echo 1 || echo 0)
    done
  done
  bench new train_128x32x4_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=128x32x4 PEERS= VERIFY=0 CNT=20
done
