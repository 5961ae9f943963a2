# fa_uop's forward and backward (B=1 H=16 N=16384 D=128: causal and the document mask; Hopper defaults) timed two ways in one run:
# gpu_time (the sum of each kernel's event times, tinygrad's DEBUG=2, as bench.py times fa_uop) and event_time (a TinyJit replay
# between two events, the L2 flushed: as bench.py times torch's peers, triton's do_bench); then issue 9's ratio by bench.py, verified
source scripts/ab_bench.sh
export FA_UOP_TUNE=0 EVENTS=1 CASES="causal;document"
for k in fwd bwd; do KERNEL=$k CONFIGS=64x64x4 NKS= timeout 200 python3 scripts/mask_variants.py 2>&1 | grep ms | sed "s/^/$k /" | tee -a $OUT/summary.txt; done
unset EVENTS CASES
