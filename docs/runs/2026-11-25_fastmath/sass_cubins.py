"""Build the Hopper forward and backward at their default configs (D=64, D=128; causal and not) into sm_90a cubins with nvcc, for
`cuobjdump -sass` where it exists (the GPU machine): python scripts/sass_cubins.py OUTDIR (fa_uop from PYTHONPATH or the tree)"""
import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from test_hopper import fwd_placeholders
from test_compile import bwd_sinks
from fa_uop import flash_fwd, default_fwd_config
from fa_uop.target import SM90A
from fa_uop.compile import render
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
sinks = {f"fwd_d{D}_c{int(c)}": flash_fwd(*fwd_placeholders(D=D), target=SM90A, cfg=default_fwd_config(SM90A, D, c), causal=c)
         for D in (64, 128) for c in (False, True)}
sinks.update(zip(("dkdv_d128_c1", "dq_d128_c1"), bwd_sinks(SM90A, 128, True)))
for name, sink in sinks.items():
  with tempfile.NamedTemporaryFile("w", suffix=".cu") as f:
    f.write(render(sink, "sm_90a")); f.flush()
    subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-o", f"{out}/{name}.cubin", f.name], check=True, capture_output=True)
