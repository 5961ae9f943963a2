import sys; sys.path.insert(0,'tests'); sys.path.insert(0,'scripts')
import test_compile as tc, amd_resources as ar
from fa_uop.compile import render, compile_source, resources
from fa_uop.config import BwdConfig
from multiprocessing import Pool
def one(spec):
  arch, D, causal, kind, Nq, Nk, cfg = spec.split(":")
  t = ar.TARGETS[arch]; D=int(D)
  ck, cq = tc.default_bwd_configs(t, D)
  if cfg: ck, cq = (BwdConfig.parse(cfg), cq) if kind == "dkdv" else (ck, BwdConfig.parse(cfg))
  s = tc.bwd_sinks(t, D, causal == "1", Nq=int(Nq), Nk=int(Nk), cfgs=(ck, cq))[kind == "dq"]
  r = resources(compile_source(render(s, arch), arch))
  return f"{spec}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled"
with Pool(2) as p:
  for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
