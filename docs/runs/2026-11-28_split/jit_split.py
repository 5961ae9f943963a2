# DEV=CUDA [FA_UOP_HOPPER=0] D=176 python3 docs/runs/2026-11-28_split/jit_split.py: a TinyJit training step through flash_attention at
# a head dim whose backward splits unevenly (sm_80's tiles: FA_UOP_HOPPER=0), an empty tuning cache, three steps on fresh inputs, each
# against eager and against tinygrad's float32 attention (its gradients by autograd)
import os, sys, tempfile
os.environ.setdefault("FA_UOP_CACHE", os.path.join(tempfile.mkdtemp(), "tune.json"))
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, TinyJit, dtypes
from fa_uop import flash_attention, default_bwd_configs, target_for
B, H, N, D = 2, 8, 2048, int(os.environ.get("D", 176))
print("configs", *map(str, default_bwd_configs(target_for("CUDA"), D)), flush=True)
r = np.random.default_rng(0)
rand = lambda: Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).cast(dtypes.half).contiguous().realize()
W = Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).realize()   # dO ~ N(0, 1): a mean's gradient would underflow fp16
def train(q, k, v):
  for t in (q, k, v): t.requires_grad = True
  o = flash_attention(q, k, v, causal=True)
  return [o, *(o.float() * W).sum().gradient(q, k, v)]
def ref(q, k, v):
  q, k, v = (t.float().detach() for t in (q, k, v))
  for t in (q, k, v): t.requires_grad = True
  o = q.scaled_dot_product_attention(k, v, is_causal=True)
  return [o, *(o * W).sum().gradient(q, k, v)]
jit = TinyJit(train)
for i in range(3):
  ins = [rand() for _ in range(3)]
  got = [t.float().numpy() for t in jit(*ins)]
  want = [t.float().numpy() for t in train(*ins)]
  exact = [t.numpy() for t in ref(*ins)]
  diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
  rel = [float(np.linalg.norm(a - e) / np.linalg.norm(e)) for a, e in zip(got, exact)]
  print(f"step {i} B={B} H={H} N={N} D={D} causal: jitted vs eager max diff {diff:.1e}, finite {all(np.isfinite(a).all() for a in got)}, "
        f"rel err vs float32 (o, dq, dk, dv) {', '.join(f'{x:.1e}' for x in rel)}", flush=True)
