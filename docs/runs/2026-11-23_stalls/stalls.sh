# Nsight Compute on the H100: the stall reasons, instructions and active cycles of the causal and document-mask forwards
source scripts/device_setup.sh
M=$(for s in barrier long_scoreboard short_scoreboard math_pipe_throttle wait mio_throttle lg_throttle not_selected selected dispatch_stall tex_throttle membar drain imc_miss no_instruction branch_resolving sleeping misc; do printf "smsp__warp_issue_stalled_${s}_per_warp_active.pct,"; done)
for c in causal doc; do
  timeout 250 ncu -k regex:fa_fwd -s 1 -c 1 --metrics ${M%,},smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg python3 scripts/profile_fwd.py $c > $OUT/stalls_$c.txt 2>&1
  grep -E "stalled|inst_executed|cycles" $OUT/stalls_$c.txt | awk -v c=$c '{print c, $1, $NF}'
done
