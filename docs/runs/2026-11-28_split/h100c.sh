# on the H100 (carry .whl; .old holds 87ba203's fa_uop and bench.py): sm_90a's generic dK/dV at D=208 and 240, 64x32x4 at 87ba203, 64x32x8s2
# split unevenly now
source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for tree in .old .; do
  for D in 208 240; do for C in 1 0; do
    echo "== tree=$tree bwd D=$D causal=$C"
    (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=$((2048 / D + 1)) N=4096 D=$D CAUSAL=$C MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -1)
  done; done
done
