# issue 31, nineteenth session: fp8's exponentials against the stale max (S turned into x = S·c - m in place, P = exp2(x) beside the
# row max, redone from x behind a branch where a row moved past LAZY). FA_UOP_STALE=0 builds the kernel as before (same tree).
# GPU tests first (the lazy rescale's climbing scores move rows often; the ring's tails and GQA), then bench rows, every one verified.
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
timeout 200 python3 -m pytest -q -m gpu tests/test_hopper.py tests/test_fp8.py -k "lazy_rescale and fp8 or fp8_ring_on_hopper and tr2p" 2>&1 | tail -4
export VERIFY=1 MODE=fwd N=16384 B=1 H=16 D=128
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|triton|torch|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
for c in 0 1; do
  for run in "0 128x224x8tr2p" "1 128x128x8tr2p" "0 128x128x8tr2p" "1 128x192x8tr2p" "1 128x224x8tr2p"; do set -- $run
    echo "== fp8 causal=$c STALE=$1 $2"; FA_UOP_STALE=$1 CONFIG=$2 CAUSAL=$c DTYPE=fp8e4m3 PEERS= b
  done
done
echo "== fp16 causal=0 (default)"; CAUSAL=0 PEERS= b
