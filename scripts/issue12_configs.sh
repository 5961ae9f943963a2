# Issue 12: everything verified through the Hopper target at this commit (hopper_verify.sh's cases, forward and backward), then the
# forward's configs on the sweep's shapes short of 1.1x FA2 (and D=128 N=4096, short of 450 TFLOPS), FA2 beside 64x64x4. Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
vb() { local n=$1; shift; bench new v_$n CNT=3 PEERS= VERIFY=1 "$@"; }
vb causal128 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd
vb causal128_bf16 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd DTYPE=bfloat16
vb tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd,bwd
vb tails128_causal B=1 H=4 N=777 NK=1000 D=128 CAUSAL=1 MODE=fwd,bwd
vb gqa B=2 H=8 HKV=2 N=1024 D=128 CAUSAL=1 MODE=fwd,bwd
vb d96 B=2 H=4 N=1024 D=96 CAUSAL=1 MODE=fwd,bwd
vb d32 B=2 H=4 N=1024 D=32 CAUSAL=0 MODE=fwd
vb window B=1 H=8 N=4096 D=128 CAUSAL=1 WINDOW=512,0 MODE=fwd,bwd
vb document B=1 H=8 N=4096 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd
vb alibi B=1 H=8 N=2048 D=128 CAUSAL=1 MASK=alibi MODE=fwd,bwd
vb padding B=2 H=8 N=2048 D=64 CAUSAL=0 MASK=padding MODE=fwd,bwd
vb softcap B=1 H=8 N=2048 D=128 CAUSAL=1 SOFTCAP=20 MODE=fwd,bwd
vb decode64 MODE=decode B=4 H=32 HKV=8 NQ=16 N=4000 D=128 CAUSAL=1
vb decode_paged MODE=decode B=4 H=32 HKV=8 NQ=16 N=4096 D=128 CAUSAL=1 PAGE=64
vb decode1 MODE=decode B=8 H=32 HKV=8 NQ=1 N=8000 D=128 CAUSAL=1
for s in "64 1024 16 32 0" "64 1024 16 32 1" "64 4096 4 32 1" "128 1024 16 16 1" "128 4096 4 16 0"; do
  set -- $s
  cfgs="64x64x4 128x64x8 128x128x8 64x128x4"; [ $1 = 64 ] && cfgs="$cfgs 64x32x4"
  for cfg in $cfgs; do
    bench new c_d$1_n$2_c$5_$cfg B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd CONFIG=$cfg PEERS=$([ $cfg = 64x64x4 ] && echo torch_flash) CNT=20 VERIFY=0
  done
done
grep -h -B2 -A8 -i "error\|traceback" $OUT/v_*.log | head -30
rm -f $OUT/*.log
