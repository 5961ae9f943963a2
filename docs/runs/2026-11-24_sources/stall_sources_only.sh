# Nsight Compute's per-instruction stall samples (SourceCounters) of the causal and document-mask forwards at the working tree
# (scripts/profile_fwd.py): the SASS source page as CSV (gzipped) and the details page in $OUT
source scripts/device_setup.sh
for c in causal doc; do
  timeout 200 ncu -k regex:fa_fwd -s 1 -c 1 --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy -o $OUT/rep_$c python3 scripts/profile_fwd.py $c > $OUT/ncu_$c.txt 2>&1
  ncu -i $OUT/rep_$c.ncu-rep --page source --print-source sass --csv 2> $OUT/src_err_$c.txt | gzip > $OUT/src_$c.csv.gz
  ncu -i $OUT/rep_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  rm -f $OUT/rep_$c.ncu-rep
done
ls -la $OUT
