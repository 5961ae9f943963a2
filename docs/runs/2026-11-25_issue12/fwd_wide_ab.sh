# Issue 12: the Hopper forward with 128 and 96 keys a step (64x128x4: 255 registers, 2 blocks an SM; 64x96x4: 225) against 64x64x4x3
# (the tuner's pick, docs/runs/2026-11-25_issue12/tune) at the sweep shapes short of 1.1x FA2, verified, no peers. Summary in $OUT
source scripts/ab_bench.sh
for s in "16 32 1024 64 0" "4 32 4096 64 1" "16 16 1024 128 0" "16 16 1024 128 1"; do
  set -- $s
  for c in 64x64x4x3 64x128x4 64x96x4; do
    bench new c${c}_d$4_n$3_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=1 FA_UOP_TUNE=0
  done
done
