# DEV=CUDA python3 docs/runs/2026-11-27e_mods/softcap_jit.py: a TinyJit training step through flash_attention with softcap (the
# kernels d735da0 changed), an empty tuning cache, four steps on fresh inputs, each against eager; user_checks.py's step with softcap
import os, sys, tempfile
os.environ.setdefault("FA_UOP_CACHE", os.path.join(tempfile.mkdtemp(), "tune.json"))
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, TinyJit, dtypes
from fa_uop import flash_attention
B, H, N, D = 4, 16, 4096, 128
r = np.random.default_rng(0)
rand = lambda: Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).cast(dtypes.half).contiguous().realize()
def train(q, k, v):
  for t in (q, k, v): t.requires_grad = True
  o = flash_attention(q, k, v, causal=True, softcap=30.0)
  return [o, *o.float().square().mean().gradient(q, k, v)]
jit = TinyJit(train)
for i in range(4):
  ins = [rand() for _ in range(3)]
  got = [t.float().numpy() for t in jit(*ins)]
  want = [t.float().numpy() for t in train(*ins)]
  diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
  print(f"step {i} B={B} H={H} N={N} D={D} causal softcap=30: jitted vs eager max diff {diff:.1e}, finite {all(np.isfinite(a).all() for a in got)}", flush=True)
