import sys, collections
def rows(f): return {(r[0].strip(), int(r[1]), r[2].strip()): int(r[8]) for r in (l.split("|")[1:-1] for l in open(f) if l.startswith("| gfx"))}
fs = [rows(f) for f in sys.argv[1:]]
common = set.intersection(*[set(f) for f in fs])
for name, f in zip(sys.argv[1:], fs):
  by = collections.Counter(); tot = collections.Counter()
  for k in common:
    if f[k]: by[k[1]] += 1; tot[k[1]] += f[k]
  print(name.split("/")[-1], len(common), "kernels:", sum(by.values()), "spill,", sum(tot.values()), "VGPRs;", dict(sorted(by.items())))
