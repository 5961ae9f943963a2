# issue 31/33 on the H100: FlashAttention-3's intra-warpgroup overlap (config suffix o: the softmax of S_p under P_{p-1}·V_{p-1}, on a
# producer's ring) beside the same configs without it and the defaults, every row verified against float32
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "warp_specialised_forward_on_hopper" 2>&1 | tail -4
export D=128 B=1 H=16 N=16384
for c in 0 1; do export CAUSAL=$c
  echo "== D=128 N=16384 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 64x64x4tr2 64x64x4tr2o 64x64x4tr1o 64x128x4tr2 64x128x4tr2o 128x64x8tr2o; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done
export D=256 B=4 H=8 N=4096
for c in 0 1; do export CAUSAL=$c
  echo "== D=256 N=4096 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 64x64x4tr2 64x64x4tr2o 128x64x8tr2o; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done
fi
# PART=2: the producer a warpgroup handing its registers to the consumers (setmaxnreg: 24 / up to 240), two consumer warpgroups with
# the overlap; the GPU tests of the warp-specialised forward first
if [ "${PART:-1}" = 2 ]; then
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "warp_specialised_forward_on_hopper" 2>&1 | tail -4
export D=128 B=1 H=16 N=16384
for c in 0 1; do export CAUSAL=$c
  echo "== D=128 N=16384 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 128x64x8tr2o 128x128x8tr2o 128x128x8tr2 128x64x8tr2 64x64x4x2tr2o 64x128x4x2tr1o; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done
export D=256 B=4 H=8 N=4096
for c in 0 1; do export CAUSAL=$c
  echo "== D=256 N=4096 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 128x64x8tr2o 128x64x8tr2 128x128x8tr1o; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done
fi
# PART=3/4/5: the tuner's table with the two-warpgroup ring configs among the candidates, D=128 / 64 / 256 (tune$D/: tuned.py, tune_ms.json)
if [ "${PART:-1}" = 3 ] || [ "${PART:-1}" = 4 ] || [ "${PART:-1}" = 5 ]; then
D=$([ "$PART" = 3 ] && echo 128 || ([ "$PART" = 4 ] && echo 64 || echo 256))
[ "$PART" = 3 ] && timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "warp_specialised_forward_on_hopper" 2>&1 | tail -2
DS=$D timeout 560 python3 scripts/tune_table.py "${OUT:-out}/tune$D" 2>&1 | grep -vE "^\s*$" | tail -30
fi
# PART=6: fp8 by bulk copies (K and Vᵀ in 128-byte boxes) from the producer warpgroup's ring, beside the fixed default (64x128x4 by
# cp.async), fp16's default and the Triton tutorial's fp8; the GPU tests of fp8 and the warp-specialised forward first
if [ "${PART:-1}" = 6 ]; then
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_fp8.py tests/test_hopper.py -k "fp8 or warp_specialised_forward_on_hopper" 2>&1 | tail -3
export D=128 B=1 H=16 N=16384
for c in 0 1; do export CAUSAL=$c
  echo "== fp8e4m3 D=128 N=16384 causal=$c default, Triton fp8"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS=triton_fp8 b
  echo "== fp16 default"; VERIFY=1 MODE=fwd PEERS= b
  for cf in 128x128x8tr2 128x128x8tr1 64x128x4x2tr2 64x128x4tr2; do echo "== fp8 $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; done
done
export D=256 B=4 H=8 N=4096 CAUSAL=0
echo "== fp8e4m3 D=256 N=4096 default"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b
for cf in 128x128x8tr1 128x128x8tr2; do echo "== fp8 $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; done
fi
# PART=7: fp8 at shorter sequences, the fixed default (64x128x4) beside the ring configs
if [ "${PART:-1}" = 7 ]; then
for shape in "B=16 N=1024" "B=4 N=4096"; do for c in 0 1; do export $shape H=16 D=128 CAUSAL=$c
  for cf in 64x128x4 128x128x8tr2 64x128x4x2tr2; do echo "== fp8 $shape causal=$c $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; done
done; done
fi
