# again, dsonly and noreduce with the dQ buffer declared written (without, its argument went out of the kernel: CUDA invalid argument)
# Where the dQ accumulation's step spends its time (H200, D=128 N=16384 non-causal, fp16, bench.py MODE=bwd, not verified: the
# knobs leave parts out): knobs2.patch (applied here, on the device's copy) adds DQ_KNOB to the dK/dV kernel's dq_add:
# dsonly (dS to LDS transposed, no product, no stage, no add), nostage (the product, one stage store a piece), noreduce (the stage
# written, no bulk add), "" (all). Then the default backward beside them. Log: dqcost2.log
source scripts/device_setup.sh
export OUT=${OUT:-out} FA_UOP_TUNE=0; mkdir -p "$OUT"
git apply docs/runs/2026-11-28j_dqcost/knobs2.patch || patch -p1 < docs/runs/2026-11-28j_dqcost/knobs2.patch
for cfg in 64x64x4q; do for k in dsonly noreduce; do
  echo "== $cfg $k"; DQ_KNOB=${k/full/} BWD_CONFIG=$cfg,64x64x4x3 CNT=20 B=1 H=16 N=16384 D=128 CAUSAL=0 MODE=bwd timeout 120 python3 bench.py 2>&1 | grep -E "^fa_uop|Error|error" | cut -c1-120
done; done 2>&1 | tee $OUT/dqcost2.log
