# issue 9's H100 table with the kernels of the working tree: causal, a causal window of 4096, the document mask (4 documents) and
# ALiBi as a score_mod, fwd and bwd, 64x32x4, verified, one after the other; logs and summary.txt in $OUT
source scripts/device_setup.sh
for c in "none:" "window:WINDOW=4096," "document:MASK=document" "alibi:MASK=alibi"; do
  n=${c%%:*}; e=${c#*:}
  env B=1 H=16 N=16384 D=128 CAUSAL=1 ${e:+$e} MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=1 CNT=20 timeout 250 python3 bench.py > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^fa_uop' $OUT/$n.log | awk '{print $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log)" | tee -a $OUT/summary.txt
done
