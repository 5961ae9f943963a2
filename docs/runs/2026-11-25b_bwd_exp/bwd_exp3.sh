# (the FA_EXP_* toggles were temporary: docs/runs/2026-11-25b_bwd_exp/toggles.patch puts them on db6b975; what was kept has none)
# Issue 9: registers and blocks an SM of the backward's kernels as the driver loads them (scripts/kernel_regs.py), HEAD (abtmp/prev)
# against the working tree's toggles; then the backward with dQ asked for 3 blocks an SM (64x64x4x3); summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_TUNE=0 ROOT=$PWD
regs() { # variant tag case env...
  local d=$PWD v=$1 t=$2 c=$3; shift 3; [ $v = prev ] && d=$PWD/abtmp/prev
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 100 python3 $ROOT/scripts/kernel_regs.py $c 2>&1 | grep -E "fa_bwd|Error" | sed "s/^/$t $c /") | tee -a $OUT/summary.txt
}
for c in causal doc; do
  regs prev prev $c; regs new plain $c; regs new clamp $c FA_EXP_CLAMP=1; regs new exp $c FA_EXP_CLAMP=1 FA_EXP_LONG=1
done
export EVENTS=1 KERNEL=bwd CASES="causal;document"
mv_run() { # variant tag env...
  local d=$PWD v=$1 t=$2; shift 2; [ $v = prev ] && d=$PWD/abtmp/prev
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 150 python3 $ROOT/scripts/mask_variants.py 2>&1 | grep -E " ms|Error" | sed "s/^/$t /") | tee -a $OUT/summary.txt
}
for r in 1 2; do
  mv_run prev prev$r BWD_CONFIGS=64x64x4
  mv_run new exp3_$r BWD_CONFIGS=64x64x4+64x64x4x3 FA_EXP_CLAMP=1 FA_EXP_LONG=1
  mv_run new clamp3_$r BWD_CONFIGS=64x64x4+64x64x4x3 FA_EXP_CLAMP=1
done
