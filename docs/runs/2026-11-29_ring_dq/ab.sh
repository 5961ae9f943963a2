# FlashAttention-3's dQ accumulation on the backward's ring (dq.patch: 128x64x8tr2q, two consumer warpgroups of 64 keys sharing dS on
# their barrier, dQ's part staged in LDS and added by one bulk reduce-add a step from a consumer's thread 0), against the defaults
# (64x64x4x2tr2 both, causal 128x64x8tr2 and 64x64x4x2tr2) and the accumulation without the ring (128x64x8q), on the H100/H200, fp16,
# D=128. First its GPU test (float64, GQA, tails, causal; TinyJit within rounding of eager), then bench.py MODE=bwd VERIFY=1, one
# process a run, CNT=20, no peers. ~4 minutes; carry [".whl"]. Log: ab.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-29_ring_dq/dq.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "dq_accumulation_on_hopper and tr2q" 2>&1 | tail -3
run() {  # B H N D causal dkdv,dq
  echo "== $6 B=$1 H=$2 N=$3 D=$4 causal=$5"
  CNT=20 VERIFY=1 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd BWD_CONFIG=$6 timeout 90 python3 bench.py < /dev/null > $OUT/run.txt 2>&1; rc=$?
  grep -E "^fa_uop|verify|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
run 1 16 16384 128 0 64x64x4x2tr2,64x64x4x2tr2; run 1 16 16384 128 0 128x64x8tr2q,64x64x4x3; run 1 16 16384 128 0 128x64x8q,64x64x4x3
run 1 16 16384 128 1 128x64x8tr2,64x64x4x2tr2; run 1 16 16384 128 1 128x64x8tr2q,64x64x4x3
run 4 16 4096 128 0 64x64x4x2tr2,64x64x4x2tr2; run 4 16 4096 128 0 128x64x8tr2q,64x64x4x3
} 2>&1 | tee $OUT/ab.log
