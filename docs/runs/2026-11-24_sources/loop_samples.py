"""Per-loop instruction counts and stall samples of the forward from Nsight Compute's SASS source pages (scripts/stall_sources_only.sh):
python3 scripts/loop_samples.py DIR (with src_causal.csv.gz and src_doc.csv.gz). Loops are found by their backward branches; for each
kernel: the masked and unmasked KV loops, and the code before, between and after them, with their share of the samples, their
instructions per iteration and samples per iteration, and the leading stall reasons."""
import csv, gzip, re, sys, collections
for c in ("causal", "doc"):
  rows = list(csv.reader(gzip.open(f"{sys.argv[1]}/src_{c}.csv.gz", "rt")))
  hdr, data = rows[1], [r for r in rows[2:] if r[0].startswith("0x")]
  A, S, ST, EX = (hdr.index(h) for h in ("Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed"))
  addr = {int(r[A], 16): i for i, r in enumerate(data)}
  loops = [(addr[int(m.group(1), 16)], i) for i, r in enumerate(data) if (m:=re.search(r"BRA\s+(0x[0-9a-f]+)", r[S]))
           and int(m.group(1), 16) < int(r[A], 16) and int(m.group(1), 16) in addr]
  (ms, me), (us, ue) = sorted(loops)[-2:]
  tot = sum(int(r[ST] or 0) for r in data)
  cols = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
  for name, lo, hi in (("before", 0, ms), ("masked loop", ms, me + 1), ("between", me + 1, us), ("unmasked loop", us, ue + 1), ("after", ue + 1, len(data))):
    part, s = data[lo:hi], sum(int(r[ST] or 0) for r in data[lo:hi])
    why = collections.Counter({hdr[i][6:]: sum(int(r[i] or 0) for r in part) for i in cols})
    it = f", {hi - lo} instructions, {int(part[-1][EX])} iterations (warps), {s / max(1, int(part[-1][EX])):.4f} samples each" if "loop" in name else ""
    print(f"{c:6s} {name:13s} {s / tot:6.1%} of samples{it}; {', '.join(f'{k} {v / max(1, s):.0%}' for k, v in why.most_common(4))}")
