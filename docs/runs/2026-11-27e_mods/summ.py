import sys, collections
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| gfx")]
tot, bad = collections.Counter(), collections.defaultdict(list)
for r in rows:
  arch, D, name = r[0].strip(), int(r[1]), r[2].strip()
  tot[(arch, D)] += 1
  if int(r[7]) or int(r[8]): bad[(arch, D)].append(f"{name} {r[8].strip()}")
Ds = sorted({d for _, d in tot})
print("| D | " + " | ".join(a for a in ("gfx1100", "gfx1201", "gfx942", "gfx950")) + " |\n|---|---|---|---|---|")
for D in Ds:
  print(f"| {D} | " + " | ".join((f"{len(bad[(a, D)])} of {tot[(a, D)]}" + (": " + ", ".join(bad[(a, D)]) if bad[(a, D)] else "")) if tot[(a, D)] else "-" for a in ("gfx1100", "gfx1201", "gfx942", "gfx950")) + " |")
print(len(rows), "kernels,", sum(len(v) for v in bad.values()), "with scratch")
