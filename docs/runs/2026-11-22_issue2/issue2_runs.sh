#!/usr/bin/env bash
# The H100 runs of the forward issue: bench.py with VERIFY on each shape, peers in the same process. Output under $OUT (or ./out).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
run() { echo "=== $*" | tee -a "$OUT/issue2.log"; env "$@" JSON=1 python3 bench.py 2>&1 | tee -a "$OUT/issue2.log" | grep -v '^{'; }
for dt in half bfloat16; do
  for c in 0 1; do
    run B=4 H=16 N=4096 D=128 CAUSAL=$c DTYPE=$dt
    run B=4 H=32 N=4096 D=64 CAUSAL=$c DTYPE=$dt
  done
done
run B=4 H=16 N=1000 D=128 CAUSAL=0 DTYPE=half
run B=4 H=16 N=1000 D=128 CAUSAL=1 DTYPE=half
run B=2 H=16 HKV=4 N=1000 NK=1500 D=64 CAUSAL=1 DTYPE=half
grep '^{' "$OUT/issue2.log" > "$OUT/issue2.jsonl"
