# issue 31, for the next session: fp8 at D=128 with wider key tiles (FlashAttention-3's 224; and 192), Vᵀ's tiles in 32- or 64-byte
# swizzle atoms (vt32.patch: apply it first, `git apply docs/runs/2026-11-27_vt32/vt32.patch`). PART=1 its GPU tests, then an
# alternating A/B against 128x128x8tr2p (today's default) at N=16384, causal and not, VERIFY=1
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_fp8.py -k "ring and (224 or 128x128x8tr2p)" 2>&1 | grep -E "^E |passed|failed|FAILED" | head -20
export VERIFY=1 MODE=fwd PEERS= D=128 B=1 H=16 N=16384 DTYPE=fp8e4m3
for c in 0 1; do export CAUSAL=$c
  for cf in 128x224x8tr2p 128x128x8tr2p 128x192x8tr2p 128x224x8tr2p 128x128x8tr2p; do echo "== fp8 D=128 N=16384 causal=$c $cf"; CONFIG=$cf b; done
  # fp16 takes 192 keys a step without the patch (V is MN-major: its atoms run along the head dim); nvcc: no spill, none serialized
  for cf in 128x192x8tr2p 128x128x8tr2p; do echo "== fp16 D=128 N=16384 causal=$c $cf"; DTYPE=half CONFIG=$cf b; done
done
fi
# PART=2: D=256 N=4096 non-causal, the table's new entry (128x64x8tr2p) against the old (128x128x8tr1, which spills), with and without
# the document mask, beside cuDNN; works without vt32.patch
if [ "${PART:-1}" = 2 ]; then
export VERIFY=1 MODE=fwd D=256 B=4 H=8 N=4096 CAUSAL=0
for cf in 128x64x8tr2p 128x128x8tr1 128x64x8tr2p 128x128x8tr1; do echo "== fp16 D=256 N=4096 $cf"; PEERS=torch_cudnn CONFIG=$cf b; done
for cf in 128x64x8tr2p 128x128x8tr1; do echo "== fp16 D=256 N=4096 document $cf"; MASK=document PEERS= CONFIG=$cf b; done
fi
