import sys; sys.path.insert(0,'tests'); sys.path.insert(0,'scripts')
import test_compile as tc, amd_resources as ar, fa_uop.config as fc
from fa_uop.compile import render, compile_source, resources
from fa_uop.config import FwdConfig
from multiprocessing import Pool
def one(spec):
  arch, D, rows, paged, split, cfg = spec.split(":"); D=int(D)
  if cfg: fc.default_decode_config = lambda *a, **k: FwdConfig.parse(cfg)
  t = ar.TARGETS[arch]
  kw = dict(H=32, Hkv=2, Nq=4) if rows == "64" else dict(H=8, Hkv=2, Nq=1)
  s = tc.decode_sinks(t, D, paged == "0", int(split), 16 if paged == "1" else None, **kw)[0]
  r = resources(compile_source(render(s, arch), arch))
  return f"{spec}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, LDS {r['lds']}, cfg {fc.default_decode_config(t, D, 4 if rows=='4' else 64)}"
with Pool(2, maxtasksperchild=1) as p:
  for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
