# issue 9's H100 table with the kernels of the working tree: causal, a causal window of 4096, the document mask (4 documents) and
# ALiBi as a score_mod, fwd and bwd, each forward at the tuner's choice (its timings in tune.json), verified, one after the other,
# with FlexAttention (and FA2 for causal) in the same run; then causal and the document mask forward again (the tuner's choice), and
# B=8 N=2048 causal beside FA2. Logs and summary.txt in $OUT. TUNE_FROM: a tune.json of an earlier run to start from (its
# timings are kept; what it lacks is timed)
source scripts/device_setup.sh
export FA_UOP_CACHE=$OUT/tune.json
[ -n "$TUNE_FROM" ] && cp $TUNE_FROM $FA_UOP_CACHE
run() { # name peers config env...
  local n=$1 p=$2 c=$3; shift 3
  env B=1 H=16 N=16384 D=128 CAUSAL=1 "$@" MODE=${MODE:-fwd,bwd} CONFIG=$c PEERS=$p VERIFY=${VERIFY:-1} CNT=20 timeout 280 python3 bench.py > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^(fa_uop|torch)' $OUT/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log) $(grep -o 'config [0-9x]*' $OUT/$n.log | head -1)" | tee -a $OUT/summary.txt
}
run causal torch_flash,torch_flex ""
run window torch_flex "" WINDOW=4096,
run document torch_flex "" MASK=document
run alibi torch_flex "" MASK=alibi
MODE=fwd VERIFY=0 run causal_again "" ""
MODE=fwd VERIFY=0 run document_again "" "" MASK=document
VERIFY=0 run train torch_flash "" B=8 N=2048
