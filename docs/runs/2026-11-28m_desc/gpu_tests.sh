# The GPU tests with desc.patch applied, before it lands, in two calls of under 10 minutes: PART=1 tests/test_hopper.py, PART=2
# tests/test_fp8.py and tests/test_jit.py (48 tests in all; 12 took 234 s on the H200). Log: gpu_tests_$PART.log
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
git apply docs/runs/2026-11-28m_desc/desc.patch || patch -p1 < docs/runs/2026-11-28m_desc/desc.patch
T=tests/test_hopper.py; [ "$PART" = 2 ] && T="tests/test_fp8.py tests/test_jit.py"
DEV=CUDA timeout 560 python3 -m pytest -q -p no:cacheprovider -m gpu $T 2>&1 | tail -15 | tee $OUT/gpu_tests_$PART.log
