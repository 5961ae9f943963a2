# python3 evq.py arch:D:name ... (names with + for spaces; from the repository root), with PATCHES=remat,rfl (modules here) -> resources
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.'); sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
for p in filter(None, os.environ.get("PATCHES", "").split(",")): __import__(p)
import amd_resources as ar
from multiprocessing import Pool
def one(spec):
  arch, D, name = spec.replace("+", " ").split(":"); D = int(D)
  line, r = ar.row((arch, D, name, False, True))
  return f"{arch} {D} {name}: {r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, {r['scratch']} B scratch"
if __name__ == "__main__":
  with Pool(int(os.environ.get("J", 2))) as p:
    for l in p.imap(one, sys.argv[1:]): print(l, flush=True)
