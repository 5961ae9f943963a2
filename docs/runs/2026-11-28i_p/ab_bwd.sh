# The backward at configs beside the default (cuDNN beside the default), fp16, bench.py MODE=bwd, verified, one process per run.
# stdin: lines "B H N D CAUSAL CONFIG..." (default: the table's; else a BWD_CONFIG); the rows go to stdout and $OUT/$1.
[[ ":$PYTHONPATH:" == *":/tmp/site:"* ]] || source scripts/device_setup.sh   # once, where the caller has not
export FA_UOP_TUNE=0 OUT=${OUT:-out}; mkdir -p "$OUT"
while read B H N D C CFGS; do
  for c in $CFGS; do
    P=; [ $c = default ] && P=torch_cudnn
    BW=$c; [ $c = default ] && BW=
    echo "== D=$D N=$N causal=$C $c"
    BWD_CONFIG=$BW CNT=20 PEERS=$P VERIFY=1 B=$B H=$H N=$N D=$D CAUSAL=$C MODE=bwd timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop|^torch|verify|Error|error" | cut -c1-160
  done
done | tee $OUT/$1
