# source this on the GPU machine for an A/B run: device_setup.sh, then `bench VARIANT LOG ENV...` runs bench.py with ENV from the
# working tree (VARIANT new) or from abtmp/VARIANT (`mkdir -p abtmp/X && git archive <commit> | tar -x -C abtmp/X`, or a copy of
# the tree changed on purpose), its log in $OUT/LOG.log and a line of times in $OUT/summary.txt
source scripts/device_setup.sh
bench() {
  local d=$PWD v=$1 log=$2; shift 2; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 bench.py) > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
