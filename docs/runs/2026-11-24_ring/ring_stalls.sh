# (with docs/runs/2026-11-24_ring/ring.patch applied to the working tree: `git apply` it; abtmp/prev: the tree of 8adebab)
# Nsight Compute on the H100: stall reasons, instructions, cycles, registers and blocks per SM of the causal forward with the ring
# (the working tree) and without (abtmp/prev)
source scripts/device_setup.sh
M=$(for s in barrier long_scoreboard short_scoreboard math_pipe_throttle wait mio_throttle lg_throttle not_selected selected dispatch_stall no_instruction branch_resolving misc; do printf "smsp__warp_issue_stalled_${s}_per_warp_active.pct,"; done)
for v in prev new; do
  d=$PWD; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && PYTHONPATH=/tmp/site:$d timeout 250 ncu -k regex:fa_fwd -s 1 -c 1 --metrics ${M%,},smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum python3 $PWD/scripts/profile_fwd.py causal) > $OUT/stalls_$v.txt 2>&1
  grep -E "stalled|inst_executed|cycles|launch__|warps_active|issue_active|hit_rate|bank" $OUT/stalls_$v.txt | awk -v c=$v '{print c, $1, $NF}'
done
