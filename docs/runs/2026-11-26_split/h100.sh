# issue 31 on the H100: the D=256 backward with dK/dV split along the head dim (BwdConfig.split) beside FA2 and cuDNN, the configs
# around it without peers, the D=256 forward's candidate configs (causal N=4096 is under 0.9x cuDNN), the Hopper GPU tests
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 150 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py -k "split or backward" 2>&1 | tail -3
for N in 4096 16384; do for c in 0 1; do
  export B=$((16384 / N)) H=8 N D=256 CAUSAL=$c
  echo "== N=$N causal=$c bwd 64x64x8s2,64x32x4 with peers"; VERIFY=1 MODE=bwd BWD_CONFIG=64x64x8s2,64x32x4 PEERS=torch_flash,torch_cudnn b
  for bc in 64x64x8s2,64x64x4 64x128x8s2,64x32x4; do echo "== bwd $bc"; VERIFY=0 MODE=bwd BWD_CONFIG=$bc PEERS= b | grep "^fa_uop"; done
done; done
export B=4 N=4096 CAUSAL=0; echo "== baseline bwd default N=4096"; VERIFY=0 MODE=bwd PEERS= b | grep "^fa_uop"
elif [ "${PART:-1}" = 2 ]; then
export B=4 H=8 N=4096 D=256
for c in 1 0; do export CAUSAL=$c; echo "== fwd N=4096 causal=$c with peers"; VERIFY=1 MODE=fwd PEERS=torch_flash,torch_cudnn b
  for cf in 128x64x8 128x128x8 64x128x4 64x64x4t 128x64x8t 64x32x4; do echo "== fwd $cf"; VERIFY=0 MODE=fwd CONFIG=$cf PEERS= b | grep "^fa_uop"; done; done
# the sm_80 path (mma.sync, ldmatrix of P and dS from LDS) with a split, on the same GPU
echo "== FA_UOP_HOPPER=0 D=128 bwd 32x32x4s2"; FA_UOP_HOPPER=0 B=2 H=8 N=2048 D=128 CAUSAL=1 VERIFY=1 MODE=bwd BWD_CONFIG=32x32x4s2,64x32x4 PEERS= b
fi
# PART=3: per-kernel times of the D=256 causal backward (DEBUG=2), and the split at D=128 (issue 33's backward shapes)
if [ "${PART:-1}" = 3 ]; then
export B=1 H=8 N=16384 D=256 CAUSAL=1
DEBUG=2 CNT=1 VERIFY=0 MODE=bwd BWD_CONFIG=64x64x8s2,64x32x4 PEERS= timeout 150 python3 bench.py 2>&1 | grep -E "fa_bwd" | tail -8
for c in 0 1; do export B=1 H=16 N=16384 D=128 CAUSAL=$c
  echo "== D=128 N=16384 causal=$c default with peers"; VERIFY=1 MODE=bwd PEERS=torch_flash,torch_cudnn b
  for bc in 64x64x8s2,64x64x4x3 64x128x8s2,64x64x4x3; do echo "== bwd $bc"; VERIFY=0 MODE=bwd BWD_CONFIG=$bc PEERS= b | grep "^fa_uop"; done; done
fi
# PART=4: the Q and dO tiles in two slots (BwdConfig.pipe), at D=256 with the split and at D=128 alone
if [ "${PART:-1}" = 4 ]; then
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py -k "split" 2>&1 | tail -3
for N in 4096 16384; do for c in 0 1; do
  export B=$((16384 / N)) H=8 N D=256 CAUSAL=$c
  echo "== N=$N causal=$c bwd 64x64x8s2p,64x32x4 with peers"; VERIFY=1 MODE=bwd BWD_CONFIG=64x64x8s2p,64x32x4 PEERS=torch_flash,torch_cudnn b
  echo "== bwd 64x64x8s2,64x32x4"; VERIFY=0 MODE=bwd BWD_CONFIG=64x64x8s2,64x32x4 PEERS= b | grep "^fa_uop"
done; done
for c in 0 1; do export B=1 H=16 N=16384 D=128 CAUSAL=$c
  echo "== D=128 N=16384 causal=$c default"; VERIFY=0 MODE=bwd PEERS= b | grep "^fa_uop"
  echo "== bwd 64x64x4p,64x64x4x3"; VERIFY=1 MODE=bwd BWD_CONFIG=64x64x4p,64x64x4x3 PEERS= b | grep -E "^(fa_uop|verify)"; done
fi
# PART=5: the defaults at D=256 (dK/dV 64x64x8s2) beside FA2 and cuDNN, forward and backward; TinyJit on the GPU (D=256 included)
if [ "${PART:-1}" = 5 ]; then
for N in 4096 16384; do for c in 0 1; do
  echo "== N=$N causal=$c"; B=$((16384 / N)) H=8 N=$N D=256 CAUSAL=$c VERIFY=1 MODE=fwd,bwd PEERS=torch_flash,torch_cudnn b
done; done
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py 2>&1 | tail -3
fi
# PART=6: every Hopper test (the forward's wgmma_tile changed: A's rows, B's offset)
if [ "${PART:-1}" = 6 ]; then DEV=CUDA timeout 500 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -3; fi
# PART=7: after the split's rows lost their modulo (fa_uop at a8521d0): the split tests, the D=256 backward beside the peers again
if [ "${PART:-1}" = 7 ]; then
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py -k "split or on_hopper or d256" 2>&1 | tail -2
for N in 4096 16384; do for c in 0 1; do
  echo "== N=$N causal=$c"; B=$((16384 / N)) H=8 N=$N D=256 CAUSAL=$c VERIFY=1 MODE=bwd PEERS=torch_flash,torch_cudnn b
done; done
B=1 H=8 N=16384 D=256 CAUSAL=0 DEBUG=2 CNT=1 VERIFY=0 MODE=bwd PEERS= timeout 150 python3 bench.py 2>&1 | grep -E "\*\*\*.*fa_bwd" | tail -3
fi
# PART=8: fp8 on the H100 (Hopper's fp8 description: mma.sync m16n8k32 e4m3, fragments read element by element, P through LDS),
# beside fa_uop's fp16 (wgmma) at the same shape; FA2 and cuDNN fp16 for scale
if [ "${PART:-1}" = 8 ]; then
export B=1 H=16 N=16384 D=128 CAUSAL=0
echo "== fp16"; VERIFY=1 MODE=fwd PEERS=torch_flash,torch_cudnn b
for dt in fp8e4m3 fp8e5m2; do echo "== $dt"; DTYPE=$dt VERIFY=1 MODE=fwd b; done
echo "== fp8e4m3 D=256 N=4096 causal"; B=4 H=8 N=4096 D=256 CAUSAL=1 DTYPE=fp8e4m3 VERIFY=1 MODE=fwd b
fi
# PART=9: the final tree on the H100: every Hopper test, the TinyJit tests, fp8 through flash_attention at a small shape
if [ "${PART:-1}" = 9 ]; then
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -2
DEV=CUDA timeout 250 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py 2>&1 | tail -2
DTYPE=fp8e4m3 B=2 H=4 HKV=2 N=1000 NK=777 D=128 CAUSAL=1 VERIFY=1 MODE=fwd b
fi
