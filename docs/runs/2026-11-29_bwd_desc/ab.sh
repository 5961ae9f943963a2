# The backward's descriptors (config d, 5b450e6: wgmma's descriptors of products with A in LDS, Sᵀ and dPᵀ, dQ's S and dP, built each
# K-step). desc_grid/ss.log, one run each, found them +3.5% at D=128 non-causal N=16384 and -3.3% at D=64, causal ±1.5%, with both
# kernels changed. First the GPU tests of the d configs (the forward's 128x224x8tr2pd, the backward ring's 128x64x8tr2d,64x64x4x2tr2d:
# float64, GQA, tails, TinyJit), then per shape the defaults against d on dK/dV's kernel, on dQ's and on both, alternating twice,
# one process a run, CNT=20, no peers, fp16, VERIFY on each d variant's first run. ~8 minutes; carry [".whl"]. Log: ab.log.
# Prediction in docs/journal.md (2026-11-29, thirty-seventh session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
{
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "tr2pd or tr2d" 2>&1 | tail -2
run() {  # name verify B H N D causal BWD_CONFIG
  (CNT=20 VERIFY=$2 B=$3 H=$4 N=$5 D=$6 CAUSAL=$7 BWD_CONFIG=$8 MODE=bwd timeout 120 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 B=$3 H=$4 N=$5 D=$6 causal=$7 $8: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, "ms"}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok"; [ $rc = 0 ] || echo "rc=$rc"
}
# each shape with its default pair (fa_uop.config.default_bwd_configs) and d on one side or both
for s in "1 16 16384 128 0 64x64x4x2tr2,64x64x4x2tr2" "4 16 4096 128 0 64x64x4x2tr2,64x64x4x2tr2" "1 16 16384 128 1 128x64x8tr2,64x64x4x2tr2" \
         "1 32 16384 64 0 64x64x4x3,64x64x4x3" "1 32 16384 64 1 64x64x4x3,64x64x4x3"; do
  set -- $s; kv=${6%,*}; dq=${6#*,}
  for i in 1 2; do
    v=$([ $i = 1 ] && echo 1 || echo 0)
    run base 0 $1 $2 $3 $4 $5 $kv,$dq; run kv_d $v $1 $2 $3 $4 $5 ${kv}d,$dq; run dq_d $v $1 $2 $3 $4 $5 $kv,${dq}d; run both_d $v $1 $2 $3 $4 $5 ${kv}d,${dq}d
  done
done
} 2>&1 | tee $OUT/ab.log
