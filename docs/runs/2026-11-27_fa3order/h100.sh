# issue 31: FlashAttention-3's order within a warpgroup in the ping-pong: a turn issues S_p then P·V_{p-1} (P packed at the end of the
# step before), S_p is waited for alone and the softmax runs under P·V_{p-1}; against 50080a9's source (abtmp/prev), alternating
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
ab() { echo "== $1 D=$D N=$N causal=$CAUSAL $2 new"; DTYPE=$1 CONFIG=$2 b; echo "== $1 D=$D N=$N causal=$CAUSAL $2 before"; (cd abtmp/prev && DTYPE=$1 CONFIG=$2 b); }
if [ "${PART:-1}" = 1 ]; then
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py -k "tr2p and (lazy or warp_specialised or ring)" 2>&1 | grep -E "^E |passed|failed|FAILED" | head -20
export VERIFY=1 MODE=fwd PEERS=
export D=128 B=1 H=16 N=16384 CAUSAL=0; for i in 1 2; do ab fp8e4m3 128x128x8tr2p; done; ab half 128x128x8tr2p
export CAUSAL=1; ab fp8e4m3 128x128x8tr2p; ab half 128x128x8tr2p
export D=256 B=1 H=8 N=16384 CAUSAL=0; ab fp8e4m3 128x128x8tr2p; ab half 128x64x8tr2p
fi
