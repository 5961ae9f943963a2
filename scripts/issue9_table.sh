# issue 9's H100 table with the kernels of the working tree: causal, a causal window of 4096, the document mask (4 documents) and
# ALiBi as a score_mod, fwd and bwd, 64x32x4, verified, one after the other, with FlexAttention (and FA2 for causal) in the same
# run; then causal and the document mask forward at 64x64x4. Logs and summary.txt in $OUT
source scripts/device_setup.sh
run() { # name peers config env...
  local n=$1 p=$2 c=$3; shift 3
  env B=1 H=16 N=16384 D=128 CAUSAL=1 "$@" MODE=${MODE:-fwd,bwd} CONFIG=$c PEERS=$p VERIFY=${VERIFY:-1} CNT=20 timeout 280 python3 bench.py > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^(fa_uop|torch)' $OUT/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log)" | tee -a $OUT/summary.txt
}
run causal torch_flash,torch_flex 64x32x4
run window torch_flex 64x32x4 WINDOW=4096,
run document torch_flex 64x32x4 MASK=document
run alibi torch_flex 64x32x4 MASK=alibi
MODE=fwd VERIFY=0 run causal_64x64 "" 64x64x4
MODE=fwd VERIFY=0 run document_64x64 "" 64x64x4 MASK=document
MODE=fwd VERIFY=0 run causal_again "" 64x32x4
MODE=fwd VERIFY=0 run document_again "" 64x32x4 MASK=document
# the schedule's LATEST at 7/8 and 1 (abtmp/l78, abtmp/l1: copies of the tree with that constant changed), document forward
for v in l78 l1; do (cd abtmp/$v && MODE=fwd VERIFY=0 PYTHONPATH=/tmp/site:$PWD run document_$v "" 64x32x4 MASK=document); done
MODE=fwd VERIFY=0 run document_again2 "" 64x32x4 MASK=document
