# The epilogue's 16-byte stores by asm (target.store16: LDS → global, fp16 and bf16 alike) against tinygrad's vectorized stores (8 bytes
# for fp16, scalar for bf16; abtmp/prev), forward and backward, fp16 and bf16, at D=128 B=4 H=16 N=4096 causal and not and D=64 B=4 H=32
# N=4096 causal, FA2 beside; the new verified. Summary in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for dt in bfloat16 half; do
  for s in "4 16 4096 128 0" "4 16 4096 128 1" "4 32 4096 64 1"; do
    set -- $s
    for v in prev new; do
      bench $v ${v}_${dt}_d$4_c$5 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=fwd,bwd DTYPE=$dt PEERS=$([ $v = prev ] && echo torch_flash) CNT=20 \
        VERIFY=$([ $v = new ] && echo 1 || echo 0)
    done
  done
done
