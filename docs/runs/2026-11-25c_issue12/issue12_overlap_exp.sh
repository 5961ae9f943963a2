# Issue 12: why the overlapped forward (working tree) measured slower than ef38d45 (abtmp/prev): toggles in abtmp/{a,b,c,d} (copies of
# the tree: a, the first trip's P·V unconditional; b, no overlap (both products waited for at once, the rings kept); c, the copies
# issued after the products; d, the register fences without a memory clobber), on three shapes, and the SASS of each (nvcc 13's
# cubins, built here, in abtmp/cubins) by instruction kind. Summary on stdout, the SASS in $OUT/sass.tgz
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for s in "128 4096 4 16 0" "64 4096 4 32 0" "128 1024 16 16 1"; do
  set -- $s
  for v in prev new a b c d; do
    bench $v ${v}_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd CONFIG=64x64x4 PEERS= CNT=20 VERIFY=$([ $v = c ] && echo 1 || echo 0)
  done
done
mkdir -p /tmp/sass
for c in abtmp/cubins/*.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > /tmp/sass/$n.sass
  echo "$n: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' /tmp/sass/$n.sass) instrs; $(for k in HGMMA WARPGROUP BAR.SYNC LDGSTS MUFU.EX2 FMNMX SHFL IMAD LEA IADD3 BRA FMUL FFMA MOV; do echo -n "$k=$(grep -c "$k" /tmp/sass/$n.sass) "; done)"
done
tar -czf $OUT/sass.tgz -C /tmp sass
grep -h -B2 -A8 -i "error\|traceback" $OUT/*.log | head -30
rm -f $OUT/*.log
