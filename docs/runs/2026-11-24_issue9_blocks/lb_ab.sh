# The document mask's forward at 64x64x4 with ptxas told to fit 3 blocks an SM (__launch_bounds__(128, 3): 168 registers, 64 bytes of
# spills, against 203 registers and 2 blocks), beside the tree as it is; causal (166 registers: 3 blocks already) beside it, two
# rounds (scripts/mask_variants.py). summary.txt in $OUT
source scripts/device_setup.sh
export FA_UOP_TUNE=0 CASES="causal,document" NKS=
rm -rf abtmp/lb && mkdir -p abtmp/lb && cp -r fa_uop bench.py scripts abtmp/lb/
python3 - <<'PY'
p = "abtmp/lb/fa_uop/target.py"
s = open(p).read()
s = s.replace("    return super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]",
"""    out = super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]
    import os, re
    if (mb := os.environ.get("FA_LB")) and function_name.startswith("fa_fwd"): out = re.sub(r"__launch_bounds__\\((\\d+)\\)", rf"__launch_bounds__(\\1, {mb})", out)
    return out""")
open(p, "w").write(s)
PY
grep -c FA_LB abtmp/lb/fa_uop/target.py | sed 's/^/patched: /' | tee -a $OUT/summary.txt
for r in 1 2; do for v in base lb3; do
  d=$PWD; lb=; [ $v != base ] && d=$PWD/abtmp/lb && lb=${v#lb}
  (cd $d && FA_LB=$lb PYTHONPATH=/tmp/site:$d DEV=CUDA CONFIGS=${CONFIGS:-64x64x4} timeout 200 python3 scripts/mask_variants.py 2>&1 | grep ' ms$' | sed "s/^/$v $r /") | tee -a $OUT/summary.txt
done; done
