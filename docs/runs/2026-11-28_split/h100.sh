# on the H100 (carry .whl; .old holds 87ba203's fa_uop and bench.py): the kernels this session changed beside the ones before them
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for tree in .old .; do
  for D in 128 256; do
    echo "== tree=$tree fp8e4m3 fwd D=$D"
    (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=$((2048 / D)) N=4096 D=$D CAUSAL=0 DTYPE=fp8e4m3 MODE=fwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -2)
  done
  for D in 176 144; do
    echo "== tree=$tree sm_80 tiles (FA_UOP_HOPPER=0) bwd D=$D"
    (cd $tree && FA_UOP_HOPPER=0 PYTHONPATH=/tmp/site:$PWD B=4 H=12 N=4096 D=$D CAUSAL=1 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -2)
  done
done
echo "== TinyJit, sm_80 tiles"; FA_UOP_HOPPER=0 D=176 python3 docs/runs/2026-11-28_split/jit_split.py 2>&1 | tail -4
