# source this on the GPU machine for an A/B run: device_setup.sh, then `bench VARIANT LOG ENV...` runs bench.py with ENV from the
# working tree (VARIANT new) or from abtmp/VARIANT (`mkdir -p abtmp/X && git archive <commit> | tar -x -C abtmp/X`, or a copy of
# the tree changed on purpose), its log in $OUT/LOG.log and a line of times in $OUT/summary.txt
source scripts/device_setup.sh
bench() {
  local d=$PWD v=$1 log=$2; shift 2; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 bench.py) > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
# `fwd_ab ROUNDS`: the forward of abtmp/prev against the working tree, alternating, for each round in ROUNDS: causal and the document
# mask at B=1 H=16 N=16384 D=128, then causal at B=8 N=2048; 64x32x4; the new runs of the first round verified
fwd_ab() {
  local first=${1%% *}
  for r in $1; do
    for m in none document; do
      for v in prev new; do
        bench $v ${v}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=64x32x4 PEERS= CNT=20 \
          VERIFY=$([ $v = new ] && [ $r = $first ] && echo 1 || echo 0)
      done
    done
    for v in prev new; do bench $v train_${v}_$r B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20; done
  done
}
