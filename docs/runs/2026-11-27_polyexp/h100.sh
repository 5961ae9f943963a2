# issue 31: FlashAttention-4's exponentials on the FMA pipes in the fp8 ping-pong: every FA_POLY-th n-tile of S by a cubic in the
# fraction (2^x = 2^j 2^f, j by the 1.5*2^23 rounding trick, f in [-1/2, 1/2]), the rest by MUFU.EX2; against FA_POLY unset (the
# package's kernel), alternating, VERIFY=1. The experiment's source: poly.patch (over c8243c4's package)
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0 VERIFY=1 MODE=fwd PEERS= D=128 B=1 H=16 N=16384 DTYPE=fp8e4m3 CONFIG=128x128x8tr2p
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|verify|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
export CAUSAL=0
for i in 1 2 3; do for k in 4 ""; do echo "== causal=0 FA_POLY=${k:-none}"; FA_POLY=$k b; done; done
echo "== causal=0 FA_POLY=2"; FA_POLY=2 b
export CAUSAL=1; for k in 4 ""; do echo "== causal=1 FA_POLY=${k:-none}"; FA_POLY=$k b; done
