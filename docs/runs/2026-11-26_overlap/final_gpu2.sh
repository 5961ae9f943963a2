# the fp8 defaults by the ring (last fa_uop change of the session) on the H100: the GPU tests of fp8 and TinyJit, and bench at the default
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_fp8.py tests/test_jit.py 2>&1 | tail -3
for c in 0 1; do B=1 H=16 N=16384 D=128 CAUSAL=$c DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS=triton_fp8 timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|triton|verify)"; done
