# Issue 12: K and V by Hopper's bulk tensor copies (TMA, FA_UOP_TMA=1) against cp.async (FA_UOP_TMA=0), the same tree. First the GPU
# tests of the TMA forward (GQA, tails, twice on other buffers: the maps pointed anew) and the fast-math change's remaining cases of
# hopper_cases.sh, then the forward on six of the sweep's shapes, alternating, FA2 beside. Logs stay on the machine; one line each on
# stdout and in $OUT/summary.txt as they finish
source scripts/device_setup.sh
export FA_UOP_TUNE=0
r() { local n=$1; shift; (env "$@" timeout 100 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^(fa_uop|torch)' /tmp/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error\|mismatch' /tmp/$n.log)" | tee -a $OUT/summary.txt; }
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py -k "tma and hopper" 2>&1 | tail -3 | tee -a $OUT/summary.txt
r v_tma_causal128 FA_UOP_TMA=1 CNT=3 PEERS= VERIFY=1 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd
r v_tma_tails64 FA_UOP_TMA=1 CNT=3 PEERS= VERIFY=1 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd
for s in "64 1024 16 32 0" "64 1024 16 32 1" "64 4096 4 32 1" "128 1024 16 16 1" "128 4096 4 16 0" "128 16384 1 16 1"; do
  set -- $s
  for t in 0 1; do r f_tma${t}_d$1_n$2_c$5 FA_UOP_TMA=$t B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd PEERS=$([ $t = 1 ] && echo torch_flash) CNT=20 VERIFY=0; done
done
