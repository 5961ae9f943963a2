"""The stall samples of Nsight Compute's SASS source pages (ncu.sh's src_*.csv.gz), per kernel: the share of samples by opcode and
by stall reason, and the instructions holding the most samples with their leading reasons. python3 stalls.py DIR [N]"""
import collections, csv, glob, gzip, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "src_*.csv.gz"))):
  rows = list(csv.reader(gzip.open(f, "rt")))
  if len(rows) < 3: print(f, "empty"); continue
  hdr, data = rows[1], [r for r in rows[2:] if r and r[0].startswith("0x")]
  S, ST = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)")
  cols = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
  n = lambda r, i: int(float(r[i] or 0))
  tot = sum(n(r, ST) for r in data) or 1
  op = collections.Counter()
  for r in data: op[r[S].split()[0].lstrip("@!P0123456789T").split(".")[0] or r[S].split()[1].split(".")[0]] += n(r, ST)
  why = collections.Counter({hdr[i][6:]: sum(n(r, i) for r in data) for i in cols})
  print(f"== {rows[0][1]} ({os.path.basename(f)}): {tot} samples, {len(data)} instructions")
  print("  by opcode: " + ", ".join(f"{k} {v / tot:.1%}" for k, v in op.most_common(10)))
  print("  by reason: " + ", ".join(f"{k} {v / tot:.1%}" for k, v in why.most_common(8)))
  for r in sorted(data, key=lambda r: -n(r, ST))[:int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    top = sorted(((n(r, i), hdr[i][6:]) for i in cols), reverse=True)[:2]
    print(f"  {n(r, ST) / tot:6.2%} {r[0]} {r[S][:70]:70s} " + ", ".join(f"{k} {v / max(1, n(r, ST)):.0%}" for v, k in top))
