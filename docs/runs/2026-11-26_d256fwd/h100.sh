# issue 31 on the H100: head dim 256, the forward's configs (the table has no D=256 class: 64x64x4 is the default) and the backward's
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
export D=256
for shape in "B=4 N=4096" "B=1 N=16384"; do for c in 0 1; do
  export $shape H=8 CAUSAL=$c
  echo "== $shape causal=$c default, FA2, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_flash,torch_cudnn b
  for cf in 128x64x8 128x32x8 64x32x4 64x64x4t 128x64x8t 64x64x4tr2 128x128x8; do echo "== $cf"; CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
done; done
fi
if [ "${PART:-1}" = 2 ]; then
export D=256 B=1 N=16384 H=8 CAUSAL=1
echo "== bwd default, FA2, cuDNN"; VERIFY=1 MODE=bwd PEERS=torch_flash,torch_cudnn b
for bc in 64x64x8s2,64x64x4 64x32x8s2,64x32x4 64x64x8s2,64x64x4x2 64x64x8s2,128x32x8; do echo "== bwd $bc"; BWD_CONFIG=$bc VERIFY=1 MODE=bwd PEERS= b; done
fi
# PART=3: the tuner's table at D=256 (its 6 shapes, B·N = 16k, H = 8), every candidate timed (128x64x8t now among them)
if [ "${PART:-1}" = 3 ]; then
DS=256 timeout 500 python3 scripts/tune_table.py "${OUT:-out}/tune256" 2>&1 | grep -vE "^\s*$" | tail -30
fi
# PART=4: the table's D=256 picks as defaults beside FA2 and cuDNN; fp8 off the table at N=1024; the GPU tests
if [ "${PART:-1}" = 4 ]; then
export D=256
for shape in "B=4 N=4096" "B=1 N=16384"; do for c in 0 1; do
  export $shape H=8 CAUSAL=$c; echo "== $shape causal=$c default, FA2, cuDNN"; VERIFY=1 MODE=fwd PEERS=torch_flash,torch_cudnn b
done; done
echo "== fp8e4m3 D=128 N=1024 non-causal default"; B=16 H=16 N=1024 D=128 CAUSAL=0 DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b
DEV=CUDA timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py tests/test_jit.py 2>&1 | tail -4
fi
# PART=5: where the forward's time goes, by Nsight Compute (if the machine lets it read the counters): fp8 D=128, fp16 D=128, fp16 D=256
if [ "${PART:-1}" = 5 ]; then
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: $NCU"
p() { timeout 200 $NCU --target-processes all -k regex:fa_fwd --launch-skip 3 -c 1 --section SpeedOfLight --section WarpStateStats \
        --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats python3 bench.py 2>&1 | grep -vE "^(==PROF==|\s*$)" | tail -90; }
echo "== fp8e4m3 D=128 N=16384 64x128x4"; B=1 H=16 N=16384 D=128 CAUSAL=0 DTYPE=fp8e4m3 CONFIG=64x128x4 CNT=2 VERIFY=0 MODE=fwd PEERS= p
echo "== fp16 D=128 N=16384 64x64x4t"; B=1 H=16 N=16384 D=128 CAUSAL=0 CONFIG=64x64x4t CNT=2 VERIFY=0 MODE=fwd PEERS= p
echo "== fp16 D=256 N=4096 128x128x8t"; B=4 H=8 N=4096 D=256 CAUSAL=0 CONFIG=128x128x8t CNT=2 VERIFY=0 MODE=fwd PEERS= p
fi
# PART=6: fp8 with the scale in a register (this commit) beside the commit before (its fa_uop/ and bench.py unpacked in ./before, not
# committed: python puts the script's directory first on the path), fp16 and the Triton tutorial's fp8 in the same run
if [ "${PART:-1}" = 6 ]; then
bb() { timeout 120 python3 before/bench.py 2>&1 | grep -E "^(fa_uop|verify|CUDA)" | sed 's/ GPU / /'; }
export B=1 H=16 N=16384 D=128
for c in 0 1; do export CAUSAL=$c
  echo "== fp8e4m3 causal=$c before"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= bb
  echo "== fp8e4m3 causal=$c now, Triton fp8"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS=triton_fp8 b
  echo "== fp16 causal=$c now"; VERIFY=1 MODE=fwd PEERS= b
done
echo "== fp8e4m3 D=256 N=4096 before"; B=4 H=8 N=4096 D=256 CAUSAL=0 DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= bb
echo "== fp8e4m3 D=256 N=4096 now"; B=4 H=8 N=4096 D=256 CAUSAL=0 DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= b
fi
# PART=7: fp8 asked for three blocks an SM (64x128x4x3: ptxas holds 168 registers and spills 116 bytes) against two (220 registers)
if [ "${PART:-1}" = 7 ]; then
export B=1 H=16 N=16384 D=128
for c in 0 1; do for cf in 64x128x4 64x128x4x3; do echo "== fp8e4m3 causal=$c $cf"; CAUSAL=$c DTYPE=fp8e4m3 CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done; done
for cf in 64x128x4 64x128x4x3; do echo "== fp8e4m3 D=256 N=4096 $cf"; B=4 H=8 N=4096 D=256 CAUSAL=0 DTYPE=fp8e4m3 CONFIG=$cf VERIFY=1 MODE=fwd PEERS= b; done
fi
# PART=8: the fp8 forward's SASS with register life ranges. Here: the kernel's PTX (fa_uop.compile.render + compile_source, 64x128x4,
# D=128, non-causal, at 2ace372) through ptxas -arch=sm_90a -O3 into sass_tmp/fp8.cubin (uncommitted); on the GPU machine:
if [ "${PART:-1}" = 8 ]; then
N=$(command -v nvdisasm || ls /usr/local/cuda/bin/nvdisasm); $N -plr -c sass_tmp/fp8.cubin > "${OUT:-out}/fp8_plr.txt"; $N -c sass_tmp/fp8.cubin > "${OUT:-out}/fp8.sass"
fi
# PART=9: one cp.async commit a wait (this commit) beside the commit before (./before, not committed): fp8 and fp16 forwards by
# cp.async, the fp16 backward; then the GPU tests
if [ "${PART:-1}" = 9 ]; then
bb() { timeout 120 python3 before/bench.py 2>&1 | grep -E "^(fa_uop|verify|CUDA)" | sed 's/ GPU / /'; }
export B=1 H=16 N=16384 D=128
for c in 0 1; do export CAUSAL=$c
  for w in before now; do f=$([ $w = before ] && echo bb || echo b)
    echo "== fp8e4m3 causal=$c $w"; DTYPE=fp8e4m3 VERIFY=1 MODE=fwd PEERS= $f
    echo "== fp16 64x64x4 causal=$c $w"; CONFIG=64x64x4 VERIFY=1 MODE=fwd PEERS= $f
    echo "== fp16 bwd causal=$c $w"; VERIFY=1 MODE=bwd PEERS= $f
  done
done
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py tests/test_jit.py 2>&1 | tail -3
fi
# PART=10: PART=9's backward non-causal again, before and now alternating, twice each (its -2.7% against run-to-run noise)
if [ "${PART:-1}" = 10 ]; then
bb() { timeout 120 python3 before/bench.py 2>&1 | grep -E "^(fa_uop|verify|CUDA)" | sed 's/ GPU / /'; }
export B=1 H=16 N=16384 D=128 CAUSAL=0
for i in 1 2; do echo "== fp16 bwd before $i"; VERIFY=0 MODE=bwd PEERS= bb; echo "== fp16 bwd now $i"; VERIFY=0 MODE=bwd PEERS= b; done
fi
