# fa_uop as users run it, on the GPU, at the thirty-second session's start: the examples at their GPU sizes (train_block under
# TinyJit, generate SIZE=small, sdpa_patch, embed), then first calls with an empty tuning cache and TinyJit through user_checks.
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
ex() { n=$1; shift; echo "== $n $*"; timeout 150 env "$@" 2>&1 | tail -6 > $OUT/$n.log; tail -6 $OUT/$n.log; }
ex train_block JIT=1 STEPS=200 DEV=CUDA python3 examples/train_block.py
ex generate SIZE=small DEV=CUDA python3 examples/generate.py
ex sdpa_patch DEV=CUDA python3 examples/sdpa_patch.py
ex embed DEV=CUDA python3 examples/embed.py
for s in "2 16 2048 128 1" "4 8 1000 64 0"; do ex first_${s// /_} DEV=CUDA python3 scripts/user_checks.py first $s; done
ex jit DEV=CUDA python3 scripts/user_checks.py jit 2 16 2048 128 1
ex step DEV=CUDA python3 scripts/user_checks.py step 2 16 1024 64 1
ex decode DEV=CUDA python3 scripts/user_checks.py decode
