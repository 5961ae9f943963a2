# On an H100/H200: the FlashAttention-2 paper's sweep (fp16, forward and backward) beside FA2 and cuDNN, fa_uop at its default configs
# (tuning off: the table's picks, fa_uop/tuned.py), not verified here (scripts/hopper_verify.sh is). Table, JSON lines and plots in $OUT
source scripts/device_setup.sh
export OUT=${OUT:-out}; mkdir -p "$OUT"   # what it reports: under $OUT (default ./out)
export FA_UOP_TUNE=0
SWEEP=1 MODE=fwd,bwd PEERS=torch_flash,torch_cudnn VERIFY=0 OUT=$OUT timeout 560 python3 bench.py > $OUT/sweep.log 2>&1; echo "sweep rc=$?"
grep -E '^\|' $OUT/sweep.log
