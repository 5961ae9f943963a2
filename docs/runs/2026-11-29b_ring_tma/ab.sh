# The ring's forward with Hopper's bulk copies (each device its own tensor maps: _tensor_maps on sharded tensors), against the tree before
# (cp.async on sharded calls), on two H200s (kind nvidia-h200-x2; carry [".whl"]). ~7 min. Log: ab.log
# First the GPU tests (sharded batch, heads and sequence with the bulk copies against one GPU, TinyJit; the ring's jitted training step),
# then ring.py (docs/runs/2026-11-29_context) at N=131072, the tree, the tree before, the tree again; then an eager forward and training
# step's host time (bench SHARD=seq N=8192: the schedule cache now hit from the third call).
# Prediction (docs/journal.md, 2026-11-29 thirty-ninth session): the ring's forward kernels 70.9 -> 55-60 ms a device, two GPUs 1.40x -> 1.6-1.7x
# one GPU's forward, 1.63x -> 1.70-1.75x forward+backward.
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop docs bench.py /tmp/base/ && (cd /tmp/base && patch -s -R -p1 < $OLDPWD/docs/runs/2026-11-29b_ring_tma/tree.patch) || { echo "no base"; exit 1; }
{
nvidia-smi -L
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_shard.py tests/test_jit.py -k "bulk_copies or sequence" 2>&1 | grep -v Warning | tail -4
tree() { [ $1 = new ] && echo $PWD || echo /tmp/base; }   # (PYTHONPATH names the tree: a script's own folder comes first, not the cwd)
for t in new base new; do echo "== $t"; (cd $(tree $t) && PYTHONPATH=/tmp/site:$(tree $t) DEV=CUDA timeout 150 python3 docs/runs/2026-11-29_context/ring.py 131072 2>&1 | grep -v Warning); done
for t in new base; do echo "== $t eager"; (cd $(tree $t) && PYTHONPATH=/tmp/site:$(tree $t) DEV=CUDA SHARD=seq CAUSAL=1 B=1 H=16 N=8192 D=128 MODE=fwd,bwd CNT=5 PEERS= timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop"); done
} 2>&1 | tee $OUT/ab.log
