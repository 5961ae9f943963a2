#!/usr/bin/env python3
"""Greedy generation with a KV cache: a small Llama-style model (random weights, RoPE, GQA, RMSNorm, SwiGLU) prefills a batch of
prompts of different lengths with fa_uop.flash_attention(causal=True), then decodes TOKENS tokens with
fa_uop.flash_attention_with_kvcache, one TinyJit step per token. The same model with tinygrad's scaled_dot_product_attention
(explicit masks: causal for the prefill, the valid keys of each sequence for a step) generates beside it; the tokens must agree.
Both write the cache with fa_uop.write_kvcache and differ only in attention. The model computes in float32; attention reads
float16 queries, keys and values (the cache is float16).

SIZE=tiny (default on the emulator: 2 layers, D=16) or SIZE=small (default on a GPU: 4 layers, dim 2048, 16 query heads over
4 KV heads of D=128, batch 8, prompts of 1024-2048 tokens). TOKENS (64), SEED (0). Prints tokens/s of both."""
import os, shutil, sys, time
if "DEV" not in os.environ: os.environ["DEV"] = "CUDA" if shutil.which("nvidia-smi") else "PYTHON::sm_80"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np
from tinygrad import Tensor, TinyJit, Device, dtypes
from tinygrad.helpers import getenv
from fa_uop import flash_attention, flash_attention_with_kvcache, write_kvcache

SIZES = {"tiny": dict(dim=32, layers=1, H=2, Hkv=1, ffn=64, vocab=32, B=2, prompt=(3, 7)),
         "small": dict(dim=2048, layers=4, H=16, Hkv=4, ffn=5632, vocab=32000, B=8, prompt=(1024, 2048))}

class Model:
  def __init__(self, dim:int, layers:int, H:int, Hkv:int, ffn:int, vocab:int, seed:int, **_):
    rng = np.random.default_rng(seed)
    w = lambda *s: Tensor((rng.standard_normal(s, dtype=np.float32) / np.sqrt(s[-1])).astype(np.float32)).realize()
    self.H, self.Hkv, self.D = H, Hkv, dim // H
    self.embed, self.head = Tensor(rng.standard_normal((vocab, dim), dtype=np.float32)).realize(), w(vocab, dim)
    self.layers = [dict(wq=w(dim, dim), wk=w(Hkv * self.D, dim), wv=w(Hkv * self.D, dim), wo=w(dim, dim), w1=w(ffn, dim), w3=w(ffn, dim),
                        w2=w(dim, ffn)) for _ in range(layers)]
    self.inv_freq = Tensor(1.0 / 10000 ** (np.arange(0, self.D, 2, dtype=np.float32) / self.D))

  def rope(self, x:Tensor, pos:Tensor) -> Tensor:
    """rotate the halves of each head by angle pos·freq; x (B, heads, T, D), pos (B, T)"""
    ang = (pos.float()[:, None, :, None] * self.inv_freq)
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :self.D // 2], x[..., self.D // 2:]
    return (x1 * cos - x2 * sin).cat(x1 * sin + x2 * cos, dim=-1)

  def __call__(self, tok:Tensor, pos:Tensor, caches:list, start:Tensor, attend) -> Tensor:
    """logits (B, T, vocab) of tokens tok (B, T) at positions pos (B, T); their keys and values are written to the caches at
    start (B,) onwards; attend(q, k, v, cache) gives the heads' outputs"""
    B, T = tok.shape
    x = self.embed[tok]
    norm = lambda x: x * (x.square().mean(-1, keepdim=True) + 1e-5).rsqrt()
    for lw, cache in zip(self.layers, caches):
      h = norm(x)
      q, k, v = [(h @ lw[n].T).reshape(B, T, -1, self.D).transpose(1, 2) for n in ("wq", "wk", "wv")]
      q, k = self.rope(q, pos), self.rope(k, pos)
      q, k, v = q.cast(dtypes.half), k.cast(dtypes.half), v.cast(dtypes.half)
      kc, vc = write_kvcache(*cache, k, v, start)
      x = x + attend(q, k, v, (kc, vc)).float().transpose(1, 2).reshape(B, T, -1) @ lw["wo"].T
      h = norm(x)
      x = x + ((h @ lw["w1"].T).silu() * (h @ lw["w3"].T)) @ lw["w2"].T
    return norm(x) @ self.head.T

# attention for the prefill (q, k, v of the prompts) and for a decoding step (q of the new token, the cache and its lengths)
def fa_prefill(q, k, v, cache): return flash_attention(q, k, v, causal=True)
def sdpa_prefill(q, k, v, cache):
  T = q.shape[2]
  return q.float().scaled_dot_product_attention(k.float(), v.float(), attn_mask=Tensor.ones(T, T, dtype=dtypes.bool).tril(), enable_gqa=True)
def fa_step(seqlens): return lambda q, k, v, cache: flash_attention_with_kvcache(q, *cache, seqlens)
def sdpa_step(seqlens):
  def attend(q, k, v, cache):
    keep = Tensor.arange(cache[0].shape[2])[None, None, None, :] < seqlens[:, None, None, None]
    return q.float().scaled_dot_product_attention(cache[0].float(), cache[1].float(), attn_mask=keep, enable_gqa=True)
  return attend

def generate(model:Model, prompts:list[list[int]], tokens:int, prefill, step) -> tuple[np.ndarray, np.ndarray, float, float]:
  """(generated tokens (B, tokens), the logits each was chosen from (tokens, B, vocab), prefill seconds (build, compile and tuning
  included), seconds to decode all tokens at the pace of the steps after the jit's capture)"""
  B, lens = len(prompts), [len(p) for p in prompts]
  T = max(lens)
  caches = [tuple(Tensor.zeros(B, model.Hkv, T + tokens, model.D, dtype=dtypes.half).contiguous().realize() for _ in range(2))
            for _ in model.layers]
  Device[Device.DEFAULT].synchronize()
  st = time.perf_counter()
  tok = Tensor([p + [0] * (T - len(p)) for p in prompts], dtype=dtypes.int32)   # right-padded: causal keeps the pads out of sight
  logits = model(tok, Tensor.arange(T)[None].expand(B, T), caches, Tensor.zeros(B, dtype=dtypes.int32), prefill)
  last = logits[Tensor.arange(B), Tensor(lens) - 1].realize()   # the logits that chose each sequence's first new token
  first = last.argmax(-1).cast(dtypes.int32).reshape(B, 1).realize()
  Device[Device.DEFAULT].synchronize()
  prefill_s = time.perf_counter() - st
  seqlens = Tensor(lens, dtype=dtypes.int32).contiguous().realize()   # keys in the cache before this step's token
  @TinyJit
  def decode(tok:Tensor, seqlens:Tensor) -> tuple[Tensor, Tensor]:
    logits = model(tok, seqlens[:, None], caches, seqlens, step(seqlens + 1))[:, 0]
    return logits.argmax(-1).cast(dtypes.int32).reshape(B, 1).realize(), logits.realize()
  out, steps = [], [last]
  tok = first
  for i in range(tokens):
    if i == min(2, tokens - 1):  # the first two steps build, compile and capture the jit: time the steps after them
      Device[Device.DEFAULT].synchronize()
      st, timed = time.perf_counter(), tokens - i
    out.append(tok)
    tok, logits = decode(tok, seqlens)
    tok, logits = tok.clone().realize(), logits.clone().realize()   # the jit's replays write their outputs into the same buffers
    steps.append(logits)
    seqlens.assign(seqlens + 1).realize()
  Device[Device.DEFAULT].synchronize()
  decode_s = (time.perf_counter() - st) / timed * tokens
  return Tensor.cat(*out, dim=1).numpy(), Tensor.stack(*steps[:tokens]).numpy(), prefill_s, decode_s

def main() -> int:
  size = SIZES[getenv("SIZE", "tiny" if Device.DEFAULT.startswith("PYTHON") else "small")]
  tokens, seed = getenv("TOKENS", 64), getenv("SEED", 0)
  model = Model(**size, seed=seed)
  rng = np.random.default_rng(seed + 1)
  lo, hi = size["prompt"]
  prompts = [list(rng.integers(0, size["vocab"], int(n))) for n in np.linspace(lo, hi, size["B"]).astype(int)]
  print(f"{Device.DEFAULT}: {size}, prompts of {[len(p) for p in prompts]} tokens, {tokens} new tokens each", flush=True)
  res = {}
  for name, prefill, step in (("fa_uop", fa_prefill, fa_step), ("tinygrad SDPA", sdpa_prefill, sdpa_step)):
    res[name] = gen, logits, pre_s, dec_s = generate(model, prompts, tokens, prefill, step)
    print(f"{name:14s} prefill {pre_s:7.2f} s (first call: build, compile, tune) | decode {size['B'] * tokens / dec_s:9.1f} tokens/s "
          f"({dec_s / tokens * 1e3:.2f} ms a step once the jit has captured it) | first tokens {gen[0, :8].tolist()}", flush=True)
  (a, la, *_), (b, lb, *_) = res["fa_uop"], res["tinygrad SDPA"]
  top2 = np.sort(lb, -1)[..., -2:]
  # the steps fed both models the same tokens for as long as they agreed: their logits differ only through attention
  print(f"all steps: largest logit difference {np.abs(la - lb).max():.2e}, smallest top-2 margin {(top2[..., 1] - top2[..., 0]).min():.2e}, "
        f"{len(np.unique(a))} distinct tokens generated")
  same = bool((a == b).all())
  print(f"same tokens: {same}" + ("" if same else f" (first difference at step {int(np.argmax((a != b).any(0)))})"))
  return 0 if same else 1

if __name__ == "__main__": sys.exit(main())
