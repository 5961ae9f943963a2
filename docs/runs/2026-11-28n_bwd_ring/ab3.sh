# ab2.sh's GPU tests took 500 s and were cut after 3 of 4 passed (log: gpu_tests_cut.log); its A/B ran two runs (ab2.log, peers on).
# This call: the rest of the A/B, no peers, no VERIFY, CNT=20, one process a run. Log: ab3.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-28n_bwd_ring/ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
run() {  # B H N D causal dkdv,dq
  echo "== $6 B=$1 H=$2 N=$3 D=$4 causal=$5"
  CNT=20 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd BWD_CONFIG=$6 timeout 45 python3 bench.py < /dev/null > $OUT/run.txt 2>&1; rc=$?
  grep -E "^fa_uop|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
# the shapes (B H N D causal configs;...) from $SHAPES where given (ab4.sh), its log $LOG
SHAPES=${SHAPES:-"16 16 1024 128 0 64x64x4,64x64x4x3;64x64x4x2tr2,64x64x4x2tr2;128x64x8tr2,64x64x4x2tr2
1 16 16384 128 1 128x64x8tr2,64x64x4x3
4 32 4096 64 1 64x64x4x3,64x64x4x3;128x64x8tr2,64x64x4x3;64x64x4x2tr2,64x64x4x3
1 32 16384 64 0 64x64x4x2tr2,64x64x4x3
16 16 1024 128 1 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x3
16 32 1024 64 0 64x64x4x3,64x64x4x3;64x64x4x2tr2,64x64x4x3"}
while read B H N D C CFGS; do for c in ${CFGS//;/ }; do run $B $H $N $D $C $c; done; done 2>&1 <<< "$SHAPES" | tee $OUT/${LOG:-ab3.log}
