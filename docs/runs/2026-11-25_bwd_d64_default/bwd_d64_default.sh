# On an H100: the D=64 backward's new default (dK/dV in 3 blocks an SM) verified (tails, padding mask, GQA causal), then on the
# sweep's six D=64 shapes against the old default (BWD_CONFIG=64x64x4,64x64x4x3), one after the other, FA2 and cuDNN beside the new
source scripts/device_setup.sh
export FA_UOP_TUNE=0
r() { local n=$1; shift; (env "$@" timeout 100 python3 bench.py) > /tmp/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^(fa_uop|torch)' /tmp/$n.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' /tmp/$n.log) bad=$(grep -ci 'fail\|error\|mismatch' /tmp/$n.log) $(grep -o 'configs* [0-9x, ]*' /tmp/$n.log | head -1)" | tee -a $OUT/summary.txt; }
r v_tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=bwd PEERS= CNT=3 VERIFY=1
r v_padding B=2 H=8 N=2048 D=64 CAUSAL=0 MASK=padding MODE=bwd PEERS= CNT=3 VERIFY=1
r v_gqa_causal B=2 H=8 HKV=2 N=1500 D=64 CAUSAL=1 MODE=bwd PEERS= CNT=3 VERIFY=1
for s in "1024 16 0" "4096 4 0" "16384 1 0" "1024 16 1" "4096 4 1" "16384 1 1"; do
  set -- $s
  r new_n$1_c$3 B=$2 H=32 N=$1 D=64 CAUSAL=$3 MODE=bwd CNT=20 VERIFY=0 PEERS=torch_flash,torch_cudnn
  r old_n$1_c$3 BWD_CONFIG=64x64x4,64x64x4x3 B=$2 H=32 N=$1 D=64 CAUSAL=$3 MODE=bwd CNT=20 VERIFY=0 PEERS=
done
