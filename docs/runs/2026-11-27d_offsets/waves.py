# rows whose waves/SIMD by VGPR changed between two surveys
import sys
def rows(f): return {(r[0].strip(), int(r[1]), r[2].strip()): (int(r[4]), r[9].split(",")[0].strip()) for r in (l.split("|")[1:-1] for l in open(f) if l.startswith("| gfx"))}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
up = down = 0
for k in b:
  if k in a and a[k][1] != b[k][1]:
    print(k, a[k], "->", b[k]); up += int(b[k][1]) > int(a[k][1]); down += int(b[k][1]) < int(a[k][1])
print("more waves", up, "fewer", down)
