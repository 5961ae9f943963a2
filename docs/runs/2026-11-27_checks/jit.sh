# user_checks.py's TinyJit replay mode (replacing the runs' jit_check.py copies) at today's defaults with tails: fp8 D=128 N=5000
# (128x224x8tr2p, Vᵀ padded twice), fp16 D=128 N=5000 (128x192x8tr2p; causal 128x128x8tr2p), fp16 D=256 N=4096 (128x64x8tr2p)
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
for c in 0 1; do python3 scripts/user_checks.py jit 1 16 5000 128 $c fp8e4m3; python3 scripts/user_checks.py jit 1 16 5000 128 $c; done 2>&1 | grep "^jit"
python3 scripts/user_checks.py jit 1 8 4096 256 1 2>&1 | grep "^jit"
