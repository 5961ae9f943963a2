# the session's final source on the H100: the GPU tests of the Hopper kernels, fp8 (every entry point) and TinyJit
source scripts/device_setup.sh; export DEV=CUDA
git log -1 --format=%h 2>/dev/null
timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py tests/test_jit.py 2>&1 | tail -4
