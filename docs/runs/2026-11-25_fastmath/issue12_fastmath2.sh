# Issue 12, the fast-math change's second run (the first, scripts/issue12_fastmath.sh, ran past the call's 600 s and brought back only
# its first 8 logs): verification through the Hopper target on a subset of hopper_cases.sh (forward and backward, bf16, tails, a
# mask_mod, a score mod, decoding), then the forward beside FA2 on the sweep's weak shapes and the backward on one. Logs stay on the
# machine; one line each in $OUT/summary.txt and on stdout, written as they finish
source scripts/device_setup.sh
export FA_UOP_TUNE=0
r() { local n=$1; shift; (env "$@" timeout 100 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^(fa_uop|torch)' /tmp/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error\|mismatch' /tmp/$n.log)" | tee -a $OUT/summary.txt; }
v() { local n=$1; shift; r v_$n CNT=3 PEERS= VERIFY=1 "$@"; }
v causal128 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd
v causal128_bf16 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd DTYPE=bfloat16
v tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd,bwd
v document B=1 H=8 N=4096 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd
v softcap B=1 H=8 N=2048 D=128 CAUSAL=1 SOFTCAP=20 MODE=fwd,bwd
v decode64 MODE=decode B=4 H=32 HKV=8 NQ=16 N=4000 D=128 CAUSAL=1
for s in "64 1024 16 32 0" "64 1024 16 32 1" "128 4096 4 16 0" "64 4096 4 32 1" "128 16384 1 16 1"; do
  set -- $s; r f_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd PEERS=torch_flash CNT=20 VERIFY=0
done
r b_d128_n4096_c1 B=4 H=16 N=4096 D=128 CAUSAL=1 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=0
