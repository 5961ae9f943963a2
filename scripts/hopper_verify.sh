# On an H100/H200: everything that has landed, verified through the Hopper target (the default there), small shapes, forward and
# backward (or decoding), (the sweep: scripts/hopper_sweep.sh). summary.txt in $OUT (a call returns 8 files at most), the logs in /tmp.
# Parts: `bash scripts/hopper_verify.sh cases|tests|jit` (default all); a device call ends at 600 s, and the three together take longer
PART=${1:-all}
part() { [ "$PART" = all ] || [ "$PART" = "$1" ]; }
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"   # what it reports: under $OUT (default ./out)
export FA_UOP_TUNE=0
vb() { # name env...
  local n=$1; shift
  (env CNT=3 PEERS= VERIFY=1 "$@" timeout 200 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' /tmp/$n.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error' /tmp/$n.log) $(grep -o 'config [0-9a-zA-Z]*' /tmp/$n.log | head -1)" | tee -a $OUT/summary.txt
}
part cases && source scripts/hopper_cases.sh
# test_hopper's GPU tests (its CPU ones run in CI): the ring's five take about 20 s each on the H200, the persistent forward's four 65 s
part tests && { DEV=CUDA timeout 560 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py > /tmp/test_hopper.log 2>&1; tail -1 /tmp/test_hopper.log | tee -a $OUT/summary.txt; }
part jit || exit 0
# TinyJit: every candidate config, the backward, block maps, the drop-in and decoding captured and replayed against eager (-m gpu)
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py > /tmp/test_jit.log 2>&1; tail -1 /tmp/test_jit.log | tee -a $OUT/summary.txt
DEV=CUDA timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_fp8.py > /tmp/test_fp8.log 2>&1; tail -1 /tmp/test_fp8.log | tee -a $OUT/summary.txt
# the tuner on Hopper (its candidates: the cp.async configs and the wgmma ones with bulk copies, tma): the config it keeps, verified,
# and what it timed
vb tuned128 FA_UOP_TUNE=1 FA_UOP_CACHE=/tmp/tune.json B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=fwd
python3 -c "import json; [print(k.split('|')[-1], v['config'], v['ms']) for k, v in json.load(open('/tmp/tune.json')).items()]" 2>&1 | tee -a $OUT/summary.txt
