# The ring's GPU tests with ring.patch applied: tests/test_hopper.py -m gpu -k backward_ring (4: both kernels' rings and dK/dV's beside
# the default dQ, against float64 with the outputs poisoned, GQA, tails, causal and not, D=64 and 128; under TinyJit replayed on fresh
# inputs equal to eager). Log: gpu_tests.log
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
P=docs/runs/2026-11-28n_bwd_ring/ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }   # once
DEV=CUDA timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k backward_ring 2>&1 | tail -15 | tee $OUT/gpu_tests.log
