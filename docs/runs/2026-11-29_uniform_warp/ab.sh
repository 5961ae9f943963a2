# The warp index read through a lane-0 broadcast (uniform.patch: UniformWarp, Hopper's renderers), so the wgmma descriptors stay in
# uniform registers (no R2UR before each wgmma), against the tree before it (copied to /tmp/base), on the H100/H200, fp16, the
# defaults. First the GPU tests the patch touches (the backward's rings, the persistent forward, TinyJit's), then bench.py one process
# a run, base and new alternating twice, CNT=20, no peers, VERIFY on new's first run. ~7 minutes; carry [".whl"]. Log: ab.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r fa_uop bench.py scripts /tmp/base/
P=docs/runs/2026-11-29_uniform_warp/uniform.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
{
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "ring_on_hopper or persistent_forward_on_hopper" 2>&1 | tail -2
DEV=CUDA timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py -k "not decode" 2>&1 | tail -1
run() {  # tree mode B H N D causal
  (cd $([ $1 = new ] && echo . || echo /tmp/base) && CNT=20 VERIFY=$8 B=$3 H=$4 N=$5 D=$6 CAUSAL=$7 MODE=$2 timeout 90 python3 bench.py < /dev/null) > $OUT/run.txt 2>&1
  rc=$?; echo "$1 $2 B=$3 H=$4 N=$5 D=$6 causal=$7: $(grep -E '^fa_uop' $OUT/run.txt | awk '{print $2, $6}' | tr '\n' ' ') $(grep -c ': ok' $OUT/run.txt) ok $(grep -o 'config [0-9a-zA-Z]*' $OUT/run.txt | head -1)"; [ $rc = 0 ] || echo "rc=$rc"
}
for s in "fwd 16 16 1024 128 0" "fwd 1 16 16384 128 0" "fwd 1 16 16384 128 1" "fwd 1 32 16384 64 0" "bwd 16 16 1024 128 0" "bwd 1 16 16384 128 0" "bwd 1 16 16384 128 1"; do
  run base $s 0; run new $s 1; run base $s 0; run new $s 0
done
} 2>&1 | tee $OUT/ab.log
