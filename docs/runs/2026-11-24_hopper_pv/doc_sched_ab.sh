# The document mask's forward (issue 9's shape) under the block map's schedule model: blocks resident per SM (RESIDENT, the
# schedule's slots per SM) and a block's overhead in tiles (OVERHEAD) set per run, at 128x128x8 (one block per SM) and 64x64x4, beside
# causal at both, two rounds, the first verified; then everything verified through the Hopper target (scripts/hopper_verify.sh).
# Logs (logs.tgz) and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
sched() { # name resident overhead latest config
  local n=$1 r=$2 o=$3 l=$4 c=$5 V=$6
  (env B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=document MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=$V timeout 250 python3 -c "
import runpy, fa_uop.api as api, fa_uop.blockmap as bm
api.RESIDENT, bm.OVERHEAD, bm.LATEST = $r, $o, $l
runpy.run_path('bench.py', run_name='__main__')") > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^fa_uop' $OUT/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log)" | tee -a $OUT/summary.txt
}
for rd in 1 2; do
  V=$([ $rd = 1 ] && echo 1 || echo 0)
  for c in 128x128x8 64x64x4; do bench new causal_${c}_$rd B=1 H=16 N=16384 D=128 CAUSAL=1 MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=0; done
  sched doc128_r2o8_$rd 2 8 0.875 128x128x8 $V
  sched doc128_r1o8_$rd 1 8 0.875 128x128x8 0
  sched doc128_r1o3_$rd 1 3 0.875 128x128x8 0
  sched doc128_r1o3l1_$rd 1 3 1.0 128x128x8 0
  sched doc128_r2o3_$rd 2 3 0.875 128x128x8 0
  sched doc64_r2o8_$rd 2 8 0.875 64x64x4 0
  sched doc64_r3o4_$rd 3 4 0.875 64x64x4 0
done
mkdir -p $OUT/v && OUT=$OUT/v bash scripts/hopper_verify.sh
cat $OUT/v/summary.txt >> $OUT/summary.txt
cd $OUT && tar czf logs.tgz *.log v/*.log && rm -r *.log v
