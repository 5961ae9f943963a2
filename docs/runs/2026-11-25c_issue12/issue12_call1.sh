# Issue 12, first call of 2026-11-25 (third session): the forward's phantom trip (820f807) against 925a8c9 on the document mask at
# 64x64x4x3 (B=1 H=16 N=16384 D=128, two rounds alternating), then scripts/issue12_fwd_x3.sh's comparison while time is left.
# abtmp/prev: `git archive 925a8c9`. Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
t0=$SECONDS
for r in 1 2; do
  for v in prev new; do
    bench $v doc_${v}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=document MODE=fwd CONFIG=64x64x4x3 PEERS= CNT=20 VERIFY=$([ $v = new ] && [ $r = 1 ] && echo 1 || echo 0)
  done
done
for s in "64 1024 16 32" "64 4096 4 32" "128 1024 16 16" "128 4096 4 16" "64 16384 1 32" "128 16384 1 16"; do
  set -- $s
  for c in 0 1; do
    for cfg in 64x64x4 64x64x4x3; do
      [ $((SECONDS - t0)) -gt 540 ] && continue
      bench new fwd_d$1_n$2_c${c}_$cfg B=$3 H=$4 N=$2 D=$1 CAUSAL=$c MODE=fwd CONFIG=$cfg PEERS=$([ $cfg = 64x64x4 ] && echo torch_flash) CNT=20 VERIFY=0
    done
  done
done
grep -h "ms\|TFLOPS" $OUT/doc_new_1.log | head -5
rm -f $OUT/*.log
