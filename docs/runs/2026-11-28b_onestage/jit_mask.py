# DEV=CUDA D=256 python3 docs/runs/2026-11-28b_onestage/jit_mask.py: a TinyJit training step through flash_attention under a causal
# document mask_mod and a window (past D=128: one masked stage, TilePlan.one_stage), an empty tuning cache, three steps on fresh inputs,
# each against eager and against tinygrad's float32 attention with the same mask (its gradients by autograd)
import os, sys, tempfile
os.environ.setdefault("FA_UOP_CACHE", os.path.join(tempfile.mkdtemp(), "tune.json"))
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, TinyJit, dtypes
from fa_uop import flash_attention
B, H, N, D = 2, 8, 2048, int(os.environ.get("D", 256))
r = np.random.default_rng(0)
docs = np.stack([np.repeat(np.arange(4), np.diff([0, *sorted(r.choice(np.arange(1, N), 3, replace=False)), N])) for _ in range(B)]).astype(np.int32)
dt = Tensor(docs).realize()
i, j = np.arange(N)[:, None], np.arange(N)[None, :]
keep = (docs[:, None, :, None] == docs[:, None, None, :]) & (j <= i) & (j >= i - 700)
mask = Tensor(keep).realize()
rand = lambda: Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).cast(dtypes.half).contiguous().realize()
W = Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).realize()
def train(q, k, v):
  for t in (q, k, v): t.requires_grad = True
  o = flash_attention(q, k, v, causal=True, window=(700, None), mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(dt,))
  return [o, *(o.float() * W).sum().gradient(q, k, v)]
def ref(q, k, v):
  q, k, v = (t.float().detach() for t in (q, k, v))
  for t in (q, k, v): t.requires_grad = True
  o = q.scaled_dot_product_attention(k, v, attn_mask=mask)
  return [o, *(o * W).sum().gradient(q, k, v)]
jit = TinyJit(train)
for step in range(3):
  ins = [rand() for _ in range(3)]
  got = [t.float().numpy() for t in jit(*ins)]
  want = [t.float().numpy() for t in train(*ins)]
  exact = [t.numpy() for t in ref(*ins)]
  diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
  rel = [float(np.linalg.norm(a - e) / np.linalg.norm(e)) for a, e in zip(got, exact)]
  print(f"step {step} B={B} H={H} N={N} D={D} causal document window 700: jitted vs eager max diff {diff:.1e}, finite "
        f"{all(np.isfinite(a).all() for a in got)}, rel err vs float32 (o, dq, dk, dv) {', '.join(f'{x:.1e}' for x in rel)}", flush=True)
