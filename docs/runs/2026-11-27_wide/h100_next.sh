# For the next session (not run: no device time left). Where the fp8 224-key kernel's consumers stall, by SASS line (Nsight Compute's
# source counters), beside fp16's 128x192x8tr2p, whose ping-pong works: to test the eighteenth session's reading (docs/journal.md) that
# fp8's softmax is latency-bound in its own chains, not turn-bound. Prediction: consumers' samples mostly on MUFU/FMNMX/FFMA/FADD, under
# 10% on BAR.SYNC (the turn) and WARPGROUP.DEPBAR for fp8; fp16 more on DEPBAR. Summarise with the per-opcode split of the journal.
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0 VERIFY=0 CNT=1 MODE=fwd PEERS= D=128 B=1 H=16 N=16384 CAUSAL=0
for run in "fp8e4m3 128x224x8tr2p" "half 128x192x8tr2p"; do set -- $run
  DTYPE=$1 CONFIG=$2 timeout 300 ncu -k regex:fa_fwd -s 1 -c 1 --section WarpStateStats --section SourceCounters --section SchedulerStats \
    -o $OUT/prof_$1 python3 bench.py > /dev/null 2>&1
  ncu -i $OUT/prof_$1.ncu-rep --page source --csv --print-source sass > $OUT/src_$1.csv 2>&1; wc -c $OUT/src_$1.csv
  ncu -i $OUT/prof_$1.ncu-rep --page details 2>&1 | grep -E "Stall|Warp Cycles|Eligible|Issued|Duration" | head -20
done
