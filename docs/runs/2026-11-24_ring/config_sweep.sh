# the document mask's and causal forward at the tile configs the tuner could add (2 warps of 16 rows: half as many rows per block,
# so what a row block pays once is spread over fewer keys less), beside 64x32x4; then Nsight Compute's active cycles of the document
# forward (the tail: SMs idle while the last blocks run). B=1 H=16 N=16384 D=128 causal fp16. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
for r in a b; do for c in 64x32x4 32x32x2 32x64x2 64x64x4; do for m in none document; do
  bench new ${m}_${c}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=$c PEERS= VERIFY=0 CNT=20
done; done; done
for c in causal doc; do
  timeout 200 ncu -k regex:fa_fwd -s 1 -c 1 --metrics sm__cycles_elapsed.avg,smsp__cycles_active.avg,sm__cycles_active.avg python3 scripts/profile_fwd.py $c > $OUT/active_$c.txt 2>&1
  grep -E "cycles" $OUT/active_$c.txt | awk -v c=$c '{print c, $1, $NF}' | tee -a $OUT/summary.txt
done
