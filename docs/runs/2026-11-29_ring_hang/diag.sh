# which shape or kernel of the non-causal default pair (64x64x4x2tr2 both) hangs in test_backward_ring_on_hopper (cut at 120 s
# in 2026-11-29_ring_verify): each call alone under a 25 s timeout; args kv dq B H Hkv Nq Nk D causal
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
R=64x64x4x2tr2; K=64x64x4; Q=64x64x4x3
t() { st=$(date +%s); DEV=CUDA timeout 25 python3 docs/runs/2026-11-29_ring_hang/one.py "$@" > /tmp/one.log 2>&1; echo "$*: rc=$? $(( $(date +%s) - st )) s: $(tail -1 /tmp/one.log)"; }
{
t $R $R 2 4 2 256 256 128 0
t $R $R 2 4 4 256 256 128 0
t $R $R 2 4 2 200 230 128 0
t $R $Q 2 4 2 200 230 128 0
t $K $R 2 4 2 200 230 128 0
t $R $Q 2 4 2 256 230 128 0
t $R $Q 2 4 2 200 256 128 0
t $K $R 2 4 2 256 230 128 0
t $K $R 2 4 2 200 256 128 0
t $R $Q 1 1 1 200 200 128 0
t $K $R 1 1 1 200 200 128 0
t $R $Q 1 1 1 64 64 128 0
t $K $R 1 1 1 64 64 128 0
t $R $R 2 8 4 1000 1000 128 0
t 128x64x8tr2 $Q 2 4 2 200 230 128 0
} 2>&1 | tee $OUT/diag.log
