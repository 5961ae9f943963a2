# on the H100 (carry .whl; .old holds b62e2b3's fa_uop and bench.py): the masks past D=128 in one masked stage (0f4774c) beside two
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for tree in .old .; do
  for M in "MASK=document" "WINDOW=1024,0"; do for MODE in fwd bwd; do
    echo "== tree=$tree $M D=256 causal $MODE"
    (cd $tree && env $M PYTHONPATH=/tmp/site:$PWD B=4 H=8 N=4096 D=256 CAUSAL=1 MODE=$MODE PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done; done
  echo "== tree=$tree MASK=document D=160 causal bwd (sm_80's tiles)"
  (cd $tree && FA_UOP_HOPPER=0 MASK=document PYTHONPATH=/tmp/site:$PWD B=4 H=12 N=4096 D=160 CAUSAL=1 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
done
echo "== TinyJit, document mask and window, D=256"; D=256 python3 docs/runs/2026-11-28b_onestage/jit_mask.py 2>&1 | tail -4
