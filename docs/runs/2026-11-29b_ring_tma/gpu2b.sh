# After the clone in shard.rotate (169da81): the refused graph node's context (jit_dbg.py, RETRY=1), then ring.py at N=131072 and 262144
# with the bulk copies, TinyJit's CUDA graphs (the bar, re-measured with the clones), then the two-GPU tests (the ring's under
# TinyJit fail at capture where the graph refuses a node). Two H200s; carry [".whl"]. ~7 min. Log: gpu2b.log
# Prediction: the refused nodes added again in their device's context succeed if the hypothesis holds; ring.py 1.74x forward and
# 1.73x forward+backward at N=131072 (the clones' two 256 MiB copies a device), at N=262144 1.75-1.8x and 1.7-1.75x
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
{
RETRY=1 DEV=CUDA timeout 150 python3 docs/runs/2026-11-29b_ring_tma/jit_dbg.py 2>&1 | grep -E "call|EXC|refused|again" | tail -14
DEV=CUDA timeout 330 python3 docs/runs/2026-11-29_context/ring.py 131072 262144 2>&1 | grep -v Warning
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_shard.py tests/test_jit.py -k "bulk_copies or sequence" 2>&1 | tail -4
} 2>&1 | tee $OUT/gpu2b.log
