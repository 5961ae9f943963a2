# After the clone in shard.rotate (169da81): the refused graph node's context (jit_dbg.py, RETRY=1), then ring.py at N=131072 and 262144
# with the bulk copies, TinyJit's CUDA graphs (the bar, re-measured with the clones). Two H200s; carry [".whl"]. ~5 min. Log: gpu2b.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
{
RETRY=1 DEV=CUDA timeout 150 python3 docs/runs/2026-11-29b_ring_tma/jit_dbg.py 2>&1 | grep -E "call|EXC|refused|again" | tail -14
DEV=CUDA timeout 330 python3 docs/runs/2026-11-29_context/ring.py 131072 262144 2>&1 | grep -v Warning
} 2>&1 | tee $OUT/gpu2b.log
