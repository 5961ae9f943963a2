# Issue 12 on an H100: (1) the forward with the tuner on (a fresh cache) at the sweep shapes short of 1.1x FA2 at the defaults and at
# D=128 N=4096 non-causal (the 450 TFLOPS bar), beside FA2 and cuDNN, each verified; the tuner's timings copied out. (2) bf16 beside
# fp16, forward and backward at D=128 N=4096 B=4 H=16 and D=64 N=4096 B=4 H=32, causal and not, the tuner off, with the peers in
# bf16 too. Argument tune or bf16: only that part. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_CACHE=$OUT/tune.json; part=$1
[ "$part" = bf16 ] || for s in "16 32 1024 64 0" "4 32 4096 64 1" "16 16 1024 128 0" "16 16 1024 128 1" "4 16 4096 128 0"; do
  set -- $s
  bench new tuned_d$4_n$3_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd PEERS=torch_flash,torch_cudnn CNT=20 VERIFY=1 FA_UOP_TUNE=1
done
[ "$part" = tune ] || for dt in half bfloat16; do
  for s in "4 16 4096 128 0" "4 16 4096 128 1" "4 32 4096 64 0" "4 32 4096 64 1"; do
    set -- $s
    bench new ${dt}_d$4_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd,bwd DTYPE=$dt PEERS=torch_flash,torch_cudnn CNT=20 VERIFY=1 FA_UOP_TUNE=0
  done
done
