# python evp.py arch:D:name ... -> resources of amd_resources.every's kernels at the working tree, 2 processes
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.')
import amd_resources as ar
from multiprocessing import Pool
def one(spec):
  arch, D, name = spec.replace("+", " ").split(":"); D = int(D)
  line, r = ar.row((arch, D, name, False, True))
  return f"{arch} {D} {name}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled"
if __name__ == "__main__":
  with Pool(2) as p:
    for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
