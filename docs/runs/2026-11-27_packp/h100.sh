# issue 31: P rounded and packed into wgmma's A registers above the lazy rescale's branch in the ping-pong (pack_p.patch), against
# the source before it (abtmp/prev: `git archive 50080a9 fa_uop bench.py scripts`), alternating, VERIFY=1
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
ab() { echo "== $1 D=$D N=$N causal=$CAUSAL $2 packed"; DTYPE=$1 CONFIG=$2 b; echo "== $1 D=$D N=$N causal=$CAUSAL $2 before"; (cd abtmp/prev && DTYPE=$1 CONFIG=$2 b); }
if [ "${PART:-1}" = 1 ]; then
export VERIFY=1 MODE=fwd PEERS=
export D=128 B=1 H=16 N=16384 CAUSAL=0
for i in 1 2 3; do ab fp8e4m3 128x128x8tr2p; done
ab half 128x128x8tr2p
export CAUSAL=1; for i in 1 2; do ab fp8e4m3 128x128x8tr2p; done; ab half 128x128x8tr2p
export D=256 B=1 H=8 N=16384 CAUSAL=0; ab fp8e4m3 128x128x8tr2p; ab half 128x64x8tr2p
fi
# PART=3: PART=1's fp8 rows again after the fix (the packed fp8 kernels had not built: NVRTC has no GNU statement expressions,
# which _cuda_pack had used; nvcc, where the compile tests build, takes them); fp16 rows from PART=1 stand (nothing changed for them)
if [ "${PART:-1}" = 3 ]; then
export VERIFY=1 MODE=fwd PEERS=
export D=128 B=1 H=16 N=16384 CAUSAL=0; for i in 1 2 3; do ab fp8e4m3 128x128x8tr2p; done
export CAUSAL=1; for i in 1 2; do ab fp8e4m3 128x128x8tr2p; done
export D=256 B=1 H=8 N=16384 CAUSAL=0; ab fp8e4m3 128x128x8tr2p
fi
# PART=2: the ping-pong's GPU tests at the packed source
if [ "${PART:-1}" = 2 ]; then
timeout 560 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py -k "lazy or warp_specialised or ring" 2>&1 | grep -E "^E |passed|failed|FAILED" | head -30
fi
