# (the FA_EXP_* toggles were temporary: docs/runs/2026-11-25b_bwd_exp/toggles.patch puts them on db6b975; what was kept has none)
# Issue 9's document backward: temporary toggles (FA_EXP_GRID: mask kernels in grid order, no schedule; FA_EXP_NOWAIT: dQ's Q and dO
# waited with the first K/V tile, not before it; FA_EXP_DELTA_RPT: rows a thread of the delta kernel), each kernel's time and the
# backward between events (mask_variants.py, KERNEL=bwd), causal, causal through the map and the document mask; summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_TUNE=0 KERNEL=bwd EVENTS=1
run() { # tag cases env...
  local t=$1 c=$2; shift 2
  env CASES="$c" "$@" timeout 150 python3 scripts/mask_variants.py 2>&1 | grep -E "ms|Error|error" | sed "s/^/$t /" | tee -a $OUT/summary.txt
}
ALL="causal;true mask_mod (causal's tiles via the map);document"
run base1 "$ALL"
run grid1 "$ALL" FA_EXP_GRID=1
run nowait1 "$ALL" FA_EXP_NOWAIT=1
run delta4 "causal;document" FA_EXP_DELTA_RPT=4
run base2 "causal;document"
run all2 "causal;document" FA_EXP_NOWAIT=1 FA_EXP_DELTA_RPT=4
unset KERNEL EVENTS
for m in none document; do
  env FA_EXP_NOWAIT=1 FA_EXP_DELTA_RPT=4 B=1 H=16 N=4096 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=bwd PEERS= CNT=5 VERIFY=1 \
    timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop|verify|Error" | sed "s/^/verify_$m /" | tee -a $OUT/summary.txt
done
