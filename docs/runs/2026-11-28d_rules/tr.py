# python tr.py arch:D:name+with+plus[:fwd=CFG,dkdv=CFG,dq=CFG,decode=CFG] ... -> resources of amd_resources' every() kernel at those configs
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from multiprocessing import Pool
def one(spec):
  import amd_resources as ar, test_compile as tc, fa_uop.config as fc
  from fa_uop.config import FwdConfig, BwdConfig
  parts = spec.replace("+", " ").split(":")
  arch, D, name = parts[0], int(parts[1]), parts[2]
  over = dict(kv.split("=") for kv in parts[3].split(",")) if len(parts) > 3 else {}
  f0, b0, d0 = tc.default_fwd_config, tc.default_bwd_configs, fc.default_decode_config
  if "fwd" in over: tc.default_fwd_config = fc.default_fwd_config = ar.default_fwd_config = lambda *a, **k: FwdConfig.parse(over["fwd"])
  if "dkdv" in over or "dq" in over:
    def bw(*a, **k):
      ck, cq = b0(*a, **k)
      return (BwdConfig.parse(over["dkdv"]) if "dkdv" in over else ck), (BwdConfig.parse(over["dq"]) if "dq" in over else cq)
    tc.default_bwd_configs = bw
  if "decode" in over: fc.default_decode_config = ar.default_decode_config = lambda *a, **k: FwdConfig.parse(over["decode"])
  try:
    line, r = ar.row((arch, D, name, False, True))
    return f"{spec}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, LDS {r['lds']}"
  except Exception as e: return f"{spec}: {type(e).__name__} {str(e)[:150]}"
if __name__ == "__main__":
  with Pool(int(os.environ.get("J", 2)), maxtasksperchild=1) as p:
    for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
