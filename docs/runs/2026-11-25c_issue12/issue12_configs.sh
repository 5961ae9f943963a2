# Issue 12: everything verified through the Hopper target at this commit (hopper_verify.sh's cases, forward and backward), then the
# forward's configs on the sweep's shapes short of 1.1x FA2 (and D=128 N=4096, short of 450 TFLOPS), FA2 beside 64x64x4. Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
vb() { local n=$1; shift; bench new v_$n CNT=3 PEERS= VERIFY=1 "$@"; }
source scripts/hopper_cases.sh
for s in "64 1024 16 32 0" "64 1024 16 32 1" "64 4096 4 32 1" "128 1024 16 16 1" "128 4096 4 16 0"; do
  set -- $s
  cfgs="64x64x4 128x64x8 128x128x8 64x128x4"; [ $1 = 64 ] && cfgs="$cfgs 64x32x4"
  for cfg in $cfgs; do
    bench new c_d$1_n$2_c$5_$cfg B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd CONFIG=$cfg PEERS=$([ $cfg = 64x64x4 ] && echo torch_flash) CNT=20 VERIFY=0
  done
done
grep -h -B2 -A8 -i "error\|traceback" $OUT/v_*.log | head -30
rm -f $OUT/*.log
