# A/B on the GPU of the schedule's LATEST: the working tree (7/8) against copies at 3/4 (abtmp/l34) and 13/16 (abtmp/l1316), the
# document mask fwd and bwd, alternating, twice; then causal and ALiBi forward with the working tree. summary.txt in $OUT.
source scripts/device_setup.sh
bench() { # variant log env...
  local d=$PWD v=$1 log=$2; shift 2; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 bench.py) > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
for r in a b; do for v in new l34 l1316; do
  bench $v ${v}_document_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done; done
for m in none alibi none alibi; do bench new new_$m B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20; done
