source scripts/device_setup.sh
nvidia-smi --query-gpu=name --format=csv,noheader
for D in 128 64; do
  H=$((2048 / D))
  for tree in .old .; do
    echo "== tree=$tree D=$D"
    (cd $tree && PYTHONPATH=/tmp/site:$PWD B=4 H=$H N=4096 D=$D CAUSAL=1 SOFTCAP=30 MODE=bwd PEERS=tinygrad CNT=30 JSON=1 python3 bench.py 2>&1 | tail -4)
  done
done
