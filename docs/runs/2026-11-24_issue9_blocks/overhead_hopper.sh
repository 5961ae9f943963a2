# What a block of the Hopper forward spends outside its loop (128x128x8: one block per SM): copies of the tree wrong on purpose, Q's
# copy reading nothing (zero-filled) and the output's global store predicated off (its LDS staging kept), beside the tree itself, on
# causal, the document mask and full attention over 2048 and 16384 keys (scripts/mask_variants.py). summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_TUNE=0 CONFIGS=${CONFIGS:-128x128x8} CASES="causal,document" NKS=2048,16384
mk() { rm -rf abtmp/$1 && mkdir -p abtmp/$1 && cp -r fa_uop bench.py scripts abtmp/$1/; }
mk noq; sed -i 's/copy_tile(blk, q_s, qg, q_rows, nq)/copy_tile(blk, q_s, qg, q_rows, nq - 10**7)/' abtmp/noq/fa_uop/forward.py
mk nostore; sed -i 's/flat(o), o_row, nq)\]/flat(o), o_row, row_sum[0].ne(row_sum[0]).where(nq, nq - 10**7))]/' abtmp/nostore/fa_uop/forward.py
mk neither; cp abtmp/noq/fa_uop/forward.py abtmp/neither/fa_uop/; sed -i 's/flat(o), o_row, nq)\]/flat(o), o_row, row_sum[0].ne(row_sum[0]).where(nq, nq - 10**7))]/' abtmp/neither/fa_uop/forward.py
for v in noq nostore neither; do diff -q fa_uop/forward.py abtmp/$v/fa_uop/forward.py > /dev/null && echo "$v: unchanged!" | tee -a $OUT/summary.txt; done
for r in 1 2; do for v in base noq nostore neither; do
  d=$PWD; [ $v != base ] && d=$PWD/abtmp/$v
  (cd $d && PYTHONPATH=/tmp/site:$d DEV=CUDA timeout 200 python3 scripts/mask_variants.py 2>&1 | grep ' ms$' | sed "s/^/$v $r /") | tee -a $OUT/summary.txt
done; done
