# The dQ accumulation by bulk reduce-adds (Hopper) against the default backward; as dq_ab.sh (its atomics: dq_ab_atomics.log)
# fp16, bench.py MODE=bwd, verified against the reference, one process per run; cuDNN beside the default.
source scripts/device_setup.sh
export FA_UOP_TUNE=0 OUT=${OUT:-out}; mkdir -p "$OUT"
while read B H N D C CFGS; do
  for c in $CFGS; do
    P=; [ $c = default ] && P=torch_cudnn
    BW=$c; [ $c = default ] && BW=
    echo "== D=$D N=$N causal=$C $c"
    BWD_CONFIG=$BW CNT=20 PEERS=$P VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=$C MODE=bwd timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop|^torch|verify|Error|error" | cut -c1-160
  done
done <<'SHAPES' | tee $OUT/dq_bulk.log
1 16 16384 128 0 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
1 16 16384 128 1 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
16 16 1024 128 0 default 64x32x4q,64x64x4x3
1 32 16384 64 0 default 64x64x4q,64x64x4x3
SHAPES
