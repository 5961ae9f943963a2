# A/B on the GPU of the block map's schedule and the carried tile indices: the kernels of 5209600 (abtmp/base), of f96abb0 (the
# earliest-deadline schedule, abtmp/sched: `mkdir -p abtmp/X && git archive <commit> | tar -x -C abtmp/X`) and the working tree
# (new), causal and the document mask (4 documents), fwd and bwd, 64x32x4, alternating, twice, the new document runs verified; then
# scripts/mask_variants.py on sched and new. Logs and summary.txt in $OUT.
source scripts/ab_bench.sh
big() { bench $1 $1_$2_$3 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=fwd,bwd CONFIG=64x32x4 PEERS= VERIFY=${4:-0} CNT=20; }
for r in a b; do
  big base none $r; big sched none $r; big new none $r
  big base document $r; big sched document $r; big new document $r $([ $r = a ] && echo 1)
done
for v in sched new; do d=$PWD; [ $v != new ] && d=$PWD/abtmp/$v; cp scripts/mask_variants.py $d/scripts/mv.py
  (cd $d && PYTHONPATH=/tmp/site:$d timeout 200 python3 scripts/mv.py) 2>&1 | sed "s/^/$v: /" | tee -a $OUT/summary.txt; done
