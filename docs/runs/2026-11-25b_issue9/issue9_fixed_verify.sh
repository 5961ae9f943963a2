# issue 9's forward ratio (document mask over causal, B=1 H=16 N=16384 D=128) with both at the same config, 64x64x4 and 64x64x4x3 (the
# tuner's earlier picks: causal 64x64x4, the document mask 64x64x4x3), then the hopper_verify.sh cases a timed-out run did not return
# and the GPU tests. The summary on stdout (and summary.txt in $OUT)
source scripts/device_setup.sh
export FA_UOP_TUNE=0
for c in 64x64x4x3 64x64x4; do for m in none document; do
  env B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $m = none ] || echo $m) MODE=fwd CONFIG=$c PEERS= VERIFY=$([ $c = 64x64x4x3 ] && echo 1 || echo 0) CNT=20 \
    timeout 120 python3 bench.py > $OUT/fwd.log 2>&1
  echo "fwd_${m}_$c: $(grep -E '^fa_uop' $OUT/fwd.log | awk '{print $2, $5}') ok=$(grep -c ': ok' $OUT/fwd.log)" | tee -a $OUT/summary.txt
done; done
vb() { # name env...
  local n=$1; shift
  (env CNT=3 PEERS= VERIFY=1 "$@" timeout 120 python3 bench.py) > $OUT/v.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' $OUT/v.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/v.log) bad=$(grep -ci 'fail\|error' $OUT/v.log)" | tee -a $OUT/summary.txt
}
vb tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd,bwd
vb tails128_causal B=1 H=4 N=777 NK=1000 D=128 CAUSAL=1 MODE=fwd,bwd
vb gqa B=2 H=8 HKV=2 N=1024 D=128 CAUSAL=1 MODE=fwd,bwd
vb window B=1 H=8 N=4096 D=128 CAUSAL=1 WINDOW=512,0 MODE=fwd,bwd
vb document B=1 H=8 N=4096 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd
vb padding B=2 H=8 N=2048 D=64 CAUSAL=0 MASK=padding MODE=fwd,bwd
vb softcap B=1 H=8 N=2048 D=128 CAUSAL=1 SOFTCAP=20 MODE=fwd,bwd
DEV=CUDA timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -1 | tee -a $OUT/summary.txt
rm -f $OUT/*.log
