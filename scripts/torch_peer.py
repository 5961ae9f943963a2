"""PyTorch's attention timed alone, in its own process: bench.py runs this so torch's CUDA context never meets tinygrad's (timing
torch's backward in the same process as tinygrad measured nothing: the autograd thread and the events saw different contexts).
Usage: torch_peer.py BACKEND MODE B H HKV N NK D CAUSAL DTYPE [SPEC]  ->  prints the median time in seconds, or 'none' and why.
BACKEND: torch_flash or torch_cudnn (SDPA with that backend; no window, softcap or score mods) or torch_flex (FlexAttention,
compiled), in DTYPE (half or bfloat16); triton or triton_fp8: the forward of Triton's fused-attention tutorial
(python/tutorials/06-fused-attention.py, kept out of the repository: FA_UOP_TRITON_TUTORIAL, default .whl/triton_fused_attention.py),
in fp16 or in fp8 e5m2 whatever DTYPE says (its kernel takes no other), H == HKV, N == NK a multiple of 128. SPEC: an .npz of
bench.py's modifications (left, right: -1 unbounded; softcap: 0 none; doc, lens, slopes where the MASK example has them), built
here as FlexAttention's mask_mod (into a block mask, made before timing) and score_mod."""
import contextlib, os, sys

TUTORIAL = os.environ.get("FA_UOP_TRITON_TUTORIAL", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".whl",
                                                                  "triton_fused_attention.py"))

def tutorial(causal:bool, D:int):
  """the tutorial's forward, warp-specialized where its own benchmark does it (Blackwell; Hopper without causal); FA_UOP_TRITON_WS=0|1
  overrides"""
  import importlib.util, types
  if importlib.util.find_spec("pytest") is None:  # it marks its test with pytest.mark.parametrize at import
    sys.modules["pytest"] = types.SimpleNamespace(mark=types.SimpleNamespace(parametrize=lambda *a, **kw: lambda f: f))
  spec = importlib.util.spec_from_file_location("triton_fused_attention", TUTORIAL)
  sys.modules[spec.name] = mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)  # its benchmark runs under __main__ only
  ws = os.environ["FA_UOP_TRITON_WS"] == "1" if "FA_UOP_TRITON_WS" in os.environ else mod.is_blackwell() or (mod.is_hopper() and not causal)
  return lambda q, k, v: mod.attention(q, k, v, causal, D ** -0.5, ws)

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
  if (tri:=backend in ("triton", "triton_fp8")):
    if mode != "fwd" or Hkv != H or Nk != N: return "none: the Triton tutorial has a forward only, with no GQA and one sequence length"
    # its loads and stores are unmasked (BLOCK_M, BLOCK_N up to 128) and its head dims are powers of 2 no smaller than BLOCK_N (32)
    if D not in (32, 64, 128, 256) or N % 128: return f"none: the Triton tutorial takes D in 32, 64, 128, 256 and N % 128 == 0, not D={D} N={N}"
    if not os.path.exists(TUTORIAL): return f"none: no Triton tutorial at {TUTORIAL} (FA_UOP_TRITON_TUTORIAL)"
  elif dtype not in ("half", "bfloat16"): return f"none: {backend} takes half or bfloat16, not {dtype}"
  try:
    import torch
    from torch.nn.attention import sdpa_kernel, SDPBackend
    from triton.testing import do_bench
  except ImportError as e: return f"none: {e}"
  if not torch.cuda.is_available(): return "none: no CUDA device"
  if spec and backend != "torch_flex": return f"none: {backend} takes no window, softcap, score_mod or mask (FlexAttention does)"
  dt = torch.float16 if dtype == "half" or tri else torch.bfloat16
  grad = mode != "fwd"
  q, k, v = [torch.randn(*s, device="cuda", dtype=dt, requires_grad=grad) for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  if backend == "triton_fp8":  # as the tutorial's benchmark makes them: e5m2, V stored transposed (K-major for the fp8 MMA), its shape kept
    q, k, v = q.to(torch.float8_e5m2), k.to(torch.float8_e5m2), v.permute(0, 1, 3, 2).contiguous().permute(0, 1, 3, 2).to(torch.float8_e5m2)
  do = torch.randn(B, H, N, D, device="cuda", dtype=dt)
  try:
    if tri: attn, ctx = tutorial(causal, D), contextlib.nullcontext()
    elif backend == "torch_flex": attn, ctx = flex(B, H, Hkv, N, Nk, causal, spec), contextlib.nullcontext()
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
