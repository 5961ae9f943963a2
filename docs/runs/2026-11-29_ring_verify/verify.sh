# The backward's ring as the D=128 default (783d471) verified as users run it, on an H100/H200 (~9 minutes, what matters most first:
# a call ends at 600 s, the log written as it goes; carry [".whl"]). Each
# ring GPU test alone under its own timeout (at 783d471's call the four took 500 s together and the last was cut: slow or hung? the
# durations say), the TinyJit GPU tests, a jitted training step through autograd at D=128 (causal and not, against eager), and the
# D=128 backward cases of hopper_cases.sh (bf16, tails, GQA, masks on the kernels without the ring). Logs: verify.log, and each step's
# in tests.tar.gz (packed after each: the call returns a few files, and only what it left when cut)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
L=/tmp/tests; mkdir -p $L
pack() { tar czf $OUT/tests.tar.gz -C /tmp tests; }
{
ring() { for id in "$@"; do
  st=$(date +%s)
  f=$L/ring_${id//[^A-Za-z0-9-]/_}.log
  DEV=CUDA timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu "tests/test_hopper.py::test_backward_ring_on_hopper[$id]" > $f 2>&1
  echo "ring test $id: rc=$? $(( $(date +%s) - st )) s: $(tail -1 $f)"; pack
done; }
# the defaults' pairs first, then a jitted training step through autograd, the D=128 cases, TinyJit's tests, the other ring tests
ring "64x64x4x2tr2,64x64x4x2tr2-128-False" "128x64x8tr2,64x64x4x2tr2-128-True"
for c in 0 1; do DEV=CUDA timeout 90 python3 scripts/user_checks.py step 2 16 2048 128 $c 2>&1 | tail -3; done
vb() { local n=$1; shift; (env CNT=3 PEERS= VERIFY=1 "$@" timeout 100 python3 bench.py) > $L/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' $L/$n.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' $L/$n.log) bad=$(grep -ci 'fail\|error' $L/$n.log)"; pack; }
grep -E "^vb (causal128|tails128_causal|gqa |window|document|softcap)" scripts/hopper_cases.sh > /tmp/cases.sh; source /tmp/cases.sh
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py > $L/jit.log 2>&1; echo "test_jit -m gpu: rc=$? $(tail -1 $L/jit.log)"; pack
ring "128x64x8tr2,-128-False" "128x64x8tr2,-64-True" "128x32x8tr3,128x64x8tr2-64-False"
} 2>&1 | tee $OUT/verify.log
