# python bcfg.py arch:D:causal:dkdv|dq:CFG ... -> resources of test_compile's backward kernel at config CFG (J= processes)
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from multiprocessing import Pool
def one(spec):
  import test_compile as tc, amd_resources as ar
  from fa_uop.config import BwdConfig
  from fa_uop.compile import render, compile_source, resources
  arch, D, causal, kind, cfg = spec.split(":"); D, causal = int(D), causal == "1"
  t = ar.TARGETS[arch]
  ck, cq = tc.default_bwd_configs(t, D)
  cfgs = (BwdConfig.parse(cfg), cq) if kind == "dkdv" else (ck, BwdConfig.parse(cfg))
  sink = tc.bwd_sinks(t, D, causal, cfgs=cfgs)[kind == "dq"]
  r = resources(compile_source(render(sink, arch), arch))
  return f"{spec}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, LDS {r['lds']}"
if __name__ == "__main__":
  with Pool(int(os.environ.get("J", 2))) as p:
    for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
