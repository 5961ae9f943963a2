# Where the ring's kernels wait (after ab.sh, where time is left): Nsight Compute's warp-state statistics and per-instruction stall
# samples of dK/dV 128x64x8tr2 and dQ 64x64x4x2tr2 beside the defaults' (64x64x4, 64x64x4x3), B=1 H=16 N=16384 D=128 non-causal fp16,
# one profiled launch each, ring.patch applied. Out: ncu.tar.gz (details_*.txt, src_*.csv: the run tool returns few files, so one
# archive), summary.txt. ~5 minutes. Read with python3 docs/runs/2026-11-28l_bwd_ncu/stalls.py DIR (DIR: the archive unpacked).
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT" /tmp/ncu
command -v ncu || { echo "no ncu on this machine"; exit 1; }
P=docs/runs/2026-11-28n_bwd_ring/ring.patch; git apply -R --check $P 2>/dev/null || git apply $P || { echo "patch does not apply"; exit 1; }   # once
prof() {  # name kernel-regex BWD_CONFIG
  timeout 200 env CNT=2 VERIFY=0 B=1 H=16 N=16384 D=128 CAUSAL=0 MODE=bwd BWD_CONFIG=$3 ncu -k regex:$2 -s 1 -c 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section Occupancy \
    -o /tmp/ncu/rep_$1 python3 bench.py < /dev/null > /tmp/ncu/ncu_$1.txt 2>&1
  ncu -i /tmp/ncu/rep_$1.ncu-rep --page details > /tmp/ncu/details_$1.txt 2>&1
  ncu -i /tmp/ncu/rep_$1.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > /tmp/ncu/src_$1.csv.gz
  rm -f /tmp/ncu/rep_$1.ncu-rep
  { echo "== $1"; grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|excessive" /tmp/ncu/details_$1.txt | head -12; } | tee -a $OUT/summary.txt
}
prof dkdv_ring fa_bwd_dkdv_d128 128x64x8tr2,64x64x4x2tr2
prof dq_ring fa_bwd_dq_d128 128x64x8tr2,64x64x4x2tr2
prof dkdv fa_bwd_dkdv_d128 64x64x4,64x64x4x3
prof dq fa_bwd_dq_d128 64x64x4,64x64x4x3
tar czf $OUT/ncu.tar.gz -C /tmp/ncu .
