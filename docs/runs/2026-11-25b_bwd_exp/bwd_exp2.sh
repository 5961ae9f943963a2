# (the FA_EXP_* toggles were temporary: docs/runs/2026-11-25b_bwd_exp/toggles.patch puts them on db6b975; what was kept has none)
# Issue 9's document backward: a carried tile index re-bounded (FA_EXP_CLAMP) and tile copies' global addresses in 64 bits
# (FA_EXP_LONG), against abtmp/prev (HEAD); the SASS loop sizes of cubins/ (built here by nvcc), each kernel's time (mask_variants.py)
source scripts/device_setup.sh
for f in cubins/*.cubin; do
  cuobjdump -sass $f | python3 -c "
import re, sys
ins = [(int(m.group(1), 16), m.group(2)) for l in sys.stdin if (m := re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?);', l))]
loops = [(int(t.group(1), 16), a) for a, s in ins if 'BRA' in s and (t := re.search(r'0x([0-9a-f]+)', s)) and int(t.group(1), 16) < a]
print('$(basename $f .cubin)', len(ins), 'instructions; loops', [(b - a) // 16 for a, b in loops])" | tee -a $OUT/summary.txt
done
export FA_UOP_TUNE=0 EVENTS=1
mv_run() { # variant tag env...
  local d=$PWD v=$1 t=$2; shift 2; [ $v = prev ] && d=$PWD/abtmp/prev
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 150 python3 scripts/mask_variants.py 2>&1 | grep -E " ms|Error" | sed "s/^/$t /") | tee -a $OUT/summary.txt
}
for r in 1 2; do
  mv_run prev prev$r KERNEL=bwd CASES="causal;document"
  mv_run new exp$r KERNEL=bwd CASES="causal;document" FA_EXP_CLAMP=1 FA_EXP_LONG=1
  [ $r = 1 ] && mv_run new plain$r KERNEL=bwd CASES="causal;document"
  [ $r = 1 ] && mv_run new clamp$r KERNEL=bwd CASES="causal;document" FA_EXP_CLAMP=1
done
mv_run prev fwdprev CASES="causal;document" CONFIGS=64x64x4 NKS=
mv_run new fwdexp CASES="causal;document" CONFIGS=64x64x4 NKS= FA_EXP_CLAMP=1 FA_EXP_LONG=1
unset EVENTS
for m in none document; do for mode in fwd bwd; do
  env FA_EXP_CLAMP=1 FA_EXP_LONG=1 B=1 H=16 N=4096 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=$mode PEERS= CNT=5 VERIFY=1 \
    timeout 100 python3 bench.py 2>&1 | grep -E "^fa_uop|verify|Error" | sed "s/^/verify_${m}_$mode /" | tee -a $OUT/summary.txt
done; done
