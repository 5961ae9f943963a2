# python cmp.py old.md new.md: rows in both whose scratch or VGPRs moved (spilled VGPRs old -> new, VGPRs old -> new)
import sys
def rows(f): return {(r[0].strip(), int(r[1]), r[2].strip()): (int(r[4]), int(r[8])) for r in (l.split("|")[1:-1] for l in open(f) if l.startswith("| gfx"))}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
better = worse = same = 0
for k in b:
  if k not in a: continue
  (v0, s0), (v1, s1) = a[k], b[k]
  if s0 or s1:
    tag = "fixed" if s0 and not s1 else "NEW" if s1 and not s0 else "down" if s1 < s0 else "up" if s1 > s0 else "same"
    print(f"{k[0]} D={k[1]} {k[2]}: spilled {s0} -> {s1} ({tag})")
  better += s1 < s0 or (s0 == s1 == 0 and v1 < v0); worse += s1 > s0 or (s0 == s1 == 0 and v1 > v0)
print(f"{sum(k in a for k in b)} rows compared: {better} better (fewer spilled, or VGPRs), {worse} worse")
