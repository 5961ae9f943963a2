# A/B on the GPU: the forward with tinygrad's `__launch_bounds__(threads)` against `__launch_bounds__(threads, 3)` (ptxas then fits
# 3 blocks of 128 threads per SM: 168 registers), causal and document masks, 64x32x4, alternating, twice. Logs and summary.txt in $OUT.
source scripts/device_setup.sh
bench() { # variant log env...
  local v=$1 log=$2; shift 2
  local pre="import runpy"
  [ $v = lb3 ] && pre="import runpy; from tinygrad import Device; Device['CUDA'].renderer.kernel_typedef = 'extern \"C\" __global__ void __launch_bounds__({launch_bounds}, 3)'"
  env "$@" timeout 250 python3 -c "$pre; runpy.run_path('bench.py', run_name='__main__')" > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
big() { bench $1 $1_$2_$3 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=${MODE:-fwd} CONFIG=64x32x4 PEERS= VERIFY=$4 CNT=20; }
for m in none document; do big base $m a 0; big lb3 $m a 1; done
for m in none document; do big lb3 $m b 0; big base $m b 0; done
