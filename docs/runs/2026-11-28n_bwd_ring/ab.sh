# The backward's ring (ring.patch: a producer warpgroup bulk-copying the loop's tiles into a ring, the consumer warpgroups meeting at
# no block barrier in the loop; dK/dV 128x64x8tr2: Q and dO, two warpgroups of 64 keys, or 64x64x4x2tr2: one, two blocks an SM; dQ 64x64x4x2tr2: K and V)
# against the defaults (64x64x4 or 64x64x4x3, 64x64x4x3), on the device with the patch applied: first one verified run of both rings
# (a hang is cut at 90 s and the rest skipped), then fp16 bench.py VERIFY=1, one process a run, FA_UOP_TUNE=0. Log: ab.log. ~8 minutes.
# Its GPU tests: gpu_tests.sh (a call of their own).
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
P=docs/runs/2026-11-28n_bwd_ring/ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }   # once
run() {  # B H N D causal dkdv,dq timeout
  echo "== $6 B=$1 H=$2 N=$3 D=$4 causal=$5"
  CNT=10 VERIFY=1 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd BWD_CONFIG=$6 timeout $7 python3 bench.py < /dev/null > $OUT/run.txt 2>&1; rc=$?
  grep -E "^fa_uop|verify|Error|error" $OUT/run.txt | cut -c1-160; echo "rc=$rc"; return $rc
}
{ run 2 8 1000 128 1 128x64x8tr2,64x64x4x2tr2 90 || { tail -30 $OUT/run.txt; exit 1; }
while read B H N D C CFGS; do for c in ${CFGS//;/ }; do run $B $H $N $D $C $c 100; done; done <<'SHAPES'
1 16 16384 128 0 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x3;64x64x4,64x64x4x2tr2;128x64x8tr2,64x64x4x2tr2;64x64x4x2tr2,64x64x4x2tr2
1 16 16384 128 1 64x64x4,64x64x4x3;64x64x4,64x64x4x2tr2;128x64x8tr2,64x64x4x2tr2
1 32 16384 64 0 64x64x4x3,64x64x4x3;128x64x8tr2,64x64x4x3;128x64x8tr2,64x64x4x2tr2
16 16 1024 128 0 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x2tr2
4 32 4096 64 1 64x64x4x3,64x64x4x3;128x64x8tr2,64x64x4x2tr2
SHAPES
} 2>&1 | tee $OUT/ab.log
