# issue 31, eighteenth session: today's defaults (fp8's 224 keys a step at D=128 from 4096 keys; the 16-bit table re-tuned at D=64 and
# D=128 with 192 and 224 keys a step among the candidates) beside the peers, one H100, every row verified
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0 VERIFY=1 MODE=fwd
b() { timeout 150 python3 bench.py 2>&1 | grep -E "^(fa_uop|triton|torch|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
for c in 0 1; do
  echo "== fp8 D=128 N=16384 causal=$c"; N=16384 B=1 H=16 D=128 CAUSAL=$c DTYPE=fp8e4m3 PEERS=triton_fp8 b
  for n in 16384 4096; do echo "== fp16 D=128 N=$n causal=$c"; N=$n B=$((16384/n)) H=16 D=128 CAUSAL=$c PEERS=torch_flash,torch_cudnn b; done
  echo "== fp16 D=64 N=16384 causal=$c"; N=16384 B=1 H=32 D=64 CAUSAL=$c PEERS=torch_flash,torch_cudnn b
done
