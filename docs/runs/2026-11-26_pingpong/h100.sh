# issue 31/33 on the H100: FlashAttention-3's ping-pong of two consumer warpgroups (config suffix p: their products in turns on named
# barriers) beside the same configs without it, the defaults and cuDNN, every row verified against float32
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "warp_specialised_forward_on_hopper and p-" 2>&1 | tail -3
export D=128 B=1 H=16 N=16384
for c in 0 1; do export CAUSAL=$c
  echo "== D=128 N=16384 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 128x128x8tr2p 128x64x8tr2p; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
  for cf in 128x128x8tr2 128x128x8tr2p; do echo "== fp8 $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; done
  echo "== fp8 default"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b
done
fi
if [ "${PART:-1}" = 2 ]; then
export D=256 B=4 H=8 N=4096
for c in 0 1; do export CAUSAL=$c
  echo "== D=256 N=4096 causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in 128x128x8tr1p 128x64x8tr2p 128x128x8tr2p 64x64x4x2tr1; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done
fi
# PART=3: the ping-pong with each turn's products issued together (P·V_{p-1} left in flight into the next step, S_p behind it, the turn
# handed over before waiting for them: FlashAttention-3's order), beside the defaults
if [ "${PART:-1}" = 3 ]; then
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "warp_specialised_forward_on_hopper and p-" 2>&1 | tail -3
for shape in "D=128 B=1 H=16 N=16384" "D=256 B=4 H=8 N=4096"; do for c in 0 1; do export $shape CAUSAL=$c
  echo "== $shape causal=$c default"; VERIFY=1 MODE=fwd PEERS= b
  cf=$([ "$D" = 128 ] && echo 128x128x8tr2p || echo 128x128x8tr1p); echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b
  if [ "$D" = 128 ]; then echo "== fp8 default"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; echo "== fp8 $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; fi
done; done
fi
# PART=4: the ping-pong at D=256 on two slots (128x64x8tr2p), at D=128 N=4096, and fp8 on 256-key tiles
if [ "${PART:-1}" = 4 ]; then
for shape in "D=256 B=4 H=8 N=4096" "D=256 B=1 H=8 N=16384" "D=128 B=4 H=16 N=4096"; do for c in 0 1; do export $shape CAUSAL=$c
  echo "== $shape causal=$c default, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_cudnn b
  for cf in $([ "$D" = 128 ] && echo 128x128x8tr2p || echo "128x64x8tr2p 128x64x8tr2"); do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done; done
export D=128 B=1 H=16 N=16384 CAUSAL=0
for cf in 128x256x8tr2p 128x256x8tr1p; do echo "== fp8 $cf"; CONFIG=$cf DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b; done
fi
# PART=5/6: the tuner with the ping-pong configs (128x128x8tr2p, 128x64x8tr2p) among the candidates, D=256 / 128 (tune$D/)
if [ "${PART:-1}" = 5 ] || [ "${PART:-1}" = 6 ]; then
D=$([ "$PART" = 5 ] && echo 256 || echo 128)
DS=$D timeout 580 python3 scripts/tune_table.py "${OUT:-out}/tune$D" 2>&1 | grep -vE "^\s*$" | tail -30
fi
# PART=7: the tuner at D=64 with the ping-pong configs among the candidates (tune64/)
if [ "${PART:-1}" = 7 ]; then DS=64 timeout 580 python3 scripts/tune_table.py "${OUT:-out}/tune64" 2>&1 | grep -vE "^\s*$" | tail -30; fi
