# on the H100 (carry .whl; .old holds 38b6979's fa_uop and bench.py): the causal dK/dV past D=128 with its trip count and first key
# bounded (sm_90a's wgmma dK/dV at D=256, its generic one at 160 and 192), and sm_80's tiles at D=160 (dK/dV 16x32x2s2 -> 32x32x4s2)
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for tree in .old .; do
  for D in 256 192 160; do
    echo "== tree=$tree bwd D=$D causal"
    (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=8 N=4096 D=$D CAUSAL=1 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done
  for C in 1 0; do
    echo "== tree=$tree bwd D=160 causal=$C sm_80's tiles"
    (cd $tree && FA_UOP_HOPPER=0 PYTHONPATH=/tmp/site:$PWD B=4 H=12 N=4096 D=160 CAUSAL=$C MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done
done
for D in 256 160; do echo "== TinyJit D=$D"; D=$D python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4; done
echo "== TinyJit D=160 sm_80's tiles"; FA_UOP_HOPPER=0 D=160 python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4
