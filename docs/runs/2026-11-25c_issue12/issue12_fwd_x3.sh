# Issue 12, for the next session: the forward at 64x64x4 against 64x64x4x3 (3 blocks an SM asked of the compiler) on the FA2 paper's 12
# shapes, alternating, FA2 beside each shape once, fa_uop unverified (hopper_verify.sh is): whether 64x64x4x3 should be the Hopper
# forward's default (the tuner picked it at most short shapes, and the document mask's forward is 0.94x of causal at it, 0.85x at
# 64x64x4: docs/perf.md 2026-11-25). summary.txt in $OUT (also on stdout)
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for s in "64 1024 16 32" "64 4096 4 32" "64 16384 1 32" "128 1024 16 16" "128 4096 4 16" "128 16384 1 16"; do
  set -- $s
  for c in 0 1; do
    for cfg in 64x64x4 64x64x4x3; do
      bench new fwd_d$1_n$2_c${c}_$cfg B=$3 H=$4 N=$2 D=$1 CAUSAL=$c MODE=fwd CONFIG=$cfg PEERS=$([ $cfg = 64x64x4 ] && echo torch_flash) CNT=20 VERIFY=0
    done
  done
done
rm -f $OUT/*.log
