# ab.sh found ss (descriptors rebuilt each K-step where A is in LDS, by one add where A is in registers) the fastest at D=64 N=16384
# non-causal. ss against add (the tree) on the forward's other sweep shapes, then the backward's four N=16384 shapes (D=64/128, causal
# or not): once each, one process a run, CNT=20, no peers, fp16, VERIFY on ss. ~4.5 minutes; carry [".whl"]. Log: ss.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-29_desc_grid/variants.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
run() {  # variant verify mode B H N D causal
  (FA_DESC=$1 CNT=20 VERIFY=$2 B=$4 H=$5 N=$6 D=$7 CAUSAL=$8 MODE=$3 timeout 90 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 $3 B=$4 H=$5 N=$6 D=$7 causal=$8: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok $(grep -o 'config [0-9a-zA-Z]*' $OUT/run.txt | head -1)"; [ $rc = 0 ] || echo "rc=$rc"
}
for s in "fwd 16 32 1024 64 0" "fwd 4 32 4096 64 0" "fwd 16 32 1024 64 1" "fwd 4 32 4096 64 1" "fwd 1 32 16384 64 1" "fwd 16 16 1024 128 0" "fwd 4 16 4096 128 0" "fwd 16 16 1024 128 1" "fwd 4 16 4096 128 1" "fwd 1 16 16384 128 1" "fwd 1 16 16384 128 0" \
         "bwd 1 32 16384 64 0" "bwd 1 32 16384 64 1" "bwd 1 16 16384 128 0" "bwd 1 16 16384 128 1"; do
  run add 0 $s; run ss 1 $s
done
} 2>&1 | tee $OUT/ss.log
