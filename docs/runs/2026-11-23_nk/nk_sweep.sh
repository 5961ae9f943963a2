# per-block cost of the forward: full attention, 16384 queries over 512..16384 keys, 64x32x4 (a linear fit of time over keys)
source scripts/device_setup.sh
for nk in 512 1024 2048 4096 8192 16384; do
  env B=1 H=16 N=16384 NK=$nk D=128 CAUSAL=0 MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20 timeout 100 python3 bench.py > $OUT/nk$nk.log 2>&1
  echo "nk=$nk: $(grep -E '^fa_uop' $OUT/nk$nk.log | awk '{print $2, $5}')"
done
