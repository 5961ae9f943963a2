# A/B on the GPU of the grid's launch order: the kernels of a base commit (abtmp/base: `mkdir -p abtmp/base && git archive <commit>
# | tar -x -C abtmp/base`) against the working tree with its head groups as the target sizes them (new) and with every head in one
# group (all: the cache taken as unbounded), causal and document masks, fwd and bwd, fixed configs, alternating, twice; then a
# training-like shape (B=8 H=16 N=2048) where the groups keep K and V in L2. Logs and summary.txt in $OUT.
source scripts/device_setup.sh
bench() { # variant log env...
  local d=$PWD v=$1 log=$2; shift 2; [ $v = base ] && d=$PWD/abtmp/base
  local pre="import runpy"  # variant c<MB>: the target's cache_bytes replaced (all: unbounded, one group)
  [ $v = all ] && v=c$((1 << 30))
  [[ $v = c* ]] && pre="import dataclasses, runpy, fa_uop.api as a; f = a.target_for; a.target_for = lambda d: dataclasses.replace(f(d), cache_bytes=${v#c} << 20)"
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 -c "$pre; runpy.run_path('bench.py', run_name='__main__')") > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
big() { bench $1 $1_$2_$3_$4 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=$5 CONFIG=$4 PEERS= VERIFY=0 CNT=20; }
if [ "$1" = groups ]; then  # head groups of 2 and 1 (c16, c8 MB at N=16384), and 128-row blocks in groups of 1 and 4
  for m in none document; do big c16 $m a 64x32x4 fwd,bwd; big c8 $m a 64x32x4 fwd,bwd; done
  for m in none document; do big c8 $m a 128x32x8 fwd; big c32 $m a 128x32x8 fwd; done
  exit
fi
for m in none document; do big base $m a 64x32x4 fwd,bwd; big new $m a 64x32x4 fwd,bwd; big all $m a 64x32x4 fwd,bwd; done
for m in none document; do big all $m b 64x32x4 fwd,bwd; big new $m b 64x32x4 fwd,bwd; big base $m b 64x32x4 fwd,bwd; done
for v in base new all; do bench $v ${v}_train B=8 H=16 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20; done
