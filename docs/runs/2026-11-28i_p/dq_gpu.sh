# The dQ accumulation's GPU tests (bulk reduce-adds against float64, TinyJit), the TinyJit tests, then D=256 (where 64x64x8s2q
# builds without spill and the default dQ kernel runs mma.sync) against the default backward, verified.
source scripts/device_setup.sh
export FA_UOP_TUNE=0 OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_jit.py -k "dq_accumulation or test_jit" > $OUT/test.log 2>&1; tail -3 $OUT/test.log
while read B H N D C CFGS; do
  for c in $CFGS; do
    P=; [ $c = default ] && P=torch_cudnn
    BW=$c; [ $c = default ] && BW=
    echo "== D=$D N=$N causal=$C $c"
    BWD_CONFIG=$BW CNT=20 PEERS=$P VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=$C MODE=bwd timeout 100 python3 bench.py 2>&1 | grep -E "^fa_uop|^torch|verify|Error|error" | cut -c1-160
  done
done <<'SHAPES' | tee $OUT/dq_d256.log
4 8 4096 256 0 default 64x64x8s2q,64x32x4
1 8 16384 256 1 default 64x64x8s2q,64x32x4
SHAPES
