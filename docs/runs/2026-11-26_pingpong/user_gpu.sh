# the ping-pong defaults as users run them, on the H100: TinyJit training steps through autograd (jitted against eager), a first call
# of an untuned shape, and the example's training run at a longer sequence (fa_uop's losses beside tinygrad's SDPA)
source scripts/device_setup.sh; export DEV=CUDA
timeout 150 python3 scripts/user_checks.py step 2 16 4096 128 1 2>&1 | tail -4
timeout 150 python3 scripts/user_checks.py step 1 8 4096 256 1 2>&1 | tail -4
timeout 100 python3 scripts/user_checks.py first 2 16 3000 128 1 2>&1 | tail -3
STEPS=20 B=4 T=2048 DIM=1024 HEADS=8 JIT=1 timeout 200 python3 examples/train_block.py 2>&1 | tail -8
