# Where the backward's kernels wait (for the next session's first call; written when this session's device time was spent): Nsight
# Compute's warp-state statistics and per-instruction stall samples of the dK/dV kernel, the default (64x64x4 at D=128) beside the dQ
# accumulation whole (64x64x4q) and with its stage stores and bulk adds left out (DQ_KNOB=nostage: docs/runs/2026-11-28j_dqcost,
# knobs2.patch, applied here), and the default's dQ kernel; B=1 H=16 N=16384 D=128 non-causal fp16 (bench.py, one profiled launch
# each). Out: details_*.txt (the sections), src_*.csv.gz (SASS with its stall samples), ncu_*.txt (the run's output). ~5 minutes.
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
command -v ncu || { echo "no ncu on this machine"; exit 1; }
git apply docs/runs/2026-11-28j_dqcost/knobs2.patch || patch -p1 < docs/runs/2026-11-28j_dqcost/knobs2.patch
prof() {  # name kernel-regex env...
  n=$1 k=$2; shift 2
  timeout 280 env "$@" CNT=2 VERIFY=0 B=1 H=16 N=16384 D=128 CAUSAL=0 MODE=bwd ncu -k regex:$k -s 1 -c 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section SourceCounters --section Occupancy -o $OUT/rep_$n python3 bench.py > $OUT/ncu_$n.txt 2>&1
  ncu -i $OUT/rep_$n.ncu-rep --page details > $OUT/details_$n.txt 2>&1
  ncu -i $OUT/rep_$n.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/src_$n.csv.gz
  rm -f $OUT/rep_$n.ncu-rep; echo "== $n"; grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|Tensor|Stall" $OUT/details_$n.txt | head -12
}
prof dkdv fa_bwd_dkdv_d128
prof dq fa_bwd_dq_d128
prof q_full fa_bwd_dkdvq BWD_CONFIG=64x64x4q,64x64x4x3
prof q_nostage fa_bwd_dkdvq DQ_KNOB=nostage BWD_CONFIG=64x64x4q,64x64x4x3
