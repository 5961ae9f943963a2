#!/usr/bin/env python3
"""PyTorch's SDPA timed alone, in its own process: bench.py runs this so torch's CUDA context never meets tinygrad's (timing
torch's backward in the same process as tinygrad measured nothing: the autograd thread and the events saw different contexts).
Usage: torch_peer.py BACKEND MODE B H HKV N NK D CAUSAL DTYPE  ->  prints the median time in seconds, or 'none' and why."""
import sys

def main(backend:str, mode:str, B:int, H:int, Hkv:int, N:int, Nk:int, D:int, causal:bool, dtype:str) -> str:
  try:
    import torch
    from torch.nn.attention import sdpa_kernel, SDPBackend
    from triton.testing import do_bench
  except ImportError as e: return f"none: {e}"
  if not torch.cuda.is_available(): return "none: no CUDA device"
  dt = torch.float16 if dtype == "half" else torch.bfloat16
  grad = mode != "fwd"
  q, k, v = [torch.randn(*s, device="cuda", dtype=dt, requires_grad=grad) for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  do = torch.randn(B, H, N, D, device="cuda", dtype=dt)
  be = {"torch_flash": SDPBackend.FLASH_ATTENTION, "torch_cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
  fwd = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=Hkv != H)
  try:
    with sdpa_kernel([be]):
      if mode == "fwd": step = fwd
      elif mode == "bwd":
        out = fwd()
        step = lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
      else: step = lambda: torch.autograd.grad(fwd(), (q, k, v), do)
      step()
      return str(do_bench(step, warmup=25, rep=200, return_mode="median") * 1e-3)
  except RuntimeError as e: return f"none: {str(e).splitlines()[0]}"

if __name__ == "__main__":
  a = sys.argv[1:]
  print(main(a[0], a[1], *map(int, a[2:8]), a[8] == "1", a[9]))
