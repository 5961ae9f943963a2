# The dQ accumulation's GPU tests (bulk reduce-adds against float64, TinyJit), the TinyJit tests, then D=256 (where 64x64x8s2q
# builds without spill and the default dQ kernel runs mma.sync) against the default backward: test.log, dq_d256.log
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_jit.py -k "dq_accumulation or test_jit" > $OUT/test.log 2>&1; tail -3 $OUT/test.log
bash docs/runs/2026-11-28i_p/ab_bwd.sh dq_d256.log <<'SHAPES'
4 8 4096 256 0 default 64x64x8s2q,64x32x4
1 8 16384 256 1 default 64x64x8s2q,64x32x4
SHAPES
