# p_default.patch (the persistent forward with Q by the producer as the table's D=128 non-causal N=1024 default, not persistent under
# any modification) verified as users run it, then timed beside the table's old pick; on an H100/H200, ~8 minutes, carry [".whl"].
# Logs: verify.log (and tests.tar.gz). Prediction in docs/journal.md (2026-11-29, thirty-fifth session)
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
git apply -R --check docs/runs/2026-11-29_p_default/p_default.patch 2>/dev/null || git apply docs/runs/2026-11-29_p_default/p_default.patch || { echo "patch does not apply"; exit 1; }
L=/tmp/tests; mkdir -p $L
pack() { tar czf $OUT/tests.tar.gz -C /tmp tests; }
vb() { local n=$1; shift; (env CNT=3 PEERS= VERIFY=1 "$@" timeout 100 python3 bench.py) > $L/$n.log 2>&1
  echo "$n: rc=$? $(grep -E '^fa_uop' $L/$n.log | awk '{print $2}' | tr '\n' ' ') ok=$(grep -c ': ok' $L/$n.log) bad=$(grep -ci 'fail\|error' $L/$n.log) $(grep -o 'config [0-9a-zA-Z]*' $L/$n.log | head -1)"; pack; }
{
# the default through bench (fwd and bwd, VERIFY), fp16 and bf16, whole tiles and tails, GQA, fewer tiles than SMs
vb p1024 B=16 H=16 N=1024 D=128 CAUSAL=0 MODE=fwd,bwd
vb p1024_bf16 B=16 H=16 N=1024 D=128 CAUSAL=0 MODE=fwd,bwd DTYPE=bfloat16
vb p1000_gqa B=2 H=8 HKV=2 N=1000 NK=777 D=128 CAUSAL=0 MODE=fwd,bwd
vb p300 B=1 H=4 N=300 D=128 CAUSAL=0 MODE=fwd,bwd
vb p_softcap B=2 H=8 N=1024 D=128 CAUSAL=0 SOFTCAP=30 MODE=fwd,bwd
vb p_fp8 B=2 H=8 N=1000 D=128 CAUSAL=0 MODE=fwd DTYPE=fp8e4m3 CONFIG=128x128x8tr2pP   # explicit: P in 8 bits, never run on a GPU
# first call with an empty cache, TinyJit (capture and replays against eager and float64), a jitted training step through autograd
DEV=CUDA timeout 60 python3 scripts/user_checks.py first 2 16 1024 128 0 2>&1 | tail -2
DEV=CUDA timeout 90 python3 scripts/user_checks.py jit 2 16 1000 128 0 2>&1 | tail -3
DEV=CUDA timeout 90 python3 scripts/user_checks.py jit 2 16 1024 128 0 bfloat16 2>&1 | tail -3
DEV=CUDA timeout 90 python3 scripts/user_checks.py step 2 16 1024 128 0 2>&1 | tail -1
DEV=CUDA timeout 120 python3 scripts/user_checks.py decode 2>&1 | tail -8
DEV=CUDA timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py > $L/jit.log 2>&1; echo "test_jit -m gpu: rc=$? $(tail -1 $L/jit.log)"; pack
# timed: the default (P) beside the table's old pick, one process a run, CNT=20, no peers, fp16 and bf16
for n in 512 1024 1000; do for c in "" 128x128x8tr2p "" 128x128x8tr2p; do
  (CNT=20 VERIFY=0 PEERS= B=$((16384 / n)) H=16 N=$n D=128 CAUSAL=0 MODE=fwd CONFIG=$c timeout 40 python3 bench.py < /dev/null) 2>&1 | grep -E "^fa_uop" | cut -c1-130
done; done
} 2>&1 | tee $OUT/verify.log
