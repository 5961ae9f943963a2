# issue 31: a ping-pong of three consumer warpgroups (192x128x12tr2p: 192 query rows, turns round the block), fp8 and fp16 at D=128
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA|[A-Za-z]*Error)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "192x128x12tr2p" 2>&1 | grep -E "^E |passed|failed|FAILED" | head -20
export VERIFY=1 MODE=fwd PEERS= D=128 B=1 H=16 N=16384
for c in 0 1; do export CAUSAL=$c
  for cf in 192x128x12tr2p 128x128x8tr2p 192x128x12tr2p 128x128x8tr2p; do echo "== fp8 D=128 N=16384 causal=$c $cf"; DTYPE=fp8e4m3 CONFIG=$cf b; done
  for cf in 192x128x12tr2p 128x128x8tr2p; do echo "== fp16 D=128 N=16384 causal=$c $cf"; CONFIG=$cf b; done
done
fi
# PART=2: where the three-warpgroup kernel's time goes, beside the two-warpgroup one (Nsight Compute: warp states, pipes), fp16 and fp8
if [ "${PART:-1}" = 2 ]; then
export VERIFY=0 MODE=fwd PEERS= D=128 B=1 H=16 N=16384 CAUSAL=0 CNT=1
for dt in half fp8e4m3; do for cf in 192x128x12tr2p 128x128x8tr2p; do echo "== $dt $cf"
  DTYPE=$dt CONFIG=$cf timeout 200 ncu -k regex:fa_fwd -s 1 -c 1 --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section ComputeWorkloadAnalysis python3 bench.py 2>&1 | grep -E "Stall|Warp Cycles|Issued Warp|No Eligible|Active Warps|Eligible Warps|Duration|SM Busy|Pipe|Executed Ipc|Throughput|Registers|Block Size" | head -40
done; done
fi
