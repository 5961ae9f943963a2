# On an H100/H200: everything that has landed, verified through the Hopper target (the default there), small shapes, forward and
# backward (or decoding), (the sweep: scripts/hopper_sweep.sh). summary.txt in $OUT (a call returns 8 files at most), the logs in /tmp
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"   # what it reports: under $OUT (default ./out)
export FA_UOP_TUNE=0
vb() { # name env...
  local n=$1; shift
  (env CNT=3 PEERS= VERIFY=1 "$@" timeout 200 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' /tmp/$n.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error' /tmp/$n.log) $(grep -o 'config [0-9xt]*' /tmp/$n.log | head -1)" | tee -a $OUT/summary.txt
}
source scripts/hopper_cases.sh
# the GPU tests take about 6 minutes on an H100 (39 of them at bd564e7; four lazy-rescale ones more since 17ae8d3, two of the wide key
# tiles since 67b6dc8): 200 s cut them short without a summary line
DEV=CUDA timeout 600 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py > /tmp/test_hopper.log 2>&1; tail -1 /tmp/test_hopper.log | tee -a $OUT/summary.txt
# TinyJit: every candidate config, the backward, block maps, the drop-in and decoding captured and replayed against eager (-m gpu)
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py > /tmp/test_jit.log 2>&1; tail -1 /tmp/test_jit.log | tee -a $OUT/summary.txt
# the tuner on Hopper (its candidates: the cp.async configs and the wgmma ones with bulk copies, tma): the config it keeps, verified,
# and what it timed
vb tuned128 FA_UOP_TUNE=1 FA_UOP_CACHE=/tmp/tune.json B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=fwd
python3 -c "import json; [print(k.split('|')[-1], v['config'], v['ms']) for k, v in json.load(open('/tmp/tune.json')).items()]" 2>&1 | tee -a $OUT/summary.txt
