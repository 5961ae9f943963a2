# ab3.sh's A/B over D=128 only, where the ring won: N=4096 and the dQ ring alone at causal shapes. Log: ab4.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0 PEERS=; mkdir -p "$OUT"
P=docs/runs/2026-11-28n_bwd_ring/ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }
run() {  # B H N D causal dkdv,dq
  echo "== $6 B=$1 H=$2 N=$3 D=$4 causal=$5"
  CNT=20 B=$1 H=$2 N=$3 D=$4 CAUSAL=$5 MODE=bwd BWD_CONFIG=$6 timeout 45 python3 bench.py < /dev/null > $OUT/run.txt 2>&1; rc=$?
  grep -E "^fa_uop|Error|error" $OUT/run.txt | cut -c1-160; [ $rc = 0 ] || echo "rc=$rc"
}
while read B H N D C CFGS; do for c in ${CFGS//;/ }; do run $B $H $N $D $C $c; done; done 2>&1 <<'SHAPES' | tee $OUT/ab4.log
4 16 4096 128 0 64x64x4,64x64x4x3;64x64x4x2tr2,64x64x4x2tr2
4 16 4096 128 1 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x2tr2
SHAPES
