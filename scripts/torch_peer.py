"""PyTorch's attention timed alone, in its own process: bench.py runs this so torch's CUDA context never meets tinygrad's (timing
torch's backward in the same process as tinygrad measured nothing: the autograd thread and the events saw different contexts).
Usage: torch_peer.py BACKEND MODE B H HKV N NK D CAUSAL DTYPE [SPEC]  ->  prints the median time in seconds, or 'none' and why.
BACKEND: torch_flash or torch_cudnn (SDPA with that backend; no window, softcap or score mods) or torch_flex (FlexAttention,
compiled). SPEC: an .npz of bench.py's modifications (left, right: -1 unbounded; softcap: 0 none; doc, lens, slopes where the
MASK example has them), built here as FlexAttention's mask_mod (into a block mask, made before timing) and score_mod."""
import contextlib, sys

def flex(B:int, H:int, Hkv:int, N:int, Nk:int, causal:bool, spec:str):
  """FlexAttention compiled, with the masks and scores of spec"""
  import numpy as np, torch
  from torch.nn.attention.flex_attention import flex_attention, create_block_mask
  sp = dict(np.load(spec)) if spec else {}
  left, right = (int(sp[x]) if x in sp and int(sp[x]) >= 0 else None for x in ("left", "right"))
  cap = float(sp.get("softcap", 0.0))
  doc, lens, slopes = (torch.tensor(sp[x], device="cuda") if x in sp else None for x in ("doc", "lens", "slopes"))
  conds = [c for c, on in ((lambda b, h, q, k: k <= q, causal), (lambda b, h, q, k: k >= q - left, left is not None),
                           (lambda b, h, q, k: k <= q + right, right is not None), (lambda b, h, q, k: doc[b, q] == doc[b, k], doc is not None),
                           (lambda b, h, q, k: k < lens[b], lens is not None)) if on]
  def mask_mod(b, h, q, k):
    m = conds[0](b, h, q, k)
    for c in conds[1:]: m = m & c(b, h, q, k)
    return m
  def score_mod(s, b, h, q, k):
    if cap: s = cap * torch.tanh(s / cap)
    return s if slopes is None else s + slopes[h] * (k - q)
  block_mask = create_block_mask(mask_mod, B if doc is not None or lens is not None else None, None, N, Nk) if conds else None
  fn = torch.compile(flex_attention)
  return lambda q, k, v: fn(q, k, v, score_mod=score_mod if cap or slopes is not None else None, block_mask=block_mask, enable_gqa=Hkv != H)

def main(backend:str, mode:str, B:int, H:int, Hkv:int, N:int, Nk:int, D:int, causal:bool, dtype:str, spec:str="") -> str:
  try:
    import torch
    from torch.nn.attention import sdpa_kernel, SDPBackend
    from triton.testing import do_bench
  except ImportError as e: return f"none: {e}"
  if not torch.cuda.is_available(): return "none: no CUDA device"
  if spec and backend != "torch_flex": return f"none: {backend} takes no window, softcap, score_mod or mask (FlexAttention does)"
  dt = torch.float16 if dtype == "half" else torch.bfloat16
  grad = mode != "fwd"
  q, k, v = [torch.randn(*s, device="cuda", dtype=dt, requires_grad=grad) for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  do = torch.randn(B, H, N, D, device="cuda", dtype=dt)
  try:
    if backend == "torch_flex": attn, ctx = flex(B, H, Hkv, N, Nk, causal, spec), contextlib.nullcontext()
    else:
      be = {"torch_flash": SDPBackend.FLASH_ATTENTION, "torch_cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
      attn = lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=Hkv != H)
      ctx = sdpa_kernel([be])
    with ctx:
      fwd = lambda: attn(q, k, v)
      if mode == "fwd": step = fwd
      elif mode == "bwd":
        out = fwd()
        step = lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
      else: step = lambda: torch.autograd.grad(fwd(), (q, k, v), do)
      step()
      return str(do_bench(step, warmup=25, rep=200, return_mode="median") * 1e-3)
  except Exception as e: return f"none: {type(e).__name__}: {(str(e).splitlines() or [''])[0]}"

if __name__ == "__main__":
  a = sys.argv[1:]
  print(main(a[0], a[1], *map(int, a[2:8]), a[8] == "1", a[9], a[10] if len(a) > 10 else ""))
