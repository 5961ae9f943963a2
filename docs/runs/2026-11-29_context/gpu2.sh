# Context parallelism on two GPUs of one host (nvidia-h200-x2 or -x4; carry [".whl"]): the ring's GPU tests (TinyJit, two devices),
# then ring.py at N=131072 (one GPU beside two, results compared) and 262144, then bench.py SHARD=seq with VERIFY at a small N
# and the sequence-parallel train_block. Issue 34's bar: >= 1.7x one GPU's throughput at N=131072. ~9 min. Log: gpu2.log
# Prediction (written before any run, docs/journal.md 2026-11-29 thirty-eighth session): the ring's kernels are the cp.async ones
# under a mask_mod (sharded calls take no bulk copies), each device's step about 0.8x the one-GPU TMA causal kernel's speed, the
# copies (512 MiB of K and V a step at N=131072) ~2 ms beside ~70 ms of forward: two GPUs 1.4-1.6x one forward, 1.4-1.7x
# forward+backward. Below the bar: the lead then is the bulk-copy kernels on sharded calls (docs/runs/2026-11-29_shard_tma/).
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
{
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
DEV=CUDA timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py -k sequence 2>&1 | tail -2
DEV=CUDA timeout 300 python3 docs/runs/2026-11-29_context/ring.py 131072 262144 2>&1 | grep -v Warning
DEV=CUDA SHARD=seq CAUSAL=1 B=1 H=16 N=8192 D=128 MODE=fwd,bwd CNT=5 PEERS= timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop|verify"
DEV=CUDA DEVICES=2 SHARD=seq STEPS=100 timeout 150 python3 examples/train_block.py 2>&1 | tail -3
} 2>&1 | tee $OUT/gpu2.log
