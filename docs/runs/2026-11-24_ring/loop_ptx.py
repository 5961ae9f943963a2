# The PTX (nvcc, sm_90) of the causal and the document-mask forward (B=1 H=16 N=16384 D=128, 64x32x4): the instructions of each loop
# of each kernel, by opcode; the PTX is left in /tmp/{causal,doc}_head.ptx. Run from the repository root with the venv python.
import sys, subprocess, tempfile, re, collections
from tinygrad import UOp, dtypes
from fa_uop import SM80, flash_fwd, FwdConfig
from fa_uop.mods import Mods
from fa_uop.compile import render
N, H, D = 16384, 16, 128
bm, bn = 64, 32
cfg = FwdConfig(bm, bn, 4)
for doc in (False, True):
  mods = Mods(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1) if doc else Mods(causal=True)
  q, kv = ((1, H, N, D), dtypes.half), ((1, H, N, D), dtypes.half)
  shapes = [q, kv, kv, q, ((1, H, N), dtypes.float)] + ([((1, N), dtypes.int32), ((1, 1, N // bm, 2), dtypes.int32), ((1, 1, N // bm, N // bn), dtypes.int32), ((H * N // bm,), dtypes.int32)] if doc else [])
  ps = [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  src = render(flash_fwd(*ps, target=SM80, cfg=cfg, mods=mods), "sm_90")
  with tempfile.TemporaryDirectory() as d:
    open(f"{d}/k.cu", "w").write(src)
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-o", f"{d}/k.ptx", f"{d}/k.cu"], check=True, capture_output=True)
    ptx = open(f"{d}/k.ptx").read()
  open(f"/tmp/{'doc' if doc else 'causal'}_head.ptx", "w").write(ptx)
  lines = ptx.splitlines()
  # loops: label lines and the backward branches to them
  labels = {l.strip()[:-1]: i for i, l in enumerate(lines) if re.match(r"^\$L__BB\d+_\d+:", l)}
  loops = []
  for i, l in enumerate(lines):
    m = re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", l)
    if m and labels.get(m.group(1), 1 << 30) < i: loops.append((labels[m.group(1)], i))
  for s, e in loops:
    ops = collections.Counter(l.split()[0] for l in lines[s+1:e] if l.startswith("\t") and l.split() and not l.strip().startswith("//"))
    print("doc" if doc else "causal", s, e, sum(ops.values()), dict(ops.most_common(12)))
