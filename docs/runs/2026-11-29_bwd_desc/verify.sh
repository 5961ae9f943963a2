# The backward's new defaults with rebuilt descriptors (D=128 non-causal dK/dV 64x64x4x2tr2d, D=64 dK/dV 64x64x4x3d) on the GPU:
# test_hopper's ring tests (float64, poisoned, GQA, tails, TinyJit replay), then the users' run (docs/runs/2026-11-28j_users/users.sh:
# examples, first calls, TinyJit, a training step at D=64 causal). One device call; carry [".whl"]. Log: verify.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
{
DEV=CUDA timeout 220 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "ring_on_hopper" 2>&1 | tail -3
timeout 360 bash docs/runs/2026-11-28j_users/users.sh
} 2>&1 | tee $OUT/verify.log
