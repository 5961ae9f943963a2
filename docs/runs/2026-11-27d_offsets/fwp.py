# python fwp.py arch:D:cfg ... -> causal forward resources at each config, 2 processes
import sys; sys.path.insert(0,'tests'); sys.path.insert(0,'.')
import test_compile as tc
from fa_uop.config import FwdConfig
from fa_uop.compile import render, compile_source, resources
from multiprocessing import Pool
def one(spec):
  arch, D, c = spec.split(":")
  r = resources(compile_source(render(tc.fwd_sink(tc.TARGETS[arch], int(D), True, cfg=FwdConfig.parse(c)), arch), arch))
  return f"{arch} D={D} {c} causal: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled"
if __name__ == "__main__":
  with Pool(2) as p:
    for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
