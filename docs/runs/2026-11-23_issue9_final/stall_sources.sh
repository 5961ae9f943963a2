# Nsight Compute's per-instruction stall samples (SourceCounters) of the causal and document-mask forwards (scripts/profile_fwd.py),
# the source page as CSV (gzipped) in $OUT; then scripts/mask_variants.py
source scripts/device_setup.sh
for c in causal doc; do
  timeout 200 ncu -k regex:fa_fwd -s 1 -c 1 --section SourceCounters --section WarpStateStats -o $OUT/rep_$c python3 scripts/profile_fwd.py $c > $OUT/ncu_$c.txt 2>&1
  ncu -i $OUT/rep_$c.ncu-rep --page source --print-source sass --csv 2> $OUT/src_err_$c.txt | gzip > $OUT/src_$c.csv.gz
  ncu -i $OUT/rep_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ls -la $OUT/src_$c.csv.gz; head -c 300 $OUT/src_err_$c.txt; rm -f $OUT/rep_$c.ncu-rep
done
timeout 200 python3 scripts/mask_variants.py 2>&1 | tee $OUT/mask_variants.txt
