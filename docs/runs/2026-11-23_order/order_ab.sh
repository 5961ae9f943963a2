# A/B on the GPU: the kernels of a base commit (abtmp/base: `mkdir -p abtmp/base && git archive <commit> | tar -x -C abtmp/base`)
# against the working tree, causal and document masks, fwd and bwd, fixed configs; then the working tree again with its peers
source scripts/device_setup.sh
run() { # variant mask peers verify tag
  local d=$PWD; [ $1 = base ] && d=$PWD/abtmp/base
  (cd $d && PYTHONPATH=/tmp/site:$d B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=fwd,bwd CONFIG=64x32x4 PEERS=$3 VERIFY=$4 CNT=20 timeout 200 python3 bench.py) > $OUT/$1_$2_$5.log 2>&1
  echo "$1 $2 $5: $(grep -E '^(fa_uop|torch)' $OUT/$1_$2_$5.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$1_$2_$5.log)"
}
for m in none document; do run base $m "" 0 a; run new $m "" 0 a; done
for m in none document; do run new $m "" 0 b; run base $m "" 0 b; done
run new none torch_flash,torch_cudnn,torch_flex 1 peers
run new document torch_flex 1 peers
