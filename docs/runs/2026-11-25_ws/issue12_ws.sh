# Issue 12: warp specialisation (a producer warp filling a ring of K and V slots by bulk copies: configs ...tr1, ...tr2) against the
# consumers' own copies (cp.async: the default; bulk: ...t), the same tree. First the GPU tests of the warp-specialised forward, then
# three of the sweep's shapes, each variant one after the other, FA2 beside the default. Logs stay on the machine; one line each on
# stdout and in $OUT/summary.txt as they finish
source scripts/device_setup.sh
export FA_UOP_TUNE=0
r() { local n=$1; shift; (env "$@" timeout 100 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^(fa_uop|torch)' /tmp/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') bad=$(grep -ci 'fail\|error\|mismatch' /tmp/$n.log)" | tee -a $OUT/summary.txt; }
DEV=CUDA timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py -k "warp_specialised and hopper" > /tmp/ws_tests.log 2>&1
rc=$?; tail -3 /tmp/ws_tests.log | tee -a $OUT/summary.txt; grep -E "^E " /tmp/ws_tests.log | head -20 | tee -a $OUT/summary.txt
[ $rc = 124 ] && exit 1   # a hang: no timings (a wrong result still times the shapes, read with it)
for s in "128 4096 4 16 0 64x64x4" "128 16384 1 16 1 64x64x4" "64 4096 4 32 1 64x128x4"; do
  set -- $s
  for v in "" t tr1 tr2; do r ws_$6${v}_d$1_n$2_c$5 CONFIG=$6$v B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd PEERS=$([ -z "$v" ] && echo torch_flash) CNT=20 VERIFY=0; done
done
