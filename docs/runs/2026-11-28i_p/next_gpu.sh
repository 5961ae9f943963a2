# For the next session's first call (not run yet: this session's device time was spent), from the repository root on an H100/H200,
# about 5 minutes: the TinyJit graph fix's GPU tests (a5cc4bd, df70888), then FlashAttention-3's shape of the dQ accumulation,
# 128x64x8q (two warpgroups of 64 keys, dQ's part over all 128: half the bulk adds a key), beside the default backward: test.log,
# dq_128keys.log
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_jit.py -k "dq_accumulation or test_jit" > $OUT/test.log 2>&1; tail -3 $OUT/test.log
bash docs/runs/2026-11-28i_p/ab_bwd.sh dq_128keys.log <<'SHAPES'
1 16 16384 128 0 default 128x64x8q,64x64x4x3 64x64x4q,64x64x4x3
1 32 16384 64 0 default 128x64x8q,64x64x4x3
SHAPES
