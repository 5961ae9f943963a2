# The persistent forward (P) with each tile's Q bulk-copied by the producer into one of two slots (q.patch), against the same kernels
# without it (the tree before the patch, copied to /tmp/base) and the table's default, on the H100/H200, fp16, non-causal (P takes no
# causal mask). First the patch's GPU tests (test_persistent_forward_on_hopper: float64, GQA, tails, TinyJit replays equal to eager),
# then bench.py MODE=fwd, one process a run, VERIFY=1 (N=1024) or 0, CNT=20, no peers. ~7 minutes; carry [".whl"]. Log: ab.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop bench.py scripts /tmp/base/
P=docs/runs/2026-11-29_persistent_q/q.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k persistent_forward_on_hopper 2>&1 | tail -3
run() {  # tree B H N D config verify
  echo "== $1 $6 B=$2 H=$3 N=$4 D=$5"
  (cd $([ $1 = new ] && echo . || echo /tmp/base) && CNT=20 VERIFY=$7 B=$2 H=$3 N=$4 D=$5 CAUSAL=0 MODE=fwd CONFIG=$6 timeout 60 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; grep -E "^fa_uop|verify|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
for rep in $(seq ${REPS:-2}); do   # REPS=1 SHORT=1: one pass at N=1024 only (a session's last minutes)
  run base 16 16 1024 128 128x128x8tr2p 0; run base 16 16 1024 128 128x128x8tr2pP 0; run new 16 16 1024 128 128x128x8tr2pP $((rep == 1))
  run base 16 32 1024 64 64x128x4t 0; run base 16 32 1024 64 128x224x8tr2pP 0; run new 16 32 1024 64 128x224x8tr2pP $((rep == 1))
done
[ "$SHORT" ] || { run base 4 16 4096 128 128x192x8tr2p 0; run base 4 16 4096 128 128x128x8tr2pP 0; run new 4 16 4096 128 128x128x8tr2pP 0
run base 1 16 16384 128 128x192x8tr2p 0; run base 1 16 16384 128 128x128x8tr2pP 0; run new 1 16 16384 128 128x128x8tr2pP 0; }
} 2>&1 | tee $OUT/ab.log
