# issue 9's forward bars at the tuner's choice (FA_UOP_TUNE=1, its timings in tune.json): causal and the document mask, B=1 H=16
# N=16384 D=128, verified, FA2 and FlexAttention beside; then scripts/hopper_verify.sh's cases and the GPU tests. summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_CACHE=$OUT/tune.json
for m in none document; do
  env FA_UOP_TUNE=1 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd PEERS=torch_flash,torch_flex VERIFY=1 CNT=20 \
    timeout 200 python3 bench.py > $OUT/tuned_$m.log 2>&1
  echo "tuned_$m: $(grep -E '^(fa_uop|torch)' $OUT/tuned_$m.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/tuned_$m.log) $(grep -o 'config [0-9x]*' $OUT/tuned_$m.log | head -1)" | tee -a $OUT/summary.txt
done
tar czf $OUT/tuned.tgz -C $OUT tuned_none.log tuned_document.log && rm $OUT/tuned_*.log
bash scripts/hopper_verify.sh
tar czf $OUT/verify.tgz -C $OUT $(cd $OUT && ls *.log) && rm $OUT/*.log
