# Consumers' stall samples by opcode and reason from ncu's source page (h100_next.sh's CSVs, gunzipped), the producer's spin on a
# free slot (the try-wait loop's BRA, at its SASS index) left out:  python3 stall_split.py src_fp8e4m3.csv:257 src_half.csv:202
import csv, collections, re, sys
reasons = ['stall_barrier','stall_branch_resolving','stall_dispatch','stall_long_sb','stall_math','stall_mio','stall_no_inst','stall_not_selected',
           'stall_selected','stall_short_sb','stall_wait','stall_misc','stall_sleep','stall_lg','stall_membar']
for arg in sys.argv[1:]:
  f, spin = arg.split(":")
  rows = list(csv.reader(open(f)))
  hdr = rows[1]; i_s = hdr.index("Source"); idx = {r: hdr.index(r) for r in reasons}
  body = [r for r in rows[2:] if len(r) > max(idx.values())]
  per_op, tot = collections.defaultdict(collections.Counter), collections.Counter()
  for j, r in enumerate(body):
    if j == int(spin) and "BRA" in r[i_s]: continue
    src = re.sub(r"^@!?U?P\w+\s+", "", r[i_s].strip()); op = src.split()[0].split(".")[0] if src else "?"
    for k, i in idx.items():
      v = int(r[i]) if r[i].isdigit() else 0
      per_op[op][k] += v; tot[k] += v
  T = sum(tot.values())
  print(f, "samples without the producer's spin:", T)
  print("  by reason:", ", ".join(f"{k[6:]} {100*v/T:.1f}%" for k, v in tot.most_common(8)))
  for op in ("MUFU", "FMNMX", "FADD", "FFMA", "F2FP", "WARPGROUP", "BRA", "BAR"):
    c = per_op[op]; s = sum(c.values())
    print(f"  {op:9s} {100*s/T:5.1f}%:", ", ".join(f"{k[6:]} {100*v/T:.1f}" for k, v in c.most_common(4)))
