# On an H100/H200: everything that has landed, verified through the Hopper target (the default there), small shapes, forward and
# backward (or decoding), (the sweep: scripts/hopper_sweep.sh). summary.txt in $OUT (a call returns 8 files at most), the logs in /tmp
source scripts/device_setup.sh
export FA_UOP_TUNE=0
vb() { # name env...
  local n=$1; shift
  (env CNT=3 PEERS= VERIFY=1 "$@" timeout 200 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' /tmp/$n.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error' /tmp/$n.log) $(grep -o 'config [0-9x]*' /tmp/$n.log | head -1)" | tee -a $OUT/summary.txt
}
source scripts/hopper_cases.sh
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -1 | tee -a $OUT/summary.txt
