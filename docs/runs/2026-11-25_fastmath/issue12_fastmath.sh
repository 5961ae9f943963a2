# Issue 12: fa_uop's kernels with exp2 as ex2.approx.ftz, max as fmaxf and the forward's scale in the exponent's FMA (the working
# tree) against the commit before (abtmp/base). SASS opcode counts of both trees' cubins (scripts/sass_cubins.py, built where nvcc
# is, carried in abtmp/sass_*), everything verified through the Hopper target (hopper_verify.sh's cases), then the forward on the
# sweep's weak shapes and the backward on two, alternating. Summary on stdout
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
for t in base new; do for f in abtmp/sass_$t/*.cubin; do
  cuobjdump -sass $f | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed -E 's/^\s+\/\*[0-9a-f]+\*\/\s+(@!?U?P[0-9T]+\s+)?//; s/[ ;].*//' | sort | uniq -c | \
    awk -v n="$t $(basename $f .cubin)" '{c[$2]=$1; t+=$1} END {printf "%s: %d instructions, MUFU.EX2 %d FFMA %d FMUL %d FADD %d FMNMX %d FSETP %d FSEL %d HGMMA %d\n", n, t, c["MUFU.EX2"], c["FFMA"], c["FMUL"], c["FADD"], c["FMNMX"], c["FSETP.GEU.AND"]+c["FSETP.GT.AND"]+c["FSETP.GE.AND"]+c["FSETP.NEU.AND"]+c["FSETP.GTU.AND"], c["FSEL"], c["HGMMA.64x64x16.F32"]+c["HGMMA.64x128x16.F32"]}'
done; done
vb() { local n=$1; shift; bench new v_$n CNT=3 PEERS= VERIFY=1 "$@"; }
source scripts/hopper_cases.sh
DEV=CUDA timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -1
grep -h -B2 -A8 -i "error\|traceback\|mismatch" $OUT/v_*.log | head -30
for s in "64 1024 16 32 0" "64 1024 16 32 1" "64 4096 4 32 1" "128 1024 16 16 1" "128 4096 4 16 0" "128 16384 1 16 1"; do
  set -- $s
  for v in base new; do bench $v f_${v}_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=fwd PEERS=$([ $v = new ] && echo torch_flash) CNT=20 VERIFY=0; done
done
for s in "64 1024 16 32 0" "128 4096 4 16 1"; do
  set -- $s
  for v in base new; do bench $v b_${v}_d$1_n$2_c$5 B=$3 H=$4 N=$2 D=$1 CAUSAL=$5 MODE=bwd PEERS=$([ $v = new ] && echo torch_flash) CNT=20 VERIFY=0; done
done
rm -f $OUT/*.log
