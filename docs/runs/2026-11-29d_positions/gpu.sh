# The ring's key positions at step s are constants (shard.positions(..., step=s)), no longer rotated copies: a step's block maps are
# built once and cached where each call built them; and SHARD=seq bench.py times TinyJit's replays (it timed eager calls: ~0.1 s of
# host time each). Two H200s; carry [".whl"]. Log: gpu.log
# Prediction: ring.py at N=131072 forward 1.78x -> 1.80-1.85x (the maps' ~0.5 ms a step and the positions' copies gone), forward+
# backward 1.72x -> 1.73-1.76x; bench SHARD=seq (B=1 H=16 N=32768 D=128 causal) ~1.6x the one-GPU forward's per-kernel time
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
{
DEV=CUDA timeout 330 python3 docs/runs/2026-11-29_context/ring.py 131072 262144 2>&1 | grep -v Warning
for s in "" seq; do DEV=CUDA SHARD=$s B=1 H=16 N=32768 D=128 CAUSAL=1 VERIFY=1 PEERS=torch_cudnn timeout 200 python3 bench.py 2>&1 | grep -E "fa_uop|torch|verify|CUDA"; done
DEV=CUDA DEVICES=2 SHARD=seq timeout 150 python3 examples/train_block.py 2>&1 | tail -2
} 2>&1 | tee $OUT/gpu.log
