# compute-sanitizer's synccheck and racecheck on the forward with a producer warp (64x64x4tr1, 64x64x4tr2: named barriers over the
# consumers, mbarriers between the roles, the producer's early exit) and with bulk copies alone (64x64x4t), small shapes
# (scripts/ws_once.py). One line each in $OUT/summary.txt, logs in /tmp
source scripts/device_setup.sh
export FA_UOP_TUNE=0 DEV=CUDA
for c in 64x64x4tr2 64x64x4tr1 64x64x4t; do for tool in synccheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool python3 scripts/ws_once.py $c > /tmp/san_${c}_$tool.log 2>&1
  echo "$c $tool rc=$? $(grep -c ' ok' /tmp/san_${c}_$tool.log) ok, $(grep -c BAD /tmp/san_${c}_$tool.log) bad; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' /tmp/san_${c}_$tool.log | head -2 | tr '\n' ' ')" | tee -a $OUT/summary.txt
done; done
