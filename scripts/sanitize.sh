# compute-sanitizer's memcheck, racecheck and synccheck over every kernel family fa_uop launches, at tail shapes (scripts/sanitize_once.py):
# the forward by cp.async, by bulk copies, with a producer's ring and with its two consumer warpgroups' ping-pong; the backward; a
# mask_mod's block map; decoding dense and paged with the cache write and the combine; flash_attention's split-KV path. On the GPU machine: bash scripts/sanitize.sh [FAMILIES...];
# the runs go JOBS at a time (default 8: the tools' time is mostly the host's); one line per run in $OUT/sanitize.txt (errors and
# hazards counted), each run's log in ${SAN_LOGS:-/tmp}/san_FAMILY_TOOL.log
source scripts/device_setup.sh
export FA_UOP_TUNE=0 DEV=CUDA PARALLEL=0 SAN_LOGS=${SAN_LOGS:-/tmp}   # PARALLEL=0: no compile pool per run
one() {
  local fam=$1 tool=$2 log=$SAN_LOGS/san_$1_$2.log
  timeout ${SAN_TIMEOUT:-500} compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sanitize_once.py $fam > $log 2>&1
  echo "$fam $tool: rc=$? $(grep -c ' ok$' $log) ok, $(grep -c BAD $log) bad; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $log | tr '\n' ' ')"
}
export -f one
for fam in ${@:-64x64x4t 64x64x4tr2 128x128x8tr2p mask bwd paged split decode 64x64x4}; do for tool in ${TOOLS:-memcheck racecheck synccheck}; do echo $fam $tool; done; done |
  xargs -P ${JOBS:-8} -L 1 bash -c 'one $0 $1' | tee -a ${OUT:-/tmp}/sanitize.txt
