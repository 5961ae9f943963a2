# What the tensor maps' acquire costs a block (nofence.patch drops it: an experiment, not for landing; safe here only because each
# process points its maps once): fa_uop at its defaults, against the same tree without the patch (copied to /tmp/base), on the
# H100/H200, fp16, N=1024 where a block's work outside its loop is largest (56 us against cuDNN's 27 at 3b68083), forward and the
# backward's ring; one process a run, CNT=20, no peers, VERIFY=1 (the maps are pointed once a process). ~4 minutes; carry [".whl"].
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop bench.py scripts /tmp/base/
P=docs/runs/2026-11-29_fence/nofence.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
run() {  # tree mode B H N D causal
  echo "== $1 $2 B=$3 H=$4 N=$5 D=$6 causal=$7"
  (cd $([ $1 = nofence ] && echo . || echo /tmp/base) && CNT=20 VERIFY=1 B=$3 H=$4 N=$5 D=$6 CAUSAL=$7 MODE=$2 timeout 60 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; grep -E "^fa_uop|verify|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
{ for rep in 1 2; do for t in base nofence; do
  run $t fwd 16 16 1024 128 0; run $t fwd 16 16 1024 128 1; run $t fwd 16 32 1024 64 0; run $t bwd 16 16 1024 128 0
done; done; } 2>&1 | tee $OUT/ab.log
