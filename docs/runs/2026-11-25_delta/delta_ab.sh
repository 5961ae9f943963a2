# The backward's delta kernel: the working tree against abtmp/prev (fa_uop's first delta kernel, O and dO through LDS), causal, the
# document mask and causal over 4 sequences of 4096 (B=1 H=16 N=16384 D=128), each kernel's time (mask_variants.py, KERNEL=bwd),
# twice alternating; the document mask with the schedule's LATEST at 1 and 4 (no deadline: head by head); then the new backward
# verified by bench.py on causal and the document mask. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0 KERNEL=bwd CASES="causal;document;causal, 4 sequences of 4096"
mv_run() { # variant tag env...
  local d=$PWD v=$1 t=$2; shift 2; [ $v = prev ] && d=$PWD/abtmp/prev
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 200 python3 scripts/mask_variants.py 2>&1 | grep ms | sed "s/^/$t /") | tee -a $OUT/summary.txt
}
for r in 1 2; do mv_run prev prev$r; mv_run new new$r; done
for l in 1 4; do mv_run new latest$l CASES="document;true mask_mod (causal's tiles via the map)" LATEST=$l; done
unset KERNEL CASES
for m in none document; do
  bench new verify_$m B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=bwd PEERS= CNT=10 VERIFY=1
done
