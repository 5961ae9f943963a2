# delta in the dQ kernel (dQ first, then dK/dV; no delta kernel; docs/runs/2026-11-25_delta_fused/delta_in_dq.patch applied to the tree):
# the working tree against abtmp/prev (the delta kernel of its own),
# causal and the document mask (B=1 H=16 N=16384 D=128), each kernel's time and the call's by events too (mask_variants.py,
# KERNEL=bwd, EVENTS=1), twice alternating; then the new backward verified by bench.py on causal and the document mask (issue 9's
# ratio). Logs and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0 KERNEL=bwd EVENTS=1 CASES="causal;document"
mv_run() { # variant tag env...
  local d=$PWD v=$1 t=$2; shift 2; [ $v = prev ] && d=$PWD/abtmp/prev
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 200 python3 scripts/mask_variants.py 2>&1 | grep ms | sed "s/^/$t /") | tee -a $OUT/summary.txt
}
for r in 1 2; do mv_run prev prev$r; mv_run new new$r; done
unset KERNEL CASES EVENTS
for m in none document; do
  bench new verify_$m B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=bwd PEERS= CNT=20 VERIFY=1
done
