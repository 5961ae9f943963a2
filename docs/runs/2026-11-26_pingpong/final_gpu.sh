# the new defaults (the ping-pong configs in the table) on the H100: PART=1 beside FA2 and cuDNN, verified, and the D=256 backward
# beside FA2; PART=2 the GPU tests (Hopper, fp8, TinyJit) and jit_check.py
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 150 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
for shape in "D=256 B=4 H=8 N=4096" "D=256 B=1 H=8 N=16384" "D=128 B=4 H=16 N=4096" "D=128 B=1 H=16 N=16384"; do for c in 0 1; do
  export $shape CAUSAL=$c; echo "== $shape causal=$c"; VERIFY=1 MODE=fwd PEERS=torch_flash,torch_cudnn b
done; done
export D=128 B=1 H=16 N=16384 CAUSAL=0; echo "== fp8e4m3 $D $N (fp8's own default), Triton fp8"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS=triton_fp8 b
for shape in "D=256 B=1 H=8 N=16384" "D=256 B=4 H=8 N=4096"; do export $shape CAUSAL=1; echo "== bwd $shape causal=1"; VERIFY=1 MODE=bwd PEERS=torch_flash b; done
fi
if [ "${PART:-1}" = 2 ]; then
timeout 420 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py tests/test_jit.py 2>&1 | tail -4
timeout 150 python3 docs/runs/2026-11-26_pingpong/jit_check.py 2>&1 | grep -vE "^\s*$" | tail -40
fi
