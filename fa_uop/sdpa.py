"""A drop-in for tinygrad's Tensor.scaled_dot_product_attention: its signature and answers, fa_uop's kernels wherever they apply
(an attn_mask goes through the mask machinery, indexed where it lies, never broadcast to the score matrix), tinygrad's own
SDPA elsewhere, with the reason logged once. patch() routes Tensor.scaled_dot_product_attention to it."""
from __future__ import annotations
import contextlib, functools, logging, math
from tinygrad import Tensor, dtypes
from tinygrad.helpers import TRAINING
from tinygrad.uop.ops import Ops
from fa_uop import shard
from fa_uop.api import flash_attention, HEAD_DIMS
from fa_uop.target import target_for

log = logging.getLogger("fa_uop")
_TINYGRAD = Tensor.scaled_dot_product_attention   # taken before any patch(): the fallback must not call the drop-in
_said: set[str] = set()

class ArgumentError(ValueError, RuntimeError):
  """bad arguments; also a RuntimeError, which tinygrad's SDPA raises for a mask given with is_causal"""

def _broadcast(a:tuple[int, ...], b:tuple[int, ...]) -> tuple[int, ...]|None:
  """numpy's broadcast of two shapes, or None where they do not broadcast"""
  n = max(len(a), len(b))
  a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
  if any(x != y and 1 not in (x, y) for x, y in zip(a, b)): return None
  return tuple(max(x, y) for x, y in zip(a, b))

@functools.cache
def _mask_mods(bool_mask:bool, spread:tuple[bool, bool, bool, bool]):
  """(mask_mod, score_mod) reading a mask buffer (Bm, Hm, Lm, Sm) where each axis is whole or 1 (spread: which are whole); one
  pair of functions per kind of mask, so the kernels built for one are found again for the next mask of that kind"""
  at = lambda m, *idx: m[tuple(i if s else 0 for i, s in zip(idx, spread))]
  if bool_mask: return (lambda b, h, qi, kj, m: at(m, b, h, qi, kj)), None
  return None, (lambda s, b, h, qi, kj, m: s + at(m, b, h, qi, kj).cast(dtypes.float32))

def _mask_plan(attn_mask:Tensor, lead:tuple[int, ...]) -> tuple[Tensor, tuple[bool, bool, bool, bool]]:
  """the mask as a (Bm, Hm, Lm, Sm) tensor for the kernel's (batch, head, query, key), each axis whole or 1, and which are whole.
  It stays as small as it came: an expand on top is taken off, and it is expanded only over those of q's batch axes it spreads
  over some but not all of (never over queries or keys)."""
  while attn_mask.uop.op is Ops.EXPAND: attn_mask = Tensor(attn_mask.uop.src[0])
  nb = max(len(lead) - 1, 0)                                       # q's batch axes: all but the heads
  m = attn_mask.reshape((1,) * (len(lead) + 2 - attn_mask.ndim) + attn_mask.shape)
  if len(lead) < 1: m = m.reshape(1, *m.shape)
  mb = m.shape[:nb]
  if 1 in mb and any(x != 1 for x in mb): m = m.expand(*lead[:-1], *m.shape[nb:])
  m = m.reshape(math.prod(m.shape[:nb]), *m.shape[nb:])
  return m, tuple(x > 1 for x in m.shape)

def _fallback(reason:str, q:Tensor, k:Tensor, v:Tensor, attn_mask, dropout_p, is_causal, enable_gqa, scale) -> Tensor:
  if reason not in _said:
    _said.add(reason)
    log.warning("fa_uop.scaled_dot_product_attention: tinygrad's SDPA runs this call (%s); later calls for this reason say nothing", reason)
  if scale is not None: q = q * (scale * math.sqrt(q.shape[-1]))   # tinygrad scales by 1/sqrt(E)
  return _TINYGRAD(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, enable_gqa=enable_gqa)

def scaled_dot_product_attention(q:Tensor, k:Tensor, v:Tensor, attn_mask:Tensor|None=None, dropout_p:float=0.0, is_causal:bool=False,
                                 enable_gqa:bool=False, scale:float|None=None) -> Tensor:
  """tinygrad's Tensor.scaled_dot_product_attention (q.scaled_dot_product_attention(k, v, ...)), plus scale (default 1/sqrt(E)).

  q (..., L, E), k (..., S, E), v (..., S, E): any leading axes, the last of them the heads. enable_gqa: k and v have H/G heads
  for q's H, query head h reading KV head h // G (tinygrad's repeat_interleave); without it k's and v's leading axes broadcast
  against q's (one KV head serves all). attn_mask broadcasts to the scores (..., L, S): boolean (True keeps the pair) or
  additive (float); is_causal keeps key j <= query i (top-left) and takes no mask. dropout_p applies while training (Context(TRAINING=1)), as in tinygrad.
  fa_uop's kernels (forward and backward) run for float16 and bfloat16 inputs of one dtype with E in HEAD_DIMS on a device fa_uop
  targets, outside training dropout, with the batch axes of q, k and v alike: a boolean mask as a mask_mod (tiles it hides are
  skipped), an additive one added to the scores as a score_mod, each read where it lies, per key, per query or whole. The mask
  gets no gradient: while training an additive mask computed from float tensors (a learned bias) goes to tinygrad.
  fp8 inputs (one 8-bit float for q, k and v that the target's fp8 MMA takes: e4m3/e5m2 on sm_89+, gfx950 and RDNA4, the fnuz
  formats on gfx942; E a multiple of the MMA's K) run fa_uop's fp8 forward with descales 1 and return bfloat16, as flash_attention
  does (not q's dtype: an fp8 output would round away most of what the float32 accumulation kept), on one device and with no grad
  required (the fp8 kernels are forward-only).
  Otherwise tinygrad's own SDPA runs (the reason logged once, to the "fa_uop" logger).
  A query row the mask hides entirely gives 0 here; tinygrad's SDPA gives NaN there."""
  for name, t in (("q", q), ("k", k), ("v", v)):
    if not isinstance(t, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(t).__name__}")
    if t.ndim < 2: raise ValueError(f"{name} must have at least 2 axes (..., N, E), got shape {t.shape}")
  if attn_mask is not None and not isinstance(attn_mask, Tensor): raise TypeError(f"attn_mask must be a tinygrad Tensor or None, got {type(attn_mask).__name__}")
  if not isinstance(dropout_p, (int, float)) or isinstance(dropout_p, bool) or not 0 <= dropout_p <= 1:
    raise ValueError(f"dropout_p must be a float in [0, 1], got {dropout_p!r}")
  if is_causal and attn_mask is not None: raise ArgumentError("cannot set attn_mask when is_causal=True")
  if scale is not None and (not isinstance(scale, (int, float)) or isinstance(scale, bool) or not math.isfinite(scale)):
    raise TypeError(f"scale must be a finite float or None, got {scale!r}")
  if k.shape[-1] != q.shape[-1]: raise ValueError(f"k's last axis must be q's E={q.shape[-1]}, got shape {k.shape}")
  if v.shape[-2] != k.shape[-2] or v.shape[:-2] != k.shape[:-2]: raise ValueError(f"v {v.shape} must match k {k.shape} but for its last axis")
  if enable_gqa and (q.ndim < 3 or k.ndim < 3 or q.shape[-3] % k.shape[-3]):
    raise ValueError(f"enable_gqa: q's heads (axis -3) must be a multiple of k's, got q {q.shape}, k {k.shape}")
  L, S, E = q.shape[-2], k.shape[-2], q.shape[-1]
  lead, klead = q.shape[:-2], k.shape[:-2]
  if attn_mask is not None and _broadcast(attn_mask.shape, (*lead, L, S)) != (*lead, L, S):
    raise ValueError(f"attn_mask {attn_mask.shape} does not broadcast to the scores {(*lead, L, S)}")
  args = (q, k, v, attn_mask, dropout_p, is_causal, enable_gqa, scale)
  fp8 = q.dtype in dtypes.fp8s
  if not (q.dtype == k.dtype == v.dtype and (q.dtype in (dtypes.half, dtypes.bfloat16) or fp8)):
    return _fallback("dtypes other than one of float16, bfloat16 or an fp8 format", *args)
  if v.shape[-1] != E or E not in HEAD_DIMS: return _fallback(f"head dims other than {HEAD_DIMS}, alike for q, k and v", *args)
  if dropout_p > 0 and TRAINING: return _fallback("dropout while training", *args)
  if min(L, S) == 0 or q.shape[:-2].count(0): return _fallback("empty", *args)
  try: target = target_for(shard.device(q))
  except ValueError: return _fallback(f"device {q.device} has no fa_uop target", *args)
  if fp8:
    try: K = target.for_dtype(q.dtype).mma[2]
    except TypeError: return _fallback(f"{q.dtype} on {target.arch}, which has no MMA fa_uop takes it by", *args)
    if E % K: return _fallback(f"fp8 head dims other than multiples of the fp8 MMA's K={K}", *args)
    if not isinstance(q.device, str): return _fallback("fp8 on several devices (fa_uop's fp8 runs on one)", *args)
    if any(getattr(t, "requires_grad", False) for t in (q, k, v)): return _fallback("fp8 inputs requiring grad (fa_uop's fp8 is forward-only)", *args)
  if not (q.device == k.device == v.device) or (attn_mask is not None and attn_mask.device != q.device):
    return _fallback("tensors on different devices", *args)
  # (B, H, N, E) views: q's batch axes must be k's, and k's heads q's (or one for all, or q's over G with enable_gqa)
  H, Hk = (lead[-1] if lead else 1), (klead[-1] if klead else 1)
  if len(klead) != len(lead) or klead[:-1] != lead[:-1] or not (Hk == H or Hk == 1 or enable_gqa):
    return _fallback("k's and v's leading axes other than q's but for the heads", *args)
  B = math.prod(lead[:-1])
  q4, k4, v4 = q.reshape(B, H, L, E), k.reshape(B, Hk, S, E), v.reshape(B, Hk, S, E)
  ax = shard.axis(q4)
  if not isinstance(q.device, str) and (ax not in (None, 0, 1, 2) or not shard.axis(q4) == shard.axis(k4) == shard.axis(v4)):
    return _fallback("q, k and v sharded other than alike over batch, heads or the sequence", *args)
  mods: dict = {}
  if attn_mask is not None:
    # the kernels give the mask no gradient: an additive one computed from float data while training may be learned
    if attn_mask.dtype != dtypes.bool and TRAINING and any(u.op is Ops.BUFFER and dtypes.is_float(u.dtype) for u in attn_mask.uop.toposort()):
      return _fallback("an additive attn_mask computed from float tensors while training (it may need its gradient)", *args)
    m, spread = _mask_plan(attn_mask, lead)
    # (sharded over the sequence the kernels read the mask at the rows' global positions: whole on each device, it may spread over them)
    if ax is not None and ((ax < 2 and spread[ax]) or shard.axis(m) is not None):
      return _fallback("an attn_mask over the batch or heads q is sharded over, or a sharded attn_mask", *args)
    mask_mod, score_mod = _mask_mods(attn_mask.dtype == dtypes.bool, spread)
    mods = dict(mask_mod=mask_mod, score_mod=score_mod, mod_args=(m,))
  return flash_attention(q4, k4, v4, causal=is_causal, scale=scale, **mods).reshape(*lead, L, E)

@contextlib.contextmanager
def patch():
  """Within it, Tensor.scaled_dot_product_attention is fa_uop's drop-in: code written for tinygrad's SDPA runs fa_uop's kernels
  unchanged. The original is back on exit, whatever happened inside."""
  name = "scaled_dot_product_attention"
  own, before = name in Tensor.__dict__, Tensor.__dict__.get(name)
  def method(self, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, enable_gqa=False):
    return scaled_dot_product_attention(self, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
  setattr(Tensor, name, method)
  try: yield
  finally:
    if own: setattr(Tensor, name, before)
    else: delattr(Tensor, name)
