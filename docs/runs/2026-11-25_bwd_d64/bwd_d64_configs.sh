# On an H100: the Hopper backward's configs at D=64 (dK/dV, dQ by BWD_CONFIG), the same tree, variants one after the other on the
# sweep's D=64 shapes, FA2 and cuDNN beside the default; each variant first verified on a small causal shape with tails. One line
# each on stdout and in $OUT/summary.txt, the logs in /tmp
source scripts/device_setup.sh
export FA_UOP_TUNE=0
r() { local n=$1; shift; (env "$@" timeout 100 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^(fa_uop|torch)' /tmp/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error\|mismatch' /tmp/$n.log)" | tee -a $OUT/summary.txt; }
V="64x64x4,64x64x4x3 64x64x4x3,64x64x4x3 128x64x8,64x64x4x3 128x64x8,128x64x8 64x64x4,64x128x4"
for c in $V; do r v_$c BWD_CONFIG=$c B=2 H=4 N=1000 D=64 CAUSAL=1 MODE=bwd PEERS= CNT=3 VERIFY=1; done
for s in "1024 16 0" "1024 16 1" "4096 4 1" "16384 1 1"; do
  set -- $s
  for c in $V; do r b_${c}_n$1_c$3 BWD_CONFIG=$c B=$2 H=32 N=$1 D=64 CAUSAL=$3 MODE=bwd CNT=20 VERIFY=0 \
    PEERS=$([ $c = 64x64x4,64x64x4x3 ] && echo torch_flash,torch_cudnn); done
done
