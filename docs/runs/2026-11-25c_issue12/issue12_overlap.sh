# Issue 12: the forward with the softmax overlapped with P·V inside a warpgroup (working tree) against abtmp/prev (ef38d45): first
# the forward (and decoding) verified on the cases of hopper_verify.sh, then both on the FA2 paper's 12 forward shapes, FA2 beside
# the new one. Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
vb() { local n=$1; shift; bench new v_$n CNT=3 PEERS= VERIFY=1 "$@"; }
vb causal128 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd
vb causal128_bf16 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd DTYPE=bfloat16
vb tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd
vb tails128_causal B=1 H=4 N=777 NK=1000 D=128 CAUSAL=1 MODE=fwd
vb gqa B=2 H=8 HKV=2 N=1024 D=128 CAUSAL=1 MODE=fwd
vb window B=1 H=8 N=4096 D=128 CAUSAL=1 WINDOW=512,0 MODE=fwd
vb document B=1 H=8 N=4096 D=128 CAUSAL=1 MASK=document MODE=fwd
vb alibi B=1 H=8 N=2048 D=128 CAUSAL=1 MASK=alibi MODE=fwd
vb padding B=2 H=8 N=2048 D=64 CAUSAL=0 MASK=padding MODE=fwd
vb softcap B=1 H=8 N=2048 D=128 CAUSAL=1 SOFTCAP=20 MODE=fwd
vb decode64 MODE=decode B=4 H=32 HKV=8 NQ=16 N=4000 D=128 CAUSAL=1
vb decode_paged MODE=decode B=4 H=32 HKV=8 NQ=16 N=4096 D=128 CAUSAL=1 PAGE=64
vb decode1 MODE=decode B=8 H=32 HKV=8 NQ=1 N=8000 D=128 CAUSAL=1
for s in "64 1024 16 32" "64 4096 4 32" "64 16384 1 32" "128 1024 16 16" "128 4096 4 16" "128 16384 1 16"; do
  set -- $s
  for c in 0 1; do
    for v in prev new; do
      bench $v ${v}_d$1_n$2_c$c B=$3 H=$4 N=$2 D=$1 CAUSAL=$c MODE=fwd CONFIG=64x64x4 PEERS=$([ $v = new ] && echo torch_flash) CNT=20 VERIFY=0
    done
  done
done
grep -h -B2 -A8 -i "error\|traceback" $OUT/v_*.log | head -40
rm -f $OUT/*.log
