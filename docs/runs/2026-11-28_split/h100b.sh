# on the H100 (carry .whl; .old holds 87ba203's fa_uop and bench.py): sm_90a's generic dK/dV at D=192 and 224 (64x32x4 at 87ba203, 64x32x8s2
# under sm_80's budget), sm_80's tiles at D=208; then the TinyJit step at D=176 (sm_80's tiles) and 192 (sm_90a's)
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for tree in .old .; do
  for D in 192 224; do for C in 1 0; do
    echo "== tree=$tree bwd D=$D causal=$C"
    (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=$((2048 / D + 1)) N=4096 D=$D CAUSAL=$C MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done; done
  echo "== tree=$tree sm_80 tiles (FA_UOP_HOPPER=0) bwd D=208"
  (cd $tree && FA_UOP_HOPPER=0 PYTHONPATH=/tmp/site:$PWD B=4 H=10 N=4096 D=208 CAUSAL=1 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
done
echo "== TinyJit, sm_80 tiles"; FA_UOP_HOPPER=0 D=176 python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4
echo "== TinyJit, sm_90a"; D=192 python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4
