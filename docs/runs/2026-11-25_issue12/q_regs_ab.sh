# Issue 12 (docs/runs/2026-11-25_issue12/q_regs/q_in_registers.patch applied to the tree): the Hopper forward's S = Q·Kᵀ with Q's A fragments in registers (wgmma's A from registers; LDS then serves only K and V)
# against Q read from LDS each step (abtmp/prev), at three sweep shapes, per config; FA2 beside in the first run of each shape; the
# new verified. Summary in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for s in "4 16 4096 128 0" "16 16 1024 128 0" "4 32 4096 64 1" "1 16 16384 128 1"; do
  set -- $s
  bench prev prev_64x64x4_d$4_n$3_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd CONFIG=64x64x4 PEERS=torch_flash CNT=20 VERIFY=0
  bench prev prev_64x64x4x3_d$4_n$3_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd CONFIG=64x64x4x3 PEERS= CNT=20 VERIFY=0
  for c in 64x64x4 64x64x4x3 128x64x8 128x128x8; do
    bench new new_${c}_d$4_n$3_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd CONFIG=$c PEERS= CNT=20 VERIFY=1
  done
done
