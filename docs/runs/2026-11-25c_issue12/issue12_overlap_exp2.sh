# Issue 12: the overlapped forward with P's registers held to the wait (abtmp/e: the first trip's P·V predicated off; abtmp/f: run
# on P = 0 and a zeroed V tile) against ef38d45 (abtmp/prev) on four shapes; then the order of the products, waits and the softmax's
# first exp2 in each cubin's SASS (abtmp/cubins, nvcc 13). Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for s in "128 4096 4 16 0" "64 4096 4 32 0" "128 1024 16 16 1" "64 1024 16 32 0"; do
  set -- $s
  for v in prev e f; do
    bench $v ${v}_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd CONFIG=64x64x4 PEERS= CNT=20 VERIFY=$([ $v = f ] && echo 1 || echo 0)
  done
done
for c in abtmp/cubins/*.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > /tmp/$n.sass
  echo "$n: $(grep -oE 'HGMMA\.64x[0-9]+x16|WARPGROUP\.[A-Z.]+[^;]*|BAR\.SYNC|MUFU\.EX2|SHFL\.BFLY' /tmp/$n.sass | uniq -c | awk '{printf "%s%s ", ($1>1?$1"x":""), $2}')"
done
grep -h -B2 -A8 -i "error\|traceback" $OUT/*.log | head -30
rm -f $OUT/*.log
