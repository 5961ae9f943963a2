# on the H100 (carry .whl; .old holds 38b6979's fa_uop and bench.py) at cfe9f0d: sm_80's tiles at D=160 (dK/dV 32x32x4s2, the causal
# stage's bounds not taken with the async copy), sm_90a's causal D=256 (renders as 38b6979: md5)
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for rep in 1 2; do for tree in .old .; do
  for C in 1 0; do
    echo "== rep=$rep tree=$tree bwd D=160 causal=$C sm_80's tiles"
    (cd $tree && FA_UOP_HOPPER=0 PYTHONPATH=/tmp/site:$PWD B=4 H=12 N=4096 D=160 CAUSAL=$C MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done
  echo "== rep=$rep tree=$tree bwd D=256 causal"
  (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=8 N=4096 D=256 CAUSAL=1 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
done; done
echo "== TinyJit D=160 sm_80's tiles"; FA_UOP_HOPPER=0 D=160 python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4
