# ab.sh ran past the call's 600 s (verify costs ~30 s a run at N=16384): its log ab.log stops after 11 of 16 runs. This call: the ring's
# GPU tests (gpu_tests.sh), then the rest of the A/B without VERIFY (every ring config verified in ab.log or the tests), CNT=20. Log: ab2.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
bash docs/runs/2026-11-28n_bwd_ring/gpu_tests.sh
run() {  # B H N D causal dkdv,dq
  echo "== $6 B=$1 H=$2 N=$3 D=$4 causal=$5"
  CNT=20 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd BWD_CONFIG=$6 timeout 60 python3 bench.py < /dev/null > $OUT/run.txt 2>&1; rc=$?
  grep -E "^fa_uop|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
while read B H N D C CFGS; do for c in ${CFGS//;/ }; do run $B $H $N $D $C $c; done; done 2>&1 <<'SHAPES' | tee $OUT/ab2.log
1 32 16384 64 0 64x64x4x3,64x64x4x3;64x64x4x3,64x64x4x2tr2;64x64x4x2tr2,64x64x4x3;64x64x4x2tr2,64x64x4x2tr2
1 16 16384 128 1 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x3;128x64x8tr2,64x64x4x2tr2
4 32 4096 64 1 64x64x4x3,64x64x4x3;128x64x8tr2,64x64x4x3;128x64x8tr2,64x64x4x2tr2;64x64x4x2tr2,64x64x4x2tr2
16 16 1024 128 0 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x2tr2;64x64x4x2tr2,64x64x4x2tr2;64x64x4,64x64x4x2tr2
16 32 1024 64 1 64x64x4x3,64x64x4x3;128x64x8tr2,64x64x4x3;64x64x4x3,64x64x4x2tr2
SHAPES
