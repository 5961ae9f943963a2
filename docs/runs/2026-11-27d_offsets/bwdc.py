# python bwdc.py arch D causal kind cfg... : dK/dV (kind=kv) or dQ (kind=q) at each config
import sys; sys.path.insert(0, 'tests'); sys.path.insert(0, '.')
from test_compile import bwd_sinks
from fa_uop import RDNA3, RDNA4, CDNA3, CDNA4, default_bwd_configs
from fa_uop.config import BwdConfig
from fa_uop.compile import render, compile_source, resources
from multiprocessing import Pool
T = {"gfx1100": RDNA3, "gfx1201": RDNA4, "gfx942": CDNA3, "gfx950": CDNA4}
arch, D, causal, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
def one(c):
  t = T[arch]; ck, cq = default_bwd_configs(t, D); cfg = BwdConfig.parse(c)
  try: cfg.check(t, D)
  except ValueError as e: return f"{c}: {e}"
  s = bwd_sinks(t, D, causal, cfgs=(cfg, cq) if kind == "kv" else (ck, cfg))[0 if kind == "kv" else 1]
  r = resources(compile_source(render(s, arch), arch))
  return f"{arch} D={D} {kind} {c}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, LDS {r['lds']}"
if __name__ == "__main__":
  with Pool(2) as p:
    for l in p.imap(one, sys.argv[5:]): print(l, flush=True)
