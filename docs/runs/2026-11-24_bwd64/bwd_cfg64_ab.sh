# The Hopper backward at 64 query (dK/dV) or key (dQ) columns a step against 32: issue 9's causal and document mask (B=1 H=16
# N=16384 D=128), the 64x64x4 pair verified, then four shapes of the sweep beside FA2 (D=128 N=4096 and D=64 N=1024/4096)
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for m in none document; do
  M="MASK=$([ $m = none ] || echo $m)"
  for c in 64x32x4 64x64x4 64x64x4,64x32x4 64x32x4,64x64x4; do
    bench new bwd_${c/,/_}_${m} B=1 H=16 N=16384 D=128 CAUSAL=1 $M MODE=bwd PEERS= CNT=20 BWD_CONFIG=$c VERIFY=$([ $c = 64x64x4 ] && echo 1 || echo 0)
  done
done
for s in "4 16 4096 128 0" "4 16 4096 128 1" "16 32 1024 64 0" "4 32 4096 64 0" "16 32 1024 64 1"; do
  set -- $s
  for c in 64x32x4 64x64x4; do
    bench new sweep_${3}_${4}_${5}_$c B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=0 BWD_CONFIG=$c
  done
done
cd $OUT && tar czf logs.tgz *.log && rm *.log
