# issue 9's H100 bars with the kernels of the working tree at their defaults (FA_UOP_TUNE=0): causal, a causal window of 4096, the
# document mask (4 documents) and ALiBi as a score_mod, fwd and bwd, verified, FlexAttention (and FA2 for causal) in the same run, then
# the backward of causal and the document mask between events (mask_variants.py) twice, and each backward kernel's registers and blocks
# an SM as the driver loads them (kernel_regs.py). Logs and summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_TUNE=0
run() { # name peers env...
  local n=$1 p=$2; shift 2
  env B=1 H=16 N=16384 D=128 CAUSAL=1 "$@" MODE=fwd,bwd PEERS=$p VERIFY=1 CNT=20 timeout 200 python3 bench.py > $OUT/$n.log 2>&1
  echo "$n: $(grep -E '^(fa_uop|torch)' $OUT/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$n.log)" | tee -a $OUT/summary.txt
}
run causal torch_flash,torch_flex
run window torch_flex WINDOW=4096,
run document torch_flex MASK=document
run alibi torch_flex MASK=alibi
for r in 1 2; do
  env KERNEL=bwd EVENTS=1 CASES="causal;document" BWD_CONFIGS=64x64x4+64x64x4x3 timeout 150 python3 scripts/mask_variants.py 2>&1 | grep -E " ms|Error" | sed "s/^/events$r /" | tee -a $OUT/summary.txt
done
for c in causal doc; do timeout 100 python3 scripts/kernel_regs.py $c 2>&1 | grep -E "fa_bwd|Error" | sed "s/^/regs $c /" | tee -a $OUT/summary.txt; done
tar czf $OUT/logs.tgz -C $OUT causal.log window.log document.log alibi.log && rm $OUT/*.log
