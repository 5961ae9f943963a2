# Issue 12: the overlapped forward in FlashAttention-3's order (abtmp/g: db49126 with O rescaled by the last tile's factor between
# the S issue and the P·V issue, and the first trip's P·V run on P = 0 and a zeroed V tile) against this commit's synchronous
# forward, three shapes; and the order of products, waits and the softmax in g's SASS (nvcc 13's cubin, abtmp/cubins)
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for s in "128 4096 4 16 0" "64 4096 4 32 0" "128 1024 16 16 1"; do
  set -- $s
  for v in new g; do
    bench $v ${v}_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd CONFIG=64x64x4 PEERS= CNT=20 VERIFY=$([ $v = g ] && echo 1 || echo 0)
  done
done
for c in abtmp/cubins/g.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > /tmp/$n.sass
  echo "$n: $(grep -oE 'HGMMA\.64x[0-9]+x16|WARPGROUP\.[A-Z.]+[^;]*|BAR\.SYNC|MUFU\.EX2|SHFL\.BFLY' /tmp/$n.sass | uniq -c | awk '{printf "%s%s ", ($1>1?$1"x":""), $2}')"
done
rm -f $OUT/*.log
