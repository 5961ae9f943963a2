# The backward's products by wgmma on the Hopper target (new) against mma.sync (abtmp/prev: the tree with backward._wgmma off), causal
# and the document mask at B=1 H=16 N=16384 D=128, alternating, the new verified; then the new beside FA2 at B=4 N=4096 (D=128 full,
# D=64 causal); then everything through the Hopper target (scripts/hopper_verify.sh). Logs (logs.tgz) and summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
rm -rf abtmp/prev && mkdir -p abtmp/prev && cp -r fa_uop bench.py abtmp/prev/ && sed -i 's/  return target.wgmma is not None and cfg.warps/  return False and cfg.warps/' abtmp/prev/fa_uop/backward.py
grep -c "return False and" abtmp/prev/fa_uop/backward.py | sed 's/^/prev patched: /' | tee -a $OUT/summary.txt
for m in none document; do for v in prev new; do
  bench $v bwd_${v}_${m} B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=bwd PEERS= CNT=20 VERIFY=$([ $v = new ] && echo 1 || echo 0)
done; done
bench new bwd_full_d128 B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=1
bench new bwd_causal_d64 B=4 H=32 N=4096 D=64 CAUSAL=1 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=1
mkdir -p $OUT/v && OUT=$OUT/v bash scripts/hopper_verify.sh
cat $OUT/v/summary.txt >> $OUT/summary.txt
cd $OUT && tar czf logs.tgz *.log v/*.log && rm -r *.log v
