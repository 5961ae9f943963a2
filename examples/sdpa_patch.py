#!/usr/bin/env python3
"""A model written for tinygrad's scaled_dot_product_attention, run by fa_uop's kernels without a change to it: under
fa_uop.patch() Tensor.scaled_dot_product_attention is fa_uop's drop-in. Prints the largest difference between the two outputs.

  python examples/sdpa_patch.py                     # on the GPU tinygrad picks
  DEV=PYTHON::sm_80 python examples/sdpa_patch.py   # on the emulator (small sizes)
env: B T DIM HEADS KV_HEADS"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np
from tinygrad import Tensor, Device, dtypes, nn
from tinygrad.helpers import getenv
import fa_uop

class Attention:
  """grouped-query self-attention as tinygrad's Llama writes it, with a key-padding mask for batches of unequal lengths"""
  def __init__(self, dim:int, n_heads:int, n_kv_heads:int):
    self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
    self.wq, self.wo = nn.Linear(dim, n_heads * self.head_dim, bias=False), nn.Linear(n_heads * self.head_dim, dim, bias=False)
    self.wk, self.wv = (nn.Linear(dim, n_kv_heads * self.head_dim, bias=False) for _ in range(2))

  def __call__(self, x:Tensor, lengths:Tensor) -> Tensor:
    B, T, _ = x.shape
    xq = self.wq(x).reshape(B, T, self.n_heads, self.head_dim).transpose(1, 2)
    xk, xv = (w(x).reshape(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2) for w in (self.wk, self.wv))
    keep = (Tensor.arange(T).reshape(1, 1, 1, T) < lengths.reshape(B, 1, 1, 1)) & Tensor.ones(T, T, dtype=dtypes.bool).tril()
    out = xq.scaled_dot_product_attention(xk, xv, attn_mask=keep, enable_gqa=True)
    return self.wo(out.transpose(1, 2).reshape(B, T, -1))

def main(**size) -> float:
  """size: B, T, DIM, HEADS, KV_HEADS over the environment's and the defaults"""
  emulated = Device.DEFAULT.startswith("PYTHON")
  default = dict(B=2, T=24, DIM=64, HEADS=4, KV_HEADS=2) if emulated else dict(B=8, T=2048, DIM=2048, HEADS=16, KV_HEADS=4)
  B, T, DIM, HEADS, KV = (size.get(n, getenv(n, d)) for n, d in default.items())
  Tensor.manual_seed(0)
  model = Attention(DIM, HEADS, KV)
  for p in nn.state.get_parameters(model): p.replace(p.cast(dtypes.half).contiguous())   # a half-precision model
  x = Tensor.randn(B, T, DIM).cast(dtypes.half).realize()
  lengths = Tensor(np.linspace(T // 2, T, B).astype(np.int32)).realize()
  ref = model(x, lengths).float().numpy()
  with fa_uop.patch(): out = model(x, lengths).float().numpy()   # the same model, fa_uop's kernels
  err = float(np.abs(out - ref).max())
  print(f"{Device.DEFAULT}: B={B} T={T} DIM={DIM} HEADS={HEADS} KV_HEADS={KV}: max |fa_uop - tinygrad| = {err:.2e} (output scale {np.abs(ref).max():.2f})")
  return err

if __name__ == "__main__": main()
