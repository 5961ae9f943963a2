# The next session's first call (run(carry=[".whl", ".minilm"])), about 7 minutes: the model with its real weights on the GPU
# (examples/embed.py; .minilm made here first, ignored by git: CC=clang-22 DEV=PYTHON::sm_80 python examples/embed.py --save-half .minilm),
# then where the backward's kernels wait (ncu.sh). Out: embed.log and ncu.sh's files
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=CUDA MINILM_DIR=.minilm timeout 150 python3 examples/embed.py 2>&1 | tail -14 | tee $OUT/embed.log
bash docs/runs/2026-11-28l_bwd_ncu/ncu.sh
