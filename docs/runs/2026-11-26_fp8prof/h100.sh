# issue 31: where the fp8 forward's time goes (Nsight Compute: pipes, stalls, issue; and its SASS), beside fp16's ping-pong; and the rows
# the last session left ready: fp8 at D=256 through the ping-pong, the causal D=256 forward at N=4096 three times beside cuDNN
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
b() { timeout 120 python3 bench.py 2>&1 | grep -E "^(fa_uop|torch|triton|verify|CUDA)" | sed 's/ GPU / /'; }
if [ "${PART:-1}" = 1 ]; then
M=$(for s in barrier long_scoreboard short_scoreboard math_pipe_throttle wait mio_throttle lg_throttle not_selected selected dispatch_stall no_instruction branch_resolving membar sleeping misc tex_throttle drain imc_miss; do printf "smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio,"; done)
export D=128 B=1 H=16 N=16384 CAUSAL=0 VERIFY=0 CNT=1 MODE=fwd PEERS=
for run in "fp8 64x128x4x2tr2 fp8e4m3" "fp8 128x128x8tr2p fp8e4m3" "fp16 128x128x8tr2p half"; do set -- $run
  echo "== ncu $1 $2"
  CONFIG=$2 DTYPE=$3 timeout 200 ncu -k regex:fa_fwd -s 1 -c 1 --metrics ${M%,},regex:sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__warps_eligible.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,sm__cycles_active.avg,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed python3 bench.py > $OUT/ncu_$1_$2.txt 2>&1
  grep -E "^\s+(sm|smsp|gpu)__" $OUT/ncu_$1_$2.txt | awk '$NF != 0 && $NF != "0"' | awk '{print $1, $(NF-1), $NF}'
done
mkdir -p $OUT/sass; OUT=$OUT/sass python3 docs/runs/2026-11-26_fp8prof/sass.py 64x128x4x2tr2 128x128x8tr2p
for f in $OUT/sass/*.cu; do nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -o ${f%.cu}.cubin $f 2>/dev/null && cuobjdump -sass ${f%.cu}.cubin > ${f%.cu}.sass; rm -f ${f%.cu}.cubin; wc -l ${f%.cu}.sass; done
fi
if [ "${PART:-1}" = 2 ]; then
export VERIFY=1 MODE=fwd
for c in 0 1; do export D=256 B=4 H=8 N=4096 CAUSAL=$c
  for cf in 128x128x8tr1 128x128x8tr2p; do echo "== fp8 D=256 N=4096 causal=$c $cf"; CONFIG=$cf DTYPE=fp8e4m3 PEERS= b; done
done
export CAUSAL=1
for i in 1 2 3; do echo "== D=256 N=4096 causal default, cuDNN ($i)"; PEERS=torch_cudnn b; done
fi
# PART=3: the row max and row sum as trees of halves (tiles.row_reduce) beside the chains before (abtmp/prev: fa_uop/, bench.py and
# scripts/ of da4072e, carried), alternating, every row verified
if [ "${PART:-1}" = 3 ]; then
export VERIFY=1 MODE=fwd PEERS=
for shape in "D=128 B=1 H=16 N=16384" "D=256 B=4 H=8 N=4096"; do for c in 0 1; do export $shape CAUSAL=$c
  cfgs=$([ "$D" = 128 ] && echo "fp8e4m3:64x128x4x2tr2 fp8e4m3:128x128x8tr2p half:128x128x8tr2p" || echo "half:128x64x8tr2p fp8e4m3:128x128x8tr2p")
  for dc in $cfgs; do for v in prev new; do
    d=$PWD; [ $v = prev ] && d=$PWD/abtmp/prev
    echo "== $shape causal=$c ${dc%%:*} ${dc##*:} $v"; (cd $d && DTYPE=${dc%%:*} CONFIG=${dc##*:} b)
  done; done
done; done
fi
# PART=4: a quarter of the unmasked tiles' exponentials by a polynomial on the FMA pipe (tiles.exp2_poly; SM90A's fp8 description,
# exp2_poly=4) beside the trees alone (abtmp/tree), half of them (abtmp/poly2) and fp16 with a quarter (abtmp/poly16); abtmp/prev: da4072e
if [ "${PART:-1}" = 4 ]; then
export VERIFY=1 MODE=fwd PEERS=
bb() { local v=$1 dt=$2 cf=$3; d=$PWD; [ $v != new ] && d=$PWD/abtmp/$v; echo "== D=$D N=$N causal=$CAUSAL $dt $cf $v"; (cd $d && DTYPE=$dt CONFIG=$cf b); }
export D=128 B=1 H=16 N=16384 CAUSAL=0
for v in tree new poly2 tree new poly2; do bb $v fp8e4m3 128x128x8tr2p; done
for v in prev tree new; do bb $v fp8e4m3 64x128x4x2tr2; done
for v in tree poly16; do bb $v half 128x128x8tr2p; done
export CAUSAL=1
for v in tree new poly2; do bb $v fp8e4m3 128x128x8tr2p; done
export D=256 B=4 H=8 N=4096
for v in tree poly16; do bb $v half 128x64x8tr2p; done
export CAUSAL=0
for v in prev tree new; do bb $v fp8e4m3 128x128x8tr2p; done
fi
# PART=5 (the polynomial reverted; trees in the ping-pong only): fp8's default against the ping-pong on every sweep length, and the
# GPU tests of the ping-pong configs
if [ "${PART:-1}" = 5 ]; then
export VERIFY=1 MODE=fwd PEERS= DTYPE=fp8e4m3
for shape in "D=128 B=16 H=16 N=1024" "D=128 B=4 H=16 N=4096" "D=128 B=1 H=16 N=16384" "D=256 B=1 H=8 N=16384"; do for c in 0 1; do export $shape CAUSAL=$c
  for cf in $([ "$D" = 128 ] && echo "64x128x4x2tr2 128x128x8tr2p" || echo "128x128x8tr1 128x128x8tr2p"); do echo "== fp8 $shape causal=$c $cf"; CONFIG=$cf b; done
done; done
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py tests/test_fp8.py -k "p- or p]" 2>&1 | tail -3
fi
# PART=6: the final source (fp8's defaults: the ping-pong at D=256 and past 4096 keys at D=128): the GPU tests, TinyJit (jit_check.py),
# and the defaults beside Triton's fp8 and fa_uop's fp16 (the 1.5x), fp16's ping-pong beside cuDNN
if [ "${PART:-1}" = 6 ]; then
timeout 420 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_fp8.py tests/test_jit.py tests/test_hopper.py 2>&1 | tail -3
timeout 200 python3 docs/runs/2026-11-26_fp8prof/jit_check.py 2>&1 | grep -vE "^\s*$" | tail -40
export VERIFY=1 MODE=fwd
for c in 0 1; do export CAUSAL=$c
  export D=128 B=1 H=16 N=16384
  echo "== fp8 D=128 N=16384 causal=$c default"; DTYPE=fp8e4m3 PEERS=triton_fp8 b
  echo "== fp16 D=128 N=16384 causal=$c default"; PEERS=torch_cudnn b
  for shape in "B=4 N=4096" "B=1 N=16384"; do export D=256 H=8 $shape; echo "== fp8 D=256 $shape causal=$c default"; DTYPE=fp8e4m3 PEERS= b; done
done
export D=256 H=8 B=4 N=4096 CAUSAL=1; echo "== fp16 D=256 N=4096 causal default"; PEERS=torch_cudnn b
fi
# PART=7: the causal dK/dV in one stage of masked tiles (its count and first key from registers): no spill at any head dim on sm_90a
# (D=256 440 bytes before), beside abtmp/prev (b584ea6's source), FA2 in the same run; the backward's GPU tests
if [ "${PART:-1}" = 7 ]; then
export VERIFY=1 MODE=bwd CAUSAL=1
for shape in "D=256 B=1 H=8 N=16384" "D=256 B=4 H=8 N=4096" "D=128 B=1 H=16 N=16384"; do export $shape
  for v in prev new; do d=$PWD; [ $v = prev ] && d=$PWD/abtmp/prev
    echo "== bwd $shape causal $v"; (cd $d && PEERS=$([ $v = new ] && [ "$D" = 256 ] && echo torch_flash) b)
  done
done
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_hopper.py -k "split or on_hopper" 2>&1 | tail -2
fi
