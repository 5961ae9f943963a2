"""The longest loop of each SASS file (nvdisasm -c output) and its commonest opcodes: python3 loopops.py A.sass B.sass ..."""
import re, sys, collections
for f in sys.argv[1:]:
  lines = open(f).read().split("\n")
  ins = []
  for l in lines:
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", l)
    if m: ins.append((int(m.group(1), 16), m.group(2)))
  # backward branches, by nvdisasm's labels
  labels = {}
  for i, l in enumerate(lines):
    m = re.match(r"\.(L_x_\d+):", l.strip())
    if m: labels[m.group(1)] = sum(1 for x in lines[:i] if re.match(r"\s*/\*[0-9a-f]{4,}\*/\s", x))
  back = []
  for i, (a, s) in enumerate(ins):
    m = re.search(r"BRA\s+`?\(?\.?(L_x_\d+)", s)
    if m and m.group(1) in labels and labels[m.group(1)] <= i: back.append((labels[m.group(1)], i))
  lo, hi = max(back, key=lambda x: x[1] - x[0])
  ops = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", s).split()[0].split(".")[0] for _, s in ins[lo:hi + 1])
  print(f"{f.split('/')[-1]}: loop {hi - lo + 1} instructions of {len(ins)}; " + " ".join(f"{k} {v}" for k, v in ops.most_common(22)))
