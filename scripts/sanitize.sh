# compute-sanitizer's memcheck, racecheck and synccheck over every kernel family fa_uop launches, at tail shapes (scripts/sanitize_once.py):
# the forward by cp.async, by bulk copies and with a producer's ring; the backward; a mask_mod's block map; decoding dense and paged with
# the cache write and the combine; flash_attention's split-KV path. On the GPU machine: bash scripts/sanitize.sh [FAMILIES...];
# one line per run in $OUT/sanitize.txt (errors and hazards counted), the logs in /tmp/san_*.log
source scripts/device_setup.sh
export FA_UOP_TUNE=0 DEV=CUDA
for fam in ${@:-64x64x4t 64x64x4tr2 mask bwd paged split decode 64x64x4}; do for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  log=/tmp/san_${fam}_$tool.log
  timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sanitize_once.py $fam > $log 2>&1
  echo "$fam $tool: rc=$? $(grep -c ' ok$' $log) ok, $(grep -c BAD $log) bad; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $log | tr '\n' ' ')" | tee -a ${OUT:-/tmp}/sanitize.txt
done; done
