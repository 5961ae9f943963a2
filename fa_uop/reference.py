"""The plain attention the kernels must match, in float64 numpy."""
from __future__ import annotations
import numpy as np

def attention_ref(q:np.ndarray, k:np.ndarray, v:np.ndarray, causal:bool=False, scale:float|None=None) -> tuple[np.ndarray, np.ndarray]:
  """q: (B, H, Nq, D), k and v: (B, Hkv, Nk, D). Returns the output (B, H, Nq, D) and the natural-log logsumexp (B, H, Nq), float64.
  GQA: query head h uses KV head h // (H // Hkv). causal masks key j > query i."""
  q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
  group = q.shape[1] // k.shape[1]
  k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
  s = q @ k.swapaxes(-1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
  if causal: s = np.where(np.arange(k.shape[2])[None, :] > np.arange(q.shape[2])[:, None], -np.inf, s)
  m = s.max(-1, keepdims=True)
  p = np.exp(s - m)
  l = p.sum(-1, keepdims=True)
  return (p / l) @ v, (m + np.log(l))[..., 0]

def attention_bwd_ref(q:np.ndarray, k:np.ndarray, v:np.ndarray, do:np.ndarray, causal:bool=False, scale:float|None=None,
                      dlse:np.ndarray|None=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """(dq, dk, dv) of attention_ref for the gradients do of its output and dlse of its logsumexp, float64; GQA's dk and dv
  summed over each group"""
  q, k, v, do = (np.asarray(x, dtype=np.float64) for x in (q, k, v, do))
  sc = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
  B, Hkv, Nk, D = k.shape
  group = q.shape[1] // Hkv
  kr, vr = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
  s = q @ kr.swapaxes(-1, -2) * sc
  if causal: s = np.where(np.arange(Nk)[None, :] > np.arange(q.shape[2])[:, None], -np.inf, s)
  p = np.exp(s - s.max(-1, keepdims=True))
  p /= p.sum(-1, keepdims=True)
  dv = p.swapaxes(-1, -2) @ do
  dp = do @ vr.swapaxes(-1, -2)
  ds = p * (dp - (dp * p).sum(-1, keepdims=True) + (0 if dlse is None else np.asarray(dlse, dtype=np.float64)[..., None]))
  dq, dk = ds @ kr * sc, ds.swapaxes(-1, -2) @ q * sc
  fold = lambda x: x.reshape(B, Hkv, group, Nk, D).sum(2)
  return dq, fold(dk), fold(dv)
