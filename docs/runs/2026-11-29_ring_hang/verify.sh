# the fix for the backward ring's hang (a stage of one trip: its waits hoisted above the producer's loop) on an H100/H200 (~6 minutes;
# carry [".whl"]): diag.sh's shapes that hung, the ring GPU tests (now with one tile too) each under its own timeout, a jitted
# training step through autograd with tails at D=128, bench VERIFY with tails, and the dQ accumulation's GPU tests (one tile added)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
L=/tmp/tests; mkdir -p $L
pack() { tar czf $OUT/tests.tar.gz -C /tmp tests; }
R=64x64x4x2tr2; K=64x64x4; Q=64x64x4x3
t() { st=$(date +%s); DEV=CUDA timeout 25 python3 docs/runs/2026-11-29_ring_hang/one.py "$@" > /tmp/one.log 2>&1; echo "$*: rc=$? $(( $(date +%s) - st )) s: $(tail -1 /tmp/one.log)"; }
ring() { for id in "$@"; do
  st=$(date +%s)
  f=$L/ring_${id//[^A-Za-z0-9-]/_}.log
  DEV=CUDA timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu "tests/test_hopper.py::test_backward_ring_on_hopper[$id]" > $f 2>&1
  echo "ring test $id: rc=$? $(( $(date +%s) - st )) s: $(tail -1 $f)"; pack
done; }
{
t $R $R 2 4 2 200 230 128 0
t $K $R 1 1 1 200 200 128 0
t $R $Q 1 1 1 64 64 128 0
t $R $Q 1 1 1 64 64 128 1
t 128x64x8tr2 $R 1 1 1 64 64 128 1
t $R $R 2 8 4 1000 1000 128 0
ring "64x64x4x2tr2,64x64x4x2tr2-128-False" "128x64x8tr2,64x64x4x2tr2-128-True" "128x32x8tr3,128x64x8tr2-64-False"
for c in 0 1; do DEV=CUDA timeout 60 python3 scripts/user_checks.py step 2 16 1000 128 $c 2>&1 | tail -1; done
(env CNT=3 PEERS= VERIFY=1 B=2 H=8 N=1000 NK=777 D=128 CAUSAL=0 MODE=fwd,bwd timeout 100 python3 bench.py) > $L/tails128.log 2>&1
echo "tails128 non-causal: rc=$? $(grep -E '^fa_uop' $L/tails128.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' $L/tails128.log)"; pack
ring "128x64x8tr2,-128-False" "128x64x8tr2,-64-True"
DEV=CUDA timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k dq_accumulation_on_hopper > $L/dqacc.log 2>&1; echo "dq accumulation GPU tests: rc=$? $(tail -1 $L/dqacc.log)"; pack
} 2>&1 | tee $OUT/verify.log
