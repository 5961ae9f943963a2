# where a short row block's time goes, on the GPU: scripts/mask_variants.py (forward: causal, a keep-all mask_mod, the document
# masks, a window) with the working tree's kernels (new) and two copies of it that are wrong on purpose, for timing only: no Q load
# (abtmp/noq) and no O store (abtmp/noo). summary.txt in $OUT.
source scripts/device_setup.sh
for v in new noq noo new; do d=$PWD; [ $v != new ] && d=$PWD/abtmp/$v
  (cd $d && PYTHONPATH=/tmp/site:$d timeout 200 python3 scripts/mask_variants.py) 2>&1 | sed "s/^/$v: /" | tee -a $OUT/summary.txt; done
