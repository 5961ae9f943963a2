# (the FA_EXP_* toggles were temporary: docs/runs/2026-11-25b_bwd_exp/toggles.patch puts them on db6b975; what was kept has none)
# Nsight Compute's sections for the backward's dQ and dK/dV kernels of causal, causal through the map and the document mask (the
# second call's, scripts/profile_bwd.py), as text in $OUT; then each kernel's time with the mask kernels in grid order (FA_EXP_GRID)
source scripts/device_setup.sh
export FA_UOP_TUNE=0
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats --section SchedulerStats --section Occupancy --section LaunchStats"
for c in causal true doc; do
  for k in dq dkdv; do
    timeout 150 ncu -k regex:fa_bwd_${k}_ -s 1 -c 1 $S python3 scripts/profile_bwd.py $c > $OUT/ncu_${c}_$k.txt 2>&1
  done
done
tar czf $OUT/ncu.tgz $OUT/ncu_*.txt && rm $OUT/ncu_*.txt
export KERNEL=bwd
for r in 1; do for g in 0 1; do
  env CASES="true mask_mod (causal's tiles via the map);document" FA_EXP_GRID=$g timeout 150 python3 scripts/mask_variants.py 2>&1 | grep -E " ms|Error" | sed "s/^/grid$g.$r /" | tee -a $OUT/summary.txt
done; done
