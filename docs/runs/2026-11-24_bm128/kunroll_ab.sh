# The forward at 128x32x4 with the S MMA's K loop (Q's fragments read from LDS) unrolled by KUNROLL = 1, 2, 4, 8 K-steps per trip:
# causal and the document mask at B=1 H=16 N=16384 D=128, alternating, two rounds, the first verified. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
for r in a b; do
  for m in none document; do
    for u in 1 2 4 8; do
      bench new u${u}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=128x32x4 KUNROLL=$u PEERS= CNT=20 \
        VERIFY=$([ $r = a ] && echo 1 || echo 0)
    done
  done
done
