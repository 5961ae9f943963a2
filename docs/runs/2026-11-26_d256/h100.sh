# head dim 256 on the H100 beside FA2 and cuDNN (issue 31's shapes: B·N = 16k, H = 8, causal and not), verified against the float32
# reference; then the Hopper GPU tests' D=256 kernels' registers (nvcc, sm_90a)
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
for N in 4096 16384; do for c in 0 1; do
  VERIFY=1 B=$((16384 / N)) H=8 N=$N D=256 CAUSAL=$c MODE=fwd,bwd PEERS=torch_flash,torch_cudnn timeout 240 python3 bench.py 2>&1 | grep -vE "^\s*$" | tail -8
done; done
