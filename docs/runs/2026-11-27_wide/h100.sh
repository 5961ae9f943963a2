# issue 31, eighteenth session: the wide key tiles (vt32.patch, landed) beside today's defaults, where the tuner and the table would
# take them. Alternating, VERIFY=1, one H100. Then fp8's new default beside Triton's e5m2 tutorial, and TinyJit on the new defaults.
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0 VERIFY=1 MODE=fwd
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|triton|torch|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
export PEERS=
# fp8 D=128 at 4096 and 1024 keys: 224 against the default there (64x128x4x2tr2)
for n in 4096 1024; do for c in 0 1; do for cf in 128x224x8tr2p 64x128x4x2tr2 128x224x8tr2p 64x128x4x2tr2; do
  echo "== fp8 D=128 N=$n causal=$c $cf"; N=$n B=$((16384/n)) H=16 D=128 CAUSAL=$c DTYPE=fp8e4m3 CONFIG=$cf b; done; done; done
# fp16 D=64: 224 and 192 keys against the table's 128x128x8tr2p
for c in 0 1; do for cf in 128x224x8tr2p 128x192x8tr2p 128x128x8tr2p; do
  echo "== fp16 D=64 N=16384 causal=$c $cf"; N=16384 B=1 H=16 D=64 CAUSAL=$c DTYPE=half CONFIG=$cf b; done; done
fi
if [ "${PART:-1}" = 3 ]; then
export PEERS=
# fp16 D=128: 192 keys against the table's 128x128x8tr2p
for n in 16384 4096; do for c in 0 1; do for cf in 128x192x8tr2p 128x128x8tr2p 128x192x8tr2p 128x128x8tr2p; do
  echo "== fp16 D=128 N=$n causal=$c $cf"; N=$n B=$((16384/n)) H=16 D=128 CAUSAL=$c DTYPE=half CONFIG=$cf b; done; done; done
fi
if [ "${PART:-1}" = 2 ]; then
# fp8's defaults beside Triton's fp8 (e5m2) tutorial, then TinyJit
for c in 0 1; do echo "== fp8 default D=128 N=16384 causal=$c"; N=16384 B=1 H=16 D=128 CAUSAL=$c DTYPE=fp8e4m3 PEERS=triton_fp8 b; done
timeout 400 python3 docs/runs/2026-11-27_wide/jit_check.py 2>&1 | tail -24
fi
