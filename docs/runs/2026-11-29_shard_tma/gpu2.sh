# Hopper's bulk copies (TMA) on sharded calls (shard_tma.patch): each device makes tensor maps of its own shards (shard.own, 32 uint64 a
# device), so a batch- or head-sharded call takes the same kernels as one device (the forward's table configs, the backward's rings)
# where it took cp.async and no ring. Needs two H100s or H200s of one host (kind nvidia-h200-x2); carry [".whl"]. ~8 minutes.
# First the patch's GPU test (o, lse and the gradients on two GPUs bitwise equal to one GPU's, batch and heads, causal and not, GQA with
# tails, TinyJit replays too), then bench VERIFY sharded, then the tree (copied to /tmp/base: cp.async when sharded) against the patch,
# alternating twice, SHARD=heads and batch, fwd and bwd, D=128 N=16384 (bench times a sharded call by wall clock, every device
# synchronized). Log: gpu2.log. Prediction in docs/journal.md (2026-11-29, thirty-sixth session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop bench.py scripts /tmp/base/
P=docs/runs/2026-11-29_shard_tma/shard_tma.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
nvidia-smi -L
DEV=CUDA timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_shard.py 2>&1 | tail -3
for s in batch heads; do for c in 0 1; do
  (SHARD=$s CNT=3 VERIFY=1 B=2 H=16 HKV=8 N=1000 D=128 CAUSAL=$c MODE=fwd,bwd timeout 120 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  echo "verify SHARD=$s causal=$c: rc=$? $(grep -c ': ok' $OUT/run.txt) ok, $(grep -ci 'fail\|error' $OUT/run.txt) failed $(grep -o 'config [0-9a-zA-Z]*' $OUT/run.txt | head -1)"
done; done
run() {  # tree shard mode causal
  (cd $([ $1 = new ] && echo . || echo /tmp/base) && SHARD=$2 CNT=10 VERIFY=0 B=2 H=16 N=16384 D=128 CAUSAL=$4 MODE=$3 timeout 120 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 SHARD=$2 $3 causal=$4: $(grep -E '^fa_uop' $OUT/run.txt | cut -c1-60 | tr '\n' ' ')"; [ $rc = 0 ] || echo "rc=$rc"
}
for s in "heads fwd 0" "heads bwd 0" "heads bwd 1" "batch fwd 0"; do run base $s; run new $s; run base $s; run new $s; done
} 2>&1 | tee $OUT/gpu2.log
