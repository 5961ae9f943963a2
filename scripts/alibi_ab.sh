# A/B on the GPU of ALiBi's and causal's forward: the kernels of 5209600 (abtmp/base), of the tree before the staged output
# (abtmp/prev), the working tree (new) and a copy that carries tile indices only where a block map lists them (abtmp/nocarry),
# B=1 H=16 N=16384 D=128 causal, 64x32x4, alternating, twice. Logs and summary.txt in $OUT.
source scripts/device_setup.sh
bench() { # variant log env...
  local d=$PWD v=$1 log=$2; shift 2; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 bench.py) > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
for r in a b; do for m in none alibi; do for v in base prev new nocarry; do
  bench $v ${v}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20
done; done; done
