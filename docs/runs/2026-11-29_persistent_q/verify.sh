# q.patch landed with the fix for one tile a block (the consumers' coordinates from a register read after the producer's exit): the
# persistent forward's GPU tests (float64, GQA, tails, fewer tiles than SMs, TinyJit replays equal to eager), then N=1024 D=128 fp16
# non-causal beside the table's 128x128x8tr2p, one process a run, CNT=20, no peers (~2.5 minutes; carry [".whl"]). Log: verify.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
{
DEV=CUDA timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k persistent_forward_on_hopper 2>&1 | tail -4
for c in 128x128x8tr2p 128x128x8tr2pP 128x128x8tr2p 128x128x8tr2pP; do
  CNT=20 VERIFY=$([ $c = 128x128x8tr2pP ] && echo 1 || echo 0) B=16 H=16 N=1024 D=128 CAUSAL=0 MODE=fwd CONFIG=$c timeout 40 python3 bench.py < /dev/null 2>&1 | grep -E "^fa_uop|verify" | cut -c1-120
done
} 2>&1 | tee $OUT/verify.log
