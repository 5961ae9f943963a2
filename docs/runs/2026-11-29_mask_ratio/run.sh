# Issue 33's bar "the masks' ratios to causal kept", at the tree's defaults (FA_UOP_TUNE=0), the shape of the 1f05d10 table on the
# performance page (B=1 H=16 N=16384 D=128, causal): causal, a causal window of 4096, the document mask (4 documents), ALiBi as a
# score_mod, fwd and bwd, VERIFY on, FlexAttention in the same run (FA2 and cuDNN beside causal). The backward's rings take causal
# alone, so the masks' backward ratio to causal is expected below 1f05d10's (0.925 window, 0.914 document). ~5 minutes (FlexAttention
# compiles); carry [".whl"]. Log: summary.txt, and each case's log. Prediction in docs/journal.md (2026-11-29, thirty-sixth session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
run() { # name peers env...
  local n=$1 p=$2; shift 2
  env B=1 H=16 N=16384 D=128 CAUSAL=1 "$@" MODE=fwd,bwd PEERS=$p VERIFY=1 CNT=20 timeout 200 python3 bench.py > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^(fa_uop|torch)' $OUT/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log)" | tee -a $OUT/summary.txt
}
run causal torch_flash,torch_cudnn,torch_flex
run window torch_flex WINDOW=4096,
run document torch_flex MASK=document
run alibi torch_flex MASK=alibi
