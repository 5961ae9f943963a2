"""The plain attention the kernels must match, in float64 numpy."""
from __future__ import annotations
from typing import Callable
import numpy as np

def attention_ref(q:np.ndarray, k:np.ndarray, v:np.ndarray, causal:bool=False, scale:float|None=None,
                  keep:np.ndarray|None=None, score:Callable[[np.ndarray], np.ndarray]|None=None) -> tuple[np.ndarray, np.ndarray]:
  """q: (B, H, Nq, D), k and v: (B, Hkv, Nk, D). Returns the output (B, H, Nq, D) and the natural-log logsumexp (B, H, Nq), float64.
  GQA: query head h uses KV head h // (H // Hkv). causal masks key j > query i; keep (broadcast to (B, H, Nq, Nk), True keeps)
  masks more; score maps the scaled scores (B, H, Nq, Nk) to modified ones. A row with no key kept gets output 0 and
  logsumexp -inf."""
  q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
  group = q.shape[1] // k.shape[1]
  k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
  s = q @ k.swapaxes(-1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
  if score is not None: s = score(s)
  if causal: s = np.where(np.arange(k.shape[2])[None, :] > np.arange(q.shape[2])[:, None], -np.inf, s)
  if keep is not None: s = np.where(keep, s, -np.inf)
  m = s.max(-1, keepdims=True)
  m = np.where(np.isfinite(m), m, 0)
  p = np.exp(s - m)
  l = p.sum(-1, keepdims=True)
  with np.errstate(divide="ignore", invalid="ignore"):
    return np.where(l > 0, p / l, 0) @ v, np.where(l[..., 0] > 0, (m + np.log(l))[..., 0], -np.inf)

def kvcache_ref(q:np.ndarray, k_cache:np.ndarray, v_cache:np.ndarray, seqlens:np.ndarray, block_table:np.ndarray|None=None,
                causal:bool=False, scale:float|None=None, window:tuple|None=None, score:Callable|None=None,
                keep:Callable|None=None) -> tuple[np.ndarray, np.ndarray]:
  """flash_attention_with_kvcache in float64: the cache (B, Hkv, Nmax, D), or a paged pool (pages, Hkv, P, D) read through
  block_table (B, max_pages); lengths clamped to the cache; causal bottom-right (query i at position seqlens[b] - Nq + i).
  window (left, right), score(s, qpos, kpos) and keep(qpos, kpos) over those positions, (B, 1, Nq, 1) and (1, 1, 1, Nk)."""
  if block_table is not None:  # gather each sequence's pages into a dense cache
    pages, P = k_cache.shape[0], k_cache.shape[2]
    idx = np.clip(block_table, 0, pages - 1)
    k_cache, v_cache = (c[idx].transpose(0, 2, 1, 3, 4).reshape(idx.shape[0], c.shape[1], -1, c.shape[3]) for c in (k_cache, v_cache))
  Nq, Nk = q.shape[2], k_cache.shape[2]
  n = np.clip(seqlens, 0, Nk)[:, None, None, None]
  key, qpos = np.arange(Nk)[None, None, None, :], n - Nq + np.arange(Nq)[None, None, :, None]
  kept = (key < n) & ((key <= qpos) if causal else True)
  if window is not None and window[0] is not None: kept = kept & (key >= qpos - window[0])
  if window is not None and window[1] is not None: kept = kept & (key <= qpos + window[1])
  if keep is not None: kept = kept & keep(qpos, key)
  return attention_ref(q, k_cache, v_cache, scale=scale, keep=kept, score=None if score is None else lambda s: score(s, qpos, key))

def attention_bwd_ref(q:np.ndarray, k:np.ndarray, v:np.ndarray, do:np.ndarray, causal:bool=False, scale:float|None=None,
                      dlse:np.ndarray|None=None, keep:np.ndarray|None=None, score:Callable[[np.ndarray], np.ndarray]|None=None,
                      dscore:Callable[[np.ndarray], np.ndarray]|None=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """(dq, dk, dv) of attention_ref for the gradients do of its output and dlse of its logsumexp, float64; GQA's dk and dv
  summed over each group. score and its derivative dscore (of the scaled scores); rows with no key kept have zero gradients."""
  q, k, v, do = (np.asarray(x, dtype=np.float64) for x in (q, k, v, do))
  sc = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
  B, Hkv, Nk, D = k.shape
  group = q.shape[1] // Hkv
  kr, vr = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
  x = q @ kr.swapaxes(-1, -2) * sc
  s = x if score is None else score(x)
  if causal: s = np.where(np.arange(Nk)[None, :] > np.arange(q.shape[2])[:, None], -np.inf, s)
  if keep is not None: s = np.where(keep, s, -np.inf)
  m = s.max(-1, keepdims=True)
  p = np.exp(s - np.where(np.isfinite(m), m, 0))
  l = p.sum(-1, keepdims=True)
  with np.errstate(divide="ignore", invalid="ignore"): p = np.where(l > 0, p / l, 0)
  dv = p.swapaxes(-1, -2) @ do
  dp = do @ vr.swapaxes(-1, -2)
  ds = p * (dp - (dp * p).sum(-1, keepdims=True) + (0 if dlse is None else np.asarray(dlse, dtype=np.float64)[..., None]))
  if dscore is not None: ds = ds * np.where(p > 0, dscore(x), 0)
  dq, dk = ds @ kr * sc, ds.swapaxes(-1, -2) @ q * sc
  fold = lambda x: x.reshape(B, Hkv, group, Nk, D).sum(2)
  return dq, fold(dk), fold(dv)
