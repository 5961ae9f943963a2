# The ring's block maps classified from position ranges (Mods.span) where they evaluated the causal mask on each element (17 ms a
# step at N=131072, as long as the step's attention: 2026-11-29b_ring_tma/ring_dbg2.log). Two H200s; carry [".whl"]. Log: gpu.log
# Prediction: ring.py at N=131072 forward 1.43x -> 1.9-2.0x one GPU, forward+backward 1.64x -> 1.75-1.85x; classify under 0.3 ms
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"; cp docs/runs/2026-11-29b_ring_tma/ring_profile.py /tmp/ringprof.py
{
DEV=CUDA timeout 330 python3 docs/runs/2026-11-29_context/ring.py 131072 262144 2>&1 | grep -v Warning
DEV=CUDA DEBUG=2 timeout 120 python3 /tmp/ringprof.py 131072 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | grep -E "fa_|copy" | tail -60
} 2>&1 | tee $OUT/gpu.log
