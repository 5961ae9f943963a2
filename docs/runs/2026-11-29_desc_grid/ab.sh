# Which wgmma calls want their descriptors rebuilt each K-step (as before 871672b) rather than by one add: fwd_desc/ab.log found the
# rebuilt form 5.6% faster at D=64 N=16384 non-causal (128x224x8tr2p), level at D=128 N=16384. variants.patch (not for landing) picks
# the form by FA_DESC: add (the tree), old (every call rebuilt), rs (rebuilt where A is in registers: P·V), ss (where A is in LDS: Q·Kᵀ).
# First the four at D=64 N=16384 non-causal, alternating twice; then add against old on the forward's other eight sweep shapes (and
# D=64 N=4096), alternating twice; one process a run, CNT=20, no peers, fp16, VERIFY on each variant's first run. ~6 minutes;
# carry [".whl"]. Log: ab.log. Prediction in docs/journal.md (2026-11-29, thirty-seventh session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-29_desc_grid/variants.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
run() {  # variant verify B H N D causal
  (FA_DESC=$1 CNT=20 VERIFY=$2 B=$3 H=$4 N=$5 D=$6 CAUSAL=$7 MODE=fwd timeout 90 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 B=$3 H=$4 N=$5 D=$6 causal=$7: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok $(grep -o 'config [0-9a-zA-Z]*' $OUT/run.txt | head -1)"; [ $rc = 0 ] || echo "rc=$rc"
}
s="1 32 16384 64 0"; run add 0 $s; run old 1 $s; run rs 1 $s; run ss 1 $s; run add 0 $s; run old 0 $s; run rs 0 $s; run ss 0 $s
for s in "16 32 1024 64 0" "4 32 4096 64 0" "16 32 1024 64 1" "4 32 4096 64 1" "16 16 1024 128 0" "4 16 4096 128 0" "16 16 1024 128 1" "4 16 4096 128 1" "1 16 16384 128 1"; do
  run add 0 $s; run old 1 $s; run add 0 $s; run old 0 $s
done
} 2>&1 | tee $OUT/ab.log
