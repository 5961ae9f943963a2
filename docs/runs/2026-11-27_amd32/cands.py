import sys; sys.path.insert(0,'scripts')
from amd_resources import ps, TARGETS
from tinygrad import dtypes
from fa_uop import flash_fwd
from fa_uop.config import candidates
from fa_uop.compile import render, compile_source, resources
for D in [int(x) for x in sys.argv[1].split(",")]:
  for arch, t in TARGETS.items():
    q, kv, rows = ((2, 4, 1000, D), dtypes.half), ((2, 2, 1000, D), dtypes.half), ((2, 4, 1000), dtypes.float)
    for c in candidates(t, D):
      r = resources(compile_source(render(flash_fwd(*ps([q, kv, kv, q, rows]), target=t, cfg=c, causal=True), arch), arch))
      print(arch, D, c, r["vgpr"], r["agpr"], r["lds"], r["scratch"], r["vgpr_spill"], flush=True)
