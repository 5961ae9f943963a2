# The persistent forward's first GPU run (not run yet: this session's device time was spent). From the repository root, on an H100/H200,
# one call, about 4 minutes: its GPU tests (against float64, fewer tiles than SMs and about 4 a block, TinyJit against eager), then each
# non-causal sweep shape at the table's config beside the persistent one, verified (bench.py, CONFIG, one process each).
source scripts/device_setup.sh
export FA_UOP_TUNE=0 OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=CUDA timeout 240 python3 -m pytest -q -x -p no:cacheprovider -m gpu tests/test_hopper.py -k persistent > $OUT/test.log 2>&1; tail -3 $OUT/test.log
while read B H N D A P; do
  for c in $A $P; do
    CONFIG=$c CNT=20 PEERS= VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=0 MODE=fwd timeout 60 python3 bench.py 2>&1 | grep -E "^fa_uop|verify|Error" | cut -c1-150
  done
done <<'SHAPES' | tee $OUT/ab.log
16 16 1024 128 128x128x8tr2p 128x128x8tr2pP
4 16 4096 128 128x128x8tr2p 128x128x8tr2pP
1 16 16384 128 128x128x8tr2p 128x128x8tr2pP
16 32 1024 64 128x224x8tr2p 128x224x8tr2pP
4 32 4096 64 128x224x8tr2p 128x224x8tr2pP
1 32 16384 64 128x224x8tr2p 128x224x8tr2pP
SHAPES
