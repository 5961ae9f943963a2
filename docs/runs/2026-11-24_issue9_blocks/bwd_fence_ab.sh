# The backward on the Hopper target with and without the async-proxy fence in its copies' waits (abtmp/prev: the tree with every
# wait fenced, as before 8df5be2; new: only tiles wgmma reads), causal and the document mask, B=1 H=16 N=16384 D=128, two rounds
# alternating, the first of the new verified. summary.txt in $OUT
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
rm -rf abtmp/prev && mkdir -p abtmp/prev && cp -r fa_uop bench.py abtmp/prev/ && sed -i 's/index(0), dst.atom > 0)/index(0), True)/' abtmp/prev/fa_uop/tiles.py
grep -c "index(0), True)" abtmp/prev/fa_uop/tiles.py | sed 's/^/prev patched: /' | tee -a $OUT/summary.txt
for r in 1 2; do for m in none document; do for v in prev new; do
  bench $v bwd_${v}_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=bwd PEERS= CNT=20 \
    VERIFY=$([ $v = new ] && [ $r = 1 ] && echo 1 || echo 0)
done; done; done
