"""The user-facing API on tinygrad Tensors."""
from __future__ import annotations
import functools, math
from tinygrad import Tensor, UOp, dtypes
from fa_uop import tune
from fa_uop.backward import flash_bwd_dkdv, flash_bwd_dq
from fa_uop.config import BwdConfig, FwdConfig, default_bwd_configs
from fa_uop.forward import flash_fwd
from fa_uop.target import Target, target_for

HEAD_DIMS = (16, 32, 48, 64, 80, 96, 112, 128)

def _check(q, k, v, causal, scale) -> Target:
  for name, t in (("q", q), ("k", k), ("v", v)):
    if not isinstance(t, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(t).__name__}")
    if t.ndim != 4: raise ValueError(f"{name} must have rank 4, (B, H, N, D) for q and (B, Hkv, N, D) for k and v; got shape {t.shape}")
    if t.dtype not in (dtypes.half, dtypes.bfloat16): raise TypeError(f"{name} must be float16 or bfloat16, got {t.dtype}")
  if not q.dtype == k.dtype == v.dtype: raise TypeError(f"q, k and v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
  if not q.device == k.device == v.device: raise ValueError(f"q, k and v must be on one device, got {q.device}, {k.device}, {v.device}")
  if not isinstance(causal, bool): raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
  if scale is not None and (not isinstance(scale, (int, float)) or isinstance(scale, bool) or not math.isfinite(scale)):
    raise TypeError(f"scale must be a finite float or None, got {scale!r}")
  (B, H, Nq, D), (Bk, Hkv, Nk, Dk) = q.shape, k.shape
  if v.shape != k.shape: raise ValueError(f"v must have k's shape {k.shape}, got {v.shape}")
  if Bk != B: raise ValueError(f"k has batch {Bk}, q has batch {B}")
  if Dk != D: raise ValueError(f"k has head dim {Dk}, q has head dim {D}")
  if Hkv < 1 or H % Hkv: raise ValueError(f"q's heads H={H} must be a multiple of k's and v's heads Hkv={Hkv}")
  if min(B, H, Nq, Nk) < 1: raise ValueError(f"empty attention: q {q.shape}, k {k.shape}")
  if D not in HEAD_DIMS: raise ValueError(f"head dim D={D} is not supported; supported: {HEAD_DIMS}")
  return target_for(q.device if isinstance(q.device, str) else q.device[0])

@functools.cache
def _fwd_builder(target:Target, cfg:FwdConfig, causal:bool, scale:float|None):
  """the kernel builder for custom_kernel, caching each sink by its placeholders (UOps are interned, so a second call with the
  same shapes gets the same sink and tinygrad's program cache finds the compiled kernel: nothing is built again)"""
  return functools.cache(lambda *ps: flash_fwd(*ps, target=target, cfg=cfg, causal=causal, scale=scale))

@functools.cache
def _bwd_builders(target:Target, dkdv:BwdConfig, dq:BwdConfig, causal:bool, scale:float|None):
  return (functools.cache(lambda *ps: flash_bwd_dkdv(*ps, target=target, cfg=dkdv, causal=causal, scale=scale)),
          functools.cache(lambda *ps: flash_bwd_dq(*ps, target=target, cfg=dq, causal=causal, scale=scale)))

def flash_attention_backward(q:Tensor, k:Tensor, v:Tensor, o:Tensor, lse:Tensor, do:Tensor, dlse:Tensor|None=None, causal:bool=False,
                             scale:float|None=None, configs:tuple[BwdConfig, BwdConfig]|None=None) -> tuple[Tensor, Tensor, Tensor]:
  """Gradients (dq, dk, dv) of flash_attention, in the inputs' dtype, from its output o and logsumexp lse and the gradient do
  of o (and dlse of lse, if the loss used it). Shapes as in flash_attention; GQA's dk and dv sum over the query heads that
  share a KV head, with no copies of K or V. delta = rowsum(do ∘ o) − dlse, then the dK/dV and the dQ kernels."""
  target = _check(q, k, v, causal, scale)
  B, H, Nq, D = q.shape
  for name, x, shape in (("o", o, q.shape), ("do", do, q.shape), ("lse", lse, (B, H, Nq)), ("dlse", dlse, (B, H, Nq))):
    if x is None and name == "dlse": continue
    if not isinstance(x, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(x).__name__}")
    if x.shape != shape: raise ValueError(f"{name} must have shape {shape}, got {x.shape}")
    if x.device != q.device: raise ValueError(f"{name} must be on q's device {q.device}, got {x.device}")
    if not dtypes.is_float(x.dtype): raise TypeError(f"{name} must be a float tensor, got {x.dtype}")
  if configs is not None and (len(configs) != 2 or not all(isinstance(c, BwdConfig) for c in configs)):
    raise TypeError(f"configs must be a pair of BwdConfig (dK/dV, dQ), got {configs!r}")
  cfg_dkdv, cfg_dq = configs or default_bwd_configs(target, D)
  for c in (cfg_dkdv, cfg_dq): c.check(target, q.shape[3])
  delta = (do.float() * o.float()).sum(-1)
  if dlse is not None: delta = delta - dlse.float()
  f_dkdv, f_dq = _bwd_builders(target, cfg_dkdv, cfg_dq, causal, scale)
  ins = (q.contiguous(), k.contiguous(), v.contiguous(), do.cast(q.dtype).contiguous(), lse.float().contiguous(), delta.contiguous())
  dk, dv = (Tensor.empty(*k.shape, dtype=k.dtype, device=k.device) for _ in range(2))
  dk, dv = Tensor.custom_kernel(*ins, dk, dv, fxn=f_dkdv)[6:]
  dq = Tensor.custom_kernel(*ins, Tensor.empty(*q.shape, dtype=q.dtype, device=q.device), fxn=f_dq)[6]
  return dq, dk, dv

def _fwd_grad(target:Target, causal:bool, scale:float|None):
  """the custom kernel's grad_fxn: tinygrad hands it the gradients of the outputs the loss used (o, lse, or both) and the call"""
  def grad_fxn(*grads:UOp, call:UOp|None=None):
    if call is None: *grads, call = grads
    q, k, v, o, lse = call.src[1:]
    by_rank = {len(g.shape): Tensor(g) for g in grads}  # o's gradient is (B, H, Nq, D), lse's (B, H, Nq)
    o_val, lse_val = Tensor(o.after(call)), Tensor(lse.after(call))
    do = by_rank.get(4, o_val.zeros_like())
    dq, dk, dv = flash_attention_backward(Tensor(q), Tensor(k), Tensor(v), o_val, lse_val, do, by_rank.get(3), causal, scale)
    return (dq.uop, dk.uop, dv.uop, None, None)
  return grad_fxn

def _run_fwd(cfg:FwdConfig, q:Tensor, k:Tensor, v:Tensor, target:Target, causal:bool, scale:float|None) -> tuple[Tensor, Tensor]:
  B, H, Nq, D = q.shape
  o = Tensor.empty(B, H, Nq, D, dtype=q.dtype, device=q.device)
  lse = Tensor.empty(B, H, Nq, dtype=dtypes.float32, device=q.device)
  outs = Tensor.custom_kernel(q.contiguous(), k.contiguous(), v.contiguous(), o, lse, fxn=_fwd_builder(target, cfg, causal, scale),
                              grad_fxn=_fwd_grad(target, causal, scale))
  return outs[3], outs[4]

def flash_attention(q:Tensor, k:Tensor, v:Tensor, causal:bool=False, scale:float|None=None, return_lse:bool=False,
                    config:FwdConfig|None=None) -> Tensor|tuple[Tensor, Tensor]:
  """Scaled dot-product attention softmax(q·kᵀ·scale)·v, computed tile by tile without the N×N score matrix.

  q: (B, H, Nq, D); k, v: (B, Hkv, Nk, D), with H a multiple of Hkv (GQA/MQA: query head h reads KV head h // (H // Hkv)).
  float16 or bfloat16, all three alike; accumulation in float32; any Nq, Nk ≥ 1.
  D: a multiple of the MMA K (16) up to 128, i.e. one of 16, 32, 48, 64, 80, 96, 112, 128.
  causal masks key j > query i, top-left aligned as in tinygrad's and PyTorch's SDPA. scale defaults to 1/sqrt(D).
  Returns the output (B, H, Nq, D) in q's dtype and, with return_lse, the natural-log row logsumexp (B, H, Nq) in float32.
  config picks the tiling; by default the tuner's choice for this shape class (fa_uop.tune), or the fixed default where tuning
  is off. Targets: AMD RDNA3 (gfx11xx) and NVIDIA sm_80 and newer, and tinygrad's emulator of either (DEV=PYTHON::gfx1100 / ::sm_80)."""
  target = _check(q, k, v, causal, scale)
  if config is not None: config.check(target, q.shape[3])
  else:
    run = functools.partial(lambda cfg, q_, k_, v_: _run_fwd(cfg, q_, k_, v_, target, causal, scale)[0].realize())
    config = tune.fwd_config(target, q.device, q.shape, k.shape[2], k.shape[1], q.dtype, causal, scale, run)
  o, lse = _run_fwd(config, q, k, v, target, causal, scale)
  return (o, lse) if return_lse else o
