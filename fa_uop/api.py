"""The user-facing API on tinygrad Tensors."""
from __future__ import annotations
import functools, math, os
from typing import Callable
from tinygrad import Tensor, UOp, dtypes
from tinygrad.helpers import round_up
from tinygrad.function import function
from fa_uop import tune, shard
from fa_uop.backward import flash_bwd_delta, flash_bwd_dkdv, flash_bwd_dq
from fa_uop.config import BwdConfig, FwdConfig, default_bwd_configs, default_fwd_config, default_decode_config, decode_splits, split_kv
from fa_uop.decode import flash_decode, flash_combine, flash_kv_write
from fa_uop.forward import flash_fwd, flash_tma_maps, flash_vt
from fa_uop.mods import Mods, stand_ins, args_read, only_read, at_positions
from fa_uop.blockmap import block_map, RESIDENT
from fa_uop.target import Target, target_for, multiprocessors, tensor_map_template

HEAD_DIMS = tuple(range(16, 257, 16))

def _check(q, k, v, causal, scale, kn:str="k", vn:str="v", batch:bool=True, fp8:bool=False, seq:bool=False) -> Target:
  """the checks every entry point shares, k and v named kn and vn in the messages; batch: k's batch must be q's (else k is a
  paged pool, which can be sharded over heads only); fp8: the entry point takes 8-bit floats where the target's fp8 MMA does;
  seq: it takes tensors sharded over the sequence too (the ring, _ring_fwd)"""
  for name, t in (("q", q), (kn, k), (vn, v)):
    if not isinstance(t, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(t).__name__}")
    if t.ndim != 4: raise ValueError(f"{name} must have rank 4, (B, H, N, D) for q and (B, Hkv, N, D) for {kn} and {vn}; got shape {t.shape}")
    if t.dtype not in (dtypes.half, dtypes.bfloat16) and not (fp8 and t.dtype in dtypes.fp8s):
      raise TypeError(f"{name} must be float16 or bfloat16{' (or an fp8 format the target takes)' if fp8 else ''}, got {t.dtype}")
  if not q.dtype == k.dtype == v.dtype: raise TypeError(f"q, {kn} and {vn} must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
  if not q.device == k.device == v.device: raise ValueError(f"q, {kn} and {vn} must be on one device, got {q.device}, {k.device}, {v.device}")
  if not isinstance(causal, bool): raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
  if scale is not None and (not isinstance(scale, (int, float)) or isinstance(scale, bool) or not math.isfinite(scale)):
    raise TypeError(f"scale must be a finite float or None, got {scale!r}")
  (B, H, Nq, D), (Bk, Hkv, Nk, Dk) = q.shape, k.shape
  if v.shape != k.shape: raise ValueError(f"{vn} must have {kn}'s shape {k.shape}, got {v.shape}")
  if batch and Bk != B: raise ValueError(f"{kn} has batch {Bk}, q has batch {B}")
  if Dk != D: raise ValueError(f"{kn} has head dim {Dk}, q has head dim {D}")
  if Hkv < 1 or H % Hkv: raise ValueError(f"q's heads H={H} must be a multiple of {kn}'s and {vn}'s heads Hkv={Hkv}")
  if min(B, H, Nq, Nk, Bk) < 1: raise ValueError(f"empty attention: q {q.shape}, {kn} {k.shape}")
  if D not in HEAD_DIMS: raise ValueError(f"head dim D={D} is not supported; supported: the multiples of 16 up to 256")
  shard.check(("q", kn, vn), (q, k, v), ((0, 1, 2) if seq else (0, 1)) if batch else (1,))
  targets = {target_for(d) for d in ((q.device,) if isinstance(q.device, str) else q.device)}
  if len(targets) > 1: raise ValueError(f"q's devices {q.device} are of different kinds: {sorted(t.arch for t in targets)}")
  target = targets.pop()
  target.for_dtype(q.dtype)   # a TypeError where the target has no MMA for it (fp8 on sm_80, RDNA)
  return target

def _mods(q:Tensor, causal:bool, window, softcap, score_mod, mask_mod, mod_args) -> tuple[Mods, tuple[Tensor, ...]]:
  """the modifications of one call, checked before any kernel is built, and the mod_args its kernels get: those the mods read (the
  mods wrapped to take only those, fa_uop.mods.picked)"""
  if window is not None:
    if not isinstance(window, (tuple, list)) or len(window) != 2:
      raise TypeError(f"window must be a pair (left, right) of ints >= 0 or None, got {window!r}")
    for side, w in zip(("left", "right"), window):
      if w is not None and (not isinstance(w, int) or isinstance(w, bool)): raise TypeError(f"window's {side} side must be an int or None, got {w!r}")
      if w is not None and w < 0: raise ValueError(f"window's {side} side must be >= 0, got {w}")
  if softcap is not None:
    if not isinstance(softcap, (int, float)) or isinstance(softcap, bool): raise TypeError(f"softcap must be a float > 0 or None, got {softcap!r}")
    if not (math.isfinite(softcap) and softcap > 0): raise ValueError(f"softcap must be a finite float > 0, got {softcap}")
  if not isinstance(mod_args, (tuple, list)): raise TypeError(f"mod_args must be a tuple of tinygrad Tensors, got {type(mod_args).__name__}")
  for i, t in enumerate(mod_args):
    if not isinstance(t, Tensor): raise TypeError(f"mod_args[{i}] must be a tinygrad Tensor, got {type(t).__name__}")
    if t.device != q.device: raise ValueError(f"mod_args[{i}] must be on q's device {q.device}, got {t.device}")
    if getattr(t, "requires_grad", False): raise ValueError(f"mod_args[{i}] requires grad: the mods' buffers receive no gradient")
    if shard.axis(t) is not None: raise ValueError(f"mod_args[{i}] is sharded over axis {shard.axis(t)}: the mods index it whole, replicate it")
  B, H, Nq, _ = q.shape
  # the mods are called once here on stand-ins of the kernel's UOps, to check what they return
  idx, args = stand_ins(B, H, [(t.shape, t.dtype) for t in mod_args])
  read, bufs = set(), set()
  for name, fn, want, call in (("score_mod", score_mod, "float", lambda: score_mod(UOp.placeholder((1,), dtypes.float, 15)[0], *idx, *args)),
                               ("mask_mod", mask_mod, "bool", lambda: mask_mod(*idx, *args))):
    if fn is None: continue
    if not callable(fn): raise TypeError(f"{name} must be callable, got {type(fn).__name__}")
    out = call()
    if not (isinstance(out, UOp) and (dtypes.is_float(out.dtype) if want == "float" else out.dtype == dtypes.bool)):
      hint = " (UOps compare with .eq() and .ne(): == and != compare the objects)" if isinstance(out, bool) else ""
      raise TypeError(f"{name} must return a {want} UOp, got {getattr(out, 'dtype', type(out).__name__)}{hint}")
    read |= {getattr(u.arg, "name", None) for u in out.toposort()}
    bufs |= set(args_read(out, args))
  # a kernel sees its shard's batch entries and heads from 0: a mod reading the index of the sharded axis would read others' data
  if (ax:=shard.axis(q)) in (0, 1) and (n:="bh"[ax]) in read:
    raise ValueError(f"a mod reads {n}, the index of the axis q is sharded over ({shard.AXES[ax]}): each device would see its shard's "
                     f"{shard.AXES[ax]} from 0; shard over the other axis, or not at all")
  (score_mod, mask_mod), mod_args = only_read(tuple(sorted(bufs)), mod_args, (score_mod, 5), (mask_mod, 4))
  return Mods(causal, tuple(window) if window is not None else (None, None), None if softcap is None else float(softcap), score_mod, mask_mod,
              len(mod_args)), mod_args

@functools.cache
def _fwd_builder(target:Target, cfg:FwdConfig, mods:Mods, scale:float|None, tma:bool=False, sms:int=0):
  """the kernel builder for custom_kernel, caching each sink by its placeholders (UOps are interned, so a second call with the
  same shapes gets the same sink and tinygrad's program cache finds the compiled kernel: nothing is built again)"""
  return functools.cache(lambda *ps: flash_fwd(*ps, target=target, cfg=cfg, scale=scale, mods=mods, tma=tma, sms=sms))

def _uses_tma(target:Target, cfg:FwdConfig, q:Tensor) -> bool:
  """K and V by Hopper's bulk tensor copies: where the config asks (the tuner tries both) or FA_UOP_TMA=1 forces them (0: never; A/B
  runs), where wgmma runs; on several devices too, each with maps of its own shards (_tensor_maps)"""
  want = cfg.tma if (env:=os.environ.get("FA_UOP_TMA")) not in ("0", "1") else env == "1"
  target = target.for_dtype(q.dtype)
  return want and target.tma is not None and cfg.by_wgmma(target, q.shape[3])

@functools.cache
def _tma_template(device:str|tuple[str, ...], dtype, D:int, Nk:int, planes:int, rows:int, nkp:int=0, vt_box:int=128) -> Tensor:
  """K's tensor map template, then V's: the same, or where nkp Vᵀ's, (planes, D, nkp) in boxes of D rows and vt_box bytes of keys, the
  forward's swizzle atom of its Vᵀ tile (fa_uop.api.vt_layout); on every device of a sharded call (its shards' shapes alike)"""
  import numpy as np
  kmap = tensor_map_template(dtype, D, Nk, planes, rows)
  vmap = tensor_map_template(dtype, nkp, D, planes, D, vt_box) if nkp else kmap
  t = Tensor(np.frombuffer(kmap + vmap, dtype=np.uint64).copy())
  return (t.to(device) if isinstance(device, str) else t.shard(device)).realize()

@functools.cache
def _maps_builder(target:Target): return functools.cache(lambda *ps: flash_tma_maps(*ps, target=target))

def _tensor_maps(target:Target, k:Tensor, v:Tensor, cfg:FwdConfig|BwdConfig, compile_only:bool=False, q_rows:bool=False) -> Tensor:
  """the forward's tensor maps of k and v (contiguous; v as the forward reads it: Vᵀ where cfg.reads_vt), pointed at their buffers by
  a kernel of their own; the backward's ring's of q and do alike (boxes of its block_n query rows); with q_rows a persistent forward's
  of q (k and v both q: boxes of its block_m rows). Sharded, each device's maps of its own shards (shard.own)"""
  (B, Hkv, Nk, D), vshape = shard.local_shape(k), shard.local_shape(v)
  if not compile_only: _compile_maps(target, shard.device(k), k.dtype, (B, Hkv, Nk, D), vshape, cfg, q_rows)
  t8 = target.for_dtype(k.dtype)
  vt = isinstance(cfg, FwdConfig) and cfg.reads_vt(t8, D) and not q_rows
  rows = cfg.block_m if q_rows else cfg.block_n
  tmpl = _tma_template(k.device, k.dtype, D, Nk, B * Hkv, rows, vshape[3] if vt else 0, t8.atom_for(rows) * k.dtype.itemsize if vt else 128)
  return Tensor.custom_kernel(tmpl, k, v, shard.own(k, 32, dtypes.uint64), fxn=_maps_builder(target))[3]

def _ring_maps(target:Target, cfgs:tuple[BwdConfig, BwdConfig], q:Tensor, k:Tensor, v:Tensor, do:Tensor) -> tuple[tuple[Tensor, ...], ...]:
  """the backward kernels' last arguments where a producer's ring copies their tiles: the tensor maps of q and do (dK/dV), of k and v (dQ)"""
  return tuple((_tensor_maps(target, *xs, c),) if c.tma else () for c, xs in zip(cfgs, ((q, do), (k, v))))

@functools.cache
def _compile_maps(target:Target, device:str, dtype, shape:tuple[int, ...], vshape:tuple[int, ...], cfg:FwdConfig|BwdConfig, q_rows:bool=False) -> None:
  """compile the maps' kernel now, alone, on buffers never allocated: tinygrad compiles the new kernels of one realize in worker
  processes once there are two, and starting them and sending them the forward cost a first call about a second (H100)"""
  from tinygrad.engine.realize import lower_and_compile
  lower_and_compile(_tensor_maps(target, *(Tensor.empty(*s, dtype=dtype, device=device) for s in (shape, vshape)), cfg, True, q_rows).linear_with_vars()[0])

@functools.cache
def _delta_builder(target:Target): return functools.cache(lambda *ps: flash_bwd_delta(*ps, target=target))

@functools.cache
def _bwd_builders(target:Target, dkdv:BwdConfig, dq:BwdConfig, mods:Mods, scale:float|None):
  return (functools.cache(lambda *ps: flash_bwd_dkdv(*ps, target=target, cfg=dkdv, scale=scale, mods=mods)),
          functools.cache(lambda *ps: flash_bwd_dq(*ps, target=target, cfg=dq, scale=scale, mods=mods)))

def flash_attention_backward(q:Tensor, k:Tensor, v:Tensor, o:Tensor, lse:Tensor, do:Tensor, dlse:Tensor|None=None, causal:bool=False,
                             scale:float|None=None, configs:tuple[BwdConfig, BwdConfig]|None=None, window=None, softcap=None,
                             score_mod=None, mask_mod=None, mod_args=(), layout:str="contiguous") -> tuple[Tensor, Tensor, Tensor]:
  """Gradients (dq, dk, dv) of flash_attention, in the inputs' dtype, from its output o and logsumexp lse and the gradient do
  of o (and dlse of lse, if the loss used it). Shapes and modifications as in flash_attention; GQA's dk and dv sum over the
  query heads that share a KV head, with no copies of K or V. delta = rowsum(do ∘ o) − dlse, then the dK/dV and the dQ kernels.
  softcap's derivative is 1 - tanh², score_mod's tinygrad's UOp gradient; mod_args get no gradient. Sharded over the sequence
  (layout as flash_attention's): the ring's backward, o, lse and do sharded as q."""
  target = _check(q, k, v, causal, scale, seq=True)
  mods, mod_args = _mods(q, causal, window, softcap, score_mod, mask_mod, mod_args)
  _layout(q, k, layout)
  return _backward(target, mods, q, k, v, o, lse, do, dlse, scale, configs, mod_args, layout)

def _backward(target:Target, mods:Mods, q:Tensor, k:Tensor, v:Tensor, o:Tensor, lse:Tensor, do:Tensor, dlse:Tensor|None, scale:float|None,
              configs:tuple[BwdConfig, BwdConfig]|None, mod_args:tuple[Tensor, ...], layout:str="contiguous", moved:tuple[Tensor, ...]=()) -> \
    tuple[Tensor, Tensor, Tensor]:
  B, H, Nq, D = q.shape
  for name, x, shape in (("o", o, q.shape), ("do", do, q.shape), ("lse", lse, (B, H, Nq)), ("dlse", dlse, (B, H, Nq))):
    if x is None and name == "dlse": continue
    if not isinstance(x, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(x).__name__}")
    if x.shape != shape: raise ValueError(f"{name} must have shape {shape}, got {x.shape}")
    if x.device != q.device: raise ValueError(f"{name} must be on q's device {q.device}, got {x.device}")
    if not dtypes.is_float(x.dtype): raise TypeError(f"{name} must be a float tensor, got {x.dtype}")
  shard.check(("q", "o", "lse", "do"), (q, o, lse, do), (0, 1, 2))
  if configs is not None and (len(configs) != 2 or not all(isinstance(c, BwdConfig) for c in configs)):
    raise TypeError(f"configs must be a pair of BwdConfig (dK/dV, dQ), got {configs!r}")
  one_device = isinstance(q.device, str)
  kmods = at_positions(mods) if shard.axis(q) == 2 else mods   # the kernels' (a sequence-sharded call's over global positions)
  cfg_dkdv, cfg_dq = configs or default_bwd_configs(target, D, kmods.tag, one_device=one_device, group=H // k.shape[1])
  for c in (cfg_dkdv, cfg_dq): c.check(target, q.shape[3])
  if cfg_dq.dq: raise ValueError(f"{cfg_dq}: the dQ accumulation (q) is the dK/dV config's, which then runs no dQ kernel")
  if cfg_dkdv.dq and shard.axis(q) == 2: raise ValueError(f"{cfg_dkdv}: the dQ accumulation (q) runs on one device or over batch or heads, not over the sequence")
  for c in (cfg_dkdv, cfg_dq):
    if c.tma and not one_device: raise ValueError(f"{c}: the backward's ring runs on one device")
    # a window or mask_mod: causal dK/dV's ring for one query head a KV head (their tiles differ by head; built and GPU-tested so
    # only), dQ's not (timed alone, no gain)
    if c.tma and mods.masks_more and (c is cfg_dq or H != k.shape[1] or not mods.causal):
      raise ValueError(f"{c}: under a window or mask_mod the backward's ring is causal dK/dV's, with one query head a KV head")
  do = do.cast(q.dtype).contiguous()
  delta = Tensor.custom_kernel(o.cast(q.dtype).contiguous(), do, shard.empty(lse, (B, H, Nq), dtypes.float32),
                               *(() if dlse is None else (dlse.float().contiguous(),)), fxn=_delta_builder(target))[2]
  lse = lse.float().contiguous()
  if shard.axis(q) == 2: return _ring_bwd(target, mods, (cfg_dkdv, cfg_dq), q, k, v, do, lse, delta, scale, mod_args, layout, moved)
  return _bwd_kernels(target, mods, (cfg_dkdv, cfg_dq), q, k, v, do, lse, delta, scale, mod_args)

def _bwd_kernels(target:Target, mods:Mods, cfgs:tuple[BwdConfig, BwdConfig], q:Tensor, k:Tensor, v:Tensor, do:Tensor, lse:Tensor,
                 delta:Tensor, scale:float|None, mod_args:tuple[Tensor, ...]) -> tuple[Tensor, Tensor, Tensor]:
  """(dq, dk, dv) by the dK/dV and dQ kernels (or dK/dV's with the dQ accumulation) from do, lse and delta"""
  (B, H, Nq, D), (cfg_dkdv, cfg_dq) = q.shape, cfgs
  f_dkdv, f_dq = _bwd_builders(target, cfg_dkdv, cfg_dq, mods, scale)
  ins = (q.contiguous(), k.contiguous(), v.contiguous(), do, lse, delta)
  args = tuple(t.contiguous() for t in mod_args)
  maps = ((), ()) if mods.mask_mod is None else \
    (_block_map(target, mods, mod_args, q, k, cfg_dkdv, keys=False, group=H // k.shape[1]), _block_map(target, mods, mod_args, q, k, cfg_dq))
  dk, dv = (shard.empty(k, k.shape, k.dtype) for _ in range(2))
  if not cfg_dkdv.dq:
    tmaps = _ring_maps(target, (cfg_dkdv, cfg_dq), *ins[:3], do)
    dk, dv = Tensor.custom_kernel(*ins, dk, dv, *args, *maps[0], *tmaps[0], fxn=f_dkdv)[6:8]
    return Tensor.custom_kernel(*ins, shard.empty(q, q.shape, q.dtype), *args, *maps[1], *tmaps[1], fxn=f_dq)[6], dk, dv
  # dQ accumulated by the dK/dV kernel into float32 zeros (whole query tiles), then scaled and rounded
  nq = -(-Nq // cfg_dkdv.block_n) * cfg_dkdv.block_n
  dqa = shard.alike(q, (B, H, nq, D), lambda s, d: Tensor.zeros(*s, dtype=dtypes.float32, device=d).contiguous())
  dk, dv, dqa = Tensor.custom_kernel(*ins, dk, dv, dqa, *args, *maps[0], fxn=f_dkdv)[6:9]
  return (dqa[:, :, :Nq] * (1 / math.sqrt(D) if scale is None else scale)).cast(q.dtype), dk, dv

def _out_grads(grads:tuple[UOp, ...]|list[UOp], o:Tensor, lse:Tensor) -> tuple[Tensor, Tensor|None]:
  """do and dlse (None where the loss did not read lse) from the gradients tinygrad hands a grad_fxn, laid out as o and lse: o's is
  (B, H, Nq, D), lse's (B, H, Nq)"""
  by_rank = {len(g.shape): Tensor(g) for g in grads}
  dlse = by_rank.get(3)
  return shard.like(o, by_rank.get(4, o.zeros_like())), None if dlse is None else shard.like(lse, dlse)

@functools.cache
def _fwd_grad(target:Target, mods:Mods, scale:float|None):
  """the custom kernel's grad_fxn: tinygrad hands it the gradients of the outputs the loss used (o, lse, or both) and the call. One per
  (target, mods, scale): the schedule cache keys a call on its grad_fxn, a new one each call missed it (a ~0.1 s schedule a step)"""
  def grad_fxn(*grads:UOp, call:UOp|None=None):
    if call is None: *grads, call = grads
    q, k, v, o, lse, *args = call.src[1:]
    o_val, lse_val = Tensor(o.after(call)), Tensor(lse.after(call))
    do, dlse = _out_grads(grads, o_val, lse_val)
    dq, dk, dv = _backward(target, mods, Tensor(q), Tensor(k), Tensor(v), o_val, lse_val, do, dlse, scale, None,
                           tuple(Tensor(a) for a in args[:mods.n_args]))   # the block map, if any, is the forward's: not passed on
    return (dq.uop, dk.uop, dv.uop, None, None, *[None] * len(args))
  return grad_fxn

def _block_map(target:Target, mods:Mods, mod_args:tuple[Tensor, ...], q:Tensor, k:Tensor, cfg:FwdConfig|BwdConfig, keys:bool=True,
               group:int=1) -> tuple[Tensor, ...]:
  """the block map of a kernel tiled by cfg; its schedule orders the blocks of one device's kernel, so it is built for the shard's
  batch and heads (the mods read neither sharded axis) and the device's multiprocessors"""
  B, H, Nq = shard.local_shape(q)[:3]
  return block_map(mods, mod_args, q.device, B, H, Nq, shard.local_shape(k)[2], cfg.block_m, cfg.block_n, keys=keys, group=group,
                   slots=multiprocessors(shard.device(q), target) * (cfg.blocks or RESIDENT))

@functools.cache
def _unit_descales(B:int, Hkv:int, device:str) -> Tensor:
  """descales of 1, made once per shape and device, by the first call's schedule (each call's own ones were three kernels, 30 µs beside a
  3 ms forward on the H100); not realized here: nothing runs before a call's checks"""
  return Tensor.ones(B, Hkv, device=device).contiguous()

def _descales(q:Tensor, k:Tensor, v:Tensor, *given) -> tuple[Tensor, ...]:
  """fp8's q, k and v descales as the forward and decoding kernels take them, float32 (B, Hkv) each (ones where not given), B q's
  batch (k may be a paged pool); () for 16-bit inputs, which take none. Checked before any kernel is built"""
  names = ("q_descale", "k_descale", "v_descale")
  if q.dtype not in dtypes.fp8s:
    if (i:=next((i for i, d in enumerate(given) if d is not None), None)) is not None:
      raise ValueError(f"{names[i]} is for fp8 inputs; q is {q.dtype}")
    return ()
  if shard.axis(q) is not None or not isinstance(q.device, str): raise ValueError("fp8 attention runs on one device (not sharded yet)")
  if any(getattr(t, "requires_grad", False) for t in (q, k, v)): raise ValueError("fp8 attention is forward-only: q, k and v may not require grad")
  B, Hkv = q.shape[0], k.shape[1]
  out = []
  for name, d in zip(names, given):
    if d is None: d = _unit_descales(B, Hkv, q.device)
    if not isinstance(d, Tensor) or d.dtype != dtypes.float32: raise TypeError(f"{name} must be a float32 Tensor, got {getattr(d, 'dtype', type(d).__name__)}")
    if d.shape != (B, Hkv): raise ValueError(f"{name} must have shape (B, Hkv) = {(B, Hkv)}, got {d.shape}")
    if d.device != q.device: raise ValueError(f"{name} must be on q's device {q.device}, got {d.device}")
    out.append(d.contiguous())
  return tuple(out)

def vt_layout(v:Tensor, target:Target, block_n:int) -> Tensor:
  """V as the forward reads it where FwdConfig.reads_vt (8-bit wgmma): Vᵀ, (B, Hkv, D, Nk rounded up to whole tiles, then to whole
  128 keys, flash_vt's blocks), zeros past Nk, each group of keys in the target's v_keys order (fa_uop.forward.flash_vt)"""
  B, Hkv, Nk, D = v.shape
  vt = Tensor.empty(B, Hkv, D, round_up(round_up(Nk, block_n), 128), dtype=v.dtype, device=v.device)
  return Tensor.custom_kernel(v.contiguous(), vt, fxn=_vt_builder(target))[1]

@functools.cache
def _vt_builder(target:Target): return functools.cache(lambda *ps: flash_vt(*ps, target=target))

def _run_fwd(cfg:FwdConfig, q:Tensor, k:Tensor, v:Tensor, target:Target, mods:Mods, scale:float|None, mod_args:tuple[Tensor, ...]=(),
             descales:tuple[Tensor, ...]=(), o_dtype=None) -> tuple[Tensor, Tensor]:
  B, H, Nq, D = q.shape
  o, lse = shard.empty(q, (B, H, Nq, D), o_dtype or (dtypes.bfloat16 if descales else q.dtype)), shard.empty(q, (B, H, Nq), dtypes.float32)
  bmap = () if mods.mask_mod is None else _block_map(target, mods, mod_args, q, k, cfg)
  k, v = k.contiguous(), vt_layout(v, t8, cfg.block_n) if cfg.reads_vt(t8:=target.for_dtype(q.dtype), D) else v.contiguous()
  maps = (_tensor_maps(target, k, v, cfg),) if (tma:=_uses_tma(target, cfg, q)) else ()
  q = q.contiguous()
  if tma and cfg.persistent: maps += (_tensor_maps(target, q, q, cfg, q_rows=True),)   # Q by the producer's bulk copies
  outs = Tensor.custom_kernel(q, k, v, o, lse, *descales, *[t.contiguous() for t in mod_args], *bmap, *maps,
                              fxn=_fwd_builder(target, cfg, mods, scale, tma, multiprocessors(shard.device(q), target) if tma and cfg.persistent else 0),
                              grad_fxn=None if descales else _fwd_grad(target, mods, scale))
  return outs[3], outs[4]

def _ring_fwd(cfg:FwdConfig, q:Tensor, k:Tensor, v:Tensor, target:Target, mods:Mods, scale:float|None, mod_args:tuple[Tensor, ...],
              layout:str) -> tuple[Tensor, Tensor]:
  """q, k and v sharded over the sequence (context parallelism, as ring attention): at step s each device's rows attend to the keys of
  the device s before it on the ring (shard.rotate), over the rows' and keys' global positions (mods.at_positions: causal, windows
  and the mods as on one device), and the steps' float32 (o, lse) merge by their logsumexp (the split-KV path's combine kernel).
  The merge is a tinygrad function whose gradient is the ring's backward (_ring_bwd) from the merged o and lse; the steps' moved keys
  are its parameters too, so the backward's steps are the forward's (rotated anew, a TinyJit input's clone made its copies again)"""
  B, H, Nq, D = q.shape
  pmods, steps, moved = _ring_steps(q, k, v, mods, mod_args, layout)
  parts = [_run_fwd(cfg, q, ks, vs, target, pmods, scale, args, o_dtype=dtypes.float32) for ks, vs, args in steps]
  o_part, lse_part = Tensor.stack(*[o for o, _ in parts], dim=3), Tensor.stack(*[lse for _, lse in parts], dim=3)
  # the function's parameters are these, deduplicated (q is k is v in self-attention): which of them each one is
  ins = (q, k, v, o_part, lse_part, *mod_args, *moved)
  uops = [t.uop for t in ins]
  uniq = list(dict.fromkeys(uops))
  def merge(q, k, v, o_part, lse_part, *rest):
    o, lse = shard.empty(q, (B, H, Nq, D), q.dtype), shard.empty(q, (B, H, Nq), dtypes.float32)
    return tuple(Tensor.custom_kernel(o_part, lse_part, o, lse, fxn=_combine_builder())[2:])
  grad_fxn = _ring_grad(target, mods, scale, layout, len(mod_args), tuple(uniq.index(u) for u in uops))
  return function(merge, grad_fxn=grad_fxn, allow_implicit=True)(*ins)

@functools.cache
def _ring_grad(target:Target, mods:Mods, scale:float|None, layout:str, n_args:int, slots:tuple[int, ...]):
  """the ring's merge's grad_fxn: the ring's backward from the merged o and lse. slots: the call's parameter each of (q, k, v, o_part,
  lse_part, *mod_args (n_args), *moved) is. Made once per kind of call, as _fwd_grad: the schedule cache keys a call on its grad_fxn"""
  def grad_fxn(*grads:UOp, call:UOp|None=None):
    if call is None: *grads, call = grads
    args = call.src[1:]
    o_, lse_ = Tensor(call.gettuple(0)), Tensor(call.gettuple(1))
    do, dlse = _out_grads(grads, o_, lse_)
    q, k, v, _, _, *rest = (Tensor(args[i]) for i in slots)
    gs = _backward(target, mods, q, k, v, o_, lse_, do, dlse, scale, None, tuple(rest[:n_args]), layout, tuple(rest[n_args:]))
    out:list[UOp|None] = [None] * len(args)
    for i, g in zip(slots, gs): out[i] = g.uop if out[i] is None else (Tensor(out[i]) + g).uop
    return tuple(out)
  return grad_fxn

@functools.cache
def _combine_builder(): return functools.cache(flash_combine)

def _ring_steps(q:Tensor, k:Tensor, v:Tensor, mods:Mods, mod_args:tuple[Tensor, ...], layout:str, moved:tuple[Tensor, ...]=()) -> \
    tuple[Mods, list[tuple[Tensor, Tensor, tuple]], tuple[Tensor, ...]]:
  """the ring's kernels' mods (over global positions: mods.at_positions), its steps, each (k and v of the device s before each on
  the ring, the mods' buffers: mod_args, then where the mods read positions the rows' and those keys' positions), and what the steps
  after the first moved (their k and v, flat): rotated here, or as given (the forward's, to the backward)"""
  pmods, P = at_positions(mods), len(q.device)
  moved = moved or tuple(shard.rotate(t, s, 2) for s in range(1, P) for t in (k, v))
  steps = [(k, v), *zip(moved[::2], moved[1::2])]
  # (mods as they are where nothing reads a position: at_positions' cache may return an equal Mods, not this one)
  if pmods == mods: return pmods, [(ks, vs, mod_args) for ks, vs in steps], moved
  pq = shard.positions(q.device, q.shape[2], layout)
  return pmods, [(ks, vs, (*mod_args, pq, shard.positions(q.device, k.shape[2], layout, s))) for s, (ks, vs) in enumerate(steps)], moved

def _ring_bwd(target:Target, mods:Mods, cfgs:tuple[BwdConfig, BwdConfig], q:Tensor, k:Tensor, v:Tensor, do:Tensor, lse:Tensor, delta:Tensor,
              scale:float|None, mod_args:tuple[Tensor, ...], layout:str, moved:tuple[Tensor, ...]=()) -> tuple[Tensor, Tensor, Tensor]:
  """the ring's backward from the merged lse and delta: at step s each device's dK/dV and dQ kernels over its rows and the keys of
  the device s before it (_ring_steps, as the forward's), dQ summed where it is, each step's dK and dV sent back to the keys' device
  and summed there in float32"""
  pmods, steps, _ = _ring_steps(q, k, v, mods, mod_args, layout, moved)
  dq = dk = dv = None
  for s, (ks, vs, args) in enumerate(steps):
    gq, gk, gv = _bwd_kernels(target, pmods, cfgs, q, ks, vs, do, lse, delta, scale, args)
    gk, gv = shard.rotate(gk, -s, 2).float(), shard.rotate(gv, -s, 2).float()
    dq, dk, dv = (g.float() if a is None else a + g for a, g in ((dq, gq), (dk, gk), (dv, gv)))
  return dq.cast(q.dtype), dk.cast(k.dtype), dv.cast(v.dtype)

def flash_attention(q:Tensor, k:Tensor, v:Tensor, causal:bool=False, scale:float|None=None, return_lse:bool=False,
                    config:FwdConfig|None=None, window:tuple[int|None, int|None]|None=None, softcap:float|None=None,
                    score_mod:Callable|None=None, mask_mod:Callable|None=None, mod_args:tuple[Tensor, ...]=(),
                    q_descale:Tensor|None=None, k_descale:Tensor|None=None, v_descale:Tensor|None=None,
                    layout:str="contiguous") -> Tensor|tuple[Tensor, Tensor]:
  """Scaled dot-product attention softmax(q·kᵀ·scale)·v, computed tile by tile without the N×N score matrix.

  q: (B, H, Nq, D); k, v: (B, Hkv, Nk, D), with H a multiple of Hkv (GQA/MQA: query head h reads KV head h // (H // Hkv)).
  float16 or bfloat16, all three alike; accumulation in float32; any Nq, Nk ≥ 1.
  D: a multiple of the MMA K (16) up to 256 (Gemma's): 16, 32, ..., 128, ..., 256.
  causal masks key j > query i, top-left aligned as in tinygrad's and PyTorch's SDPA. scale defaults to 1/sqrt(D).
  Modifications, built into the kernels (forward and backward):
  - window=(left, right): key j is kept for query i iff i - left <= j <= i + right, a side None unbounded; with causal, both.
  - softcap=c: score <- c·tanh(score/c), on the scaled score.
  - score_mod(score, b, h, q_idx, kv_idx, *mod_args) -> score: a function over UOps (score float32, the indices int32), called
    once while the kernel is built; it sees the scaled, softcapped score.
  - mask_mod(b, h, q_idx, kv_idx, *mod_args) -> bool UOp: True keeps the pair.
  - mod_args: Tensors on q's device that the mods read, reaching them as UOp buffers indexed with the index UOps (slopes[h],
    doc[b, q_idx]). They receive no gradient, and may not require one.
  Tiles that the window or causal hide entirely are never visited and only the tiles their edges cross pay for the mask; a
  mask_mod's tiles come from its block map (fa_uop.blockmap: built by four small kernels, cached), so it is evaluated only on the
  tiles it cuts. A row that keeps no key gets output 0 and logsumexp -inf (and zero gradients).
  Returns the output (B, H, Nq, D) in q's dtype and, with return_lse, the natural-log row logsumexp (B, H, Nq) in float32.
  fp8 (forward only, one device): q, k and v in an 8-bit float the target's MMA takes (e4m3 or e5m2 on sm_89+, gfx950 and RDNA4,
  their fnuz formats on gfx942), with q_descale, k_descale and v_descale (float32 (B, Hkv) Tensors, or None: 1) as FlashAttention-3 takes
  them: the scores are q·kᵀ·scale·q_descale·k_descale, the output (bfloat16) P·v·v_descale, P rounded to v's format.
  config picks the tiling; by default the tuner's choice for this shape class (fa_uop.tune), or the fixed default where tuning
  is off. Its bulk copies (tma, ring: Hopper only) apply on a sharded call's devices too, each with tensor maps of its shards.
  Targets: AMD RDNA3 (gfx11xx), RDNA4 (gfx12xx), CDNA3 (gfx942), CDNA4 (gfx950) and NVIDIA sm_80 and newer, and tinygrad's
  emulator of each (DEV=PYTHON::gfx1100, ::gfx1201, ::gfx942, ::gfx950, ::sm_80).
  Tensors sharded by Tensor.shard over batch or heads, q, k and v alike, run on each device's shard and give outputs (and
  gradients) sharded the same way; the mods then may not read the sharded axis's index, and mod_args must be whole on each device.
  Sharded over the sequence (axis 2: context parallelism, for sequences longer than one device holds), q, k and v alike: a ring of
  the devices, each device's rows attending to every device's keys in turn (the keys passed on a device a step), the partial
  results merged by their logsumexp, exactly; gradients likewise. layout says how the devices hold the rows: "contiguous" (as
  Tensor.shard lays them out: device d the d-th chunk) or "zigzag" (fa_uop.shard.zigzag: device d the d-th and the (2P-1-d)-th of 2P, so
  a causal mask's work is even over the devices). Causal, windows and the mods see global positions (a mod's q_idx and kv_idx are
  the rows' positions in the whole sequence)."""
  target, mods, mod_args, config, descales = _fwd_plan(q, k, v, causal, scale, config, window, softcap, score_mod, mask_mod, mod_args,
                                                       (q_descale, k_descale, v_descale), layout)
  if shard.axis(q) == 2: o, lse = _ring_fwd(config, q, k, v, target, mods, scale, mod_args, layout)
  else: o, lse = _run_fwd(config, q, k, v, target, mods, scale, mod_args, descales) if isinstance(config, FwdConfig) else \
    _decode(target, mods, q, k, v, _all_keys(q, k.shape[2]), None, scale, *config, mod_args, top_left=True)
  return (o, lse) if return_lse else o

def _layout(q:Tensor, k:Tensor, layout) -> None:
  """a ValueError where layout is none of shard.LAYOUTS or the sequence-sharded lengths do not split as it needs"""
  if layout not in shard.LAYOUTS: raise ValueError(f"layout must be one of {', '.join(map(repr, shard.LAYOUTS))}, got {layout!r}")
  if shard.axis(q) == 2 and layout == "zigzag" and (q.shape[2] % (n:=2 * len(q.device)) or k.shape[2] % n):
    raise ValueError(f"the zigzag layout over {len(q.device)} devices needs sequences of a multiple of {n} rows, got q {q.shape[2]}, k {k.shape[2]}")

def _fwd_plan(q, k, v, causal, scale, config, window, softcap, score_mod, mask_mod, mod_args, descales=(None,) * 3, layout="contiguous") -> \
    tuple[Target, Mods, tuple, FwdConfig|tuple[FwdConfig, int], tuple[Tensor, ...]]:
  """the checked call, its forward's config (or the decoding kernels' (tile, splits) where split_kv_plan picks them) and fp8's descales"""
  target = _check(q, k, v, causal, scale, fp8=True, seq=True)
  descales = _descales(q, k, v, *descales)
  mods, mod_args = _mods(q, causal, window, softcap, score_mod, mask_mod, mod_args)
  _layout(q, k, layout)
  if config is not None:
    if not isinstance(config, FwdConfig): raise TypeError(f"config must be a FwdConfig or None, got {type(config).__name__}")
    config.check(target.for_dtype(q.dtype), q.shape[3])
    if config.persistent and not mods.tiles_alike:
      raise ValueError(f"{config}: a persistent forward takes no causal mask, window or mask_mod (each tile's loop the same trips)")
  elif q.dtype in dtypes.fp8s:   # the fp8 MMA's default tile (not tuned yet), checked: a K of 32 rules out D=16
    config = default_fwd_config(t8:=target.for_dtype(q.dtype), q.shape[3], causal, q.shape[2], k.shape[2], mods.tag)
    config.check(t8, q.shape[3])
  elif shard.axis(q) == 2:   # the ring's steps: a kernel's rows against one device's keys, under the mods over global positions
    config = default_fwd_config(target, q.shape[3], False, shard.local_shape(q)[2], shard.local_shape(k)[2], at_positions(mods).tag)
  elif (split:=split_kv_plan(target, q, k, mods)) is not None: config = split
  else:
    run = functools.partial(lambda cfg, q_, k_, v_: _run_fwd(cfg, q_, k_, v_, target, mods, scale, mod_args)[0].realize())
    config = tune.fwd_config(target, shard.device(q), shard.local_shape(q), k.shape[2], shard.local_shape(k)[1], q.dtype, causal, scale, run, mods.tag)
  return target, mods, mod_args, config, descales

def fwd_config_for(q:Tensor, k:Tensor, v:Tensor, causal:bool=False, scale:float|None=None, window=None, softcap=None, score_mod=None,
                   mask_mod=None, mod_args=(), layout:str="contiguous") -> FwdConfig|tuple[FwdConfig, int]:
  """the tiling flash_attention(q, k, v, ...) uses with no config given: the tuner's choice for its shape class and
  modifications (timed now if there is none yet), or the default where tuning is off; or, where it takes its split-KV path
  (split_kv_plan), the decoding kernel's tile and split count"""
  return _fwd_plan(q, k, v, causal, scale, None, window, softcap, score_mod, mask_mod, mod_args, layout=layout)[3]

def _int_tensor(name:str, x, shape:tuple[int, ...], ref:Tensor) -> Tensor:
  """a per-sequence integer tensor of shape (B, ...) for ref's batch: on its devices, sharded over batch where ref is, else whole"""
  device = ref.device
  if not isinstance(x, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor of integers, got {type(x).__name__}")
  if not dtypes.is_int(x.dtype): raise TypeError(f"{name} must be an integer Tensor, got {x.dtype}")
  if x.shape != shape: raise ValueError(f"{name} must have shape {shape}, got {x.shape}")
  if x.device != device: raise ValueError(f"{name} must be on q's device {device}, got {x.device}")
  if shard.axis(x) != (want:=0 if shard.axis(ref) == 0 else None):
    raise ValueError(f"{name} must be {'sharded over batch (axis 0) as q is' if want == 0 else 'whole on each device (replicated)'}, "
                     f"got axis {shard.axis(x)}")
  return (x if x.dtype == dtypes.int32 else x.cast(dtypes.int32)).contiguous()

def _page_table(block_table, B:int, page:int, ref:Tensor) -> Tensor|None:
  if block_table is None: return None
  if not isinstance(block_table, Tensor) or block_table.ndim != 2:
    raise TypeError(f"block_table must be a (B, max_pages) integer Tensor or None, got {getattr(block_table, 'shape', type(block_table).__name__)}")
  if page % 16: raise ValueError(f"the paged cache's page_size (k_cache.shape[2]) must be a multiple of 16, got {page}")
  if block_table.shape[1] < 1: raise ValueError("block_table must list at least one page per sequence")
  return _int_tensor("block_table", block_table, (B, block_table.shape[1]), ref)

@functools.cache
def _decode_builders(target:Target, cfg:FwdConfig, mods:Mods, scale:float|None, paged:bool, top_left:bool=False):
  """the decoding kernel's builder for custom_kernel (placeholders q, k, v, seqlens, [table,] o, lse, [fp8's descales,] *mod_args)
  and the combine's, each caching its sink by the placeholders, as _fwd_builder does"""
  def decode(q, k, v, seqlens, *rest):
    table, (o, lse, *args) = (rest[0], rest[1:]) if paged else (None, rest)
    return flash_decode(q, k, v, seqlens, table, o, lse, *args, target=target, cfg=cfg, scale=scale, mods=mods, top_left=top_left)
  return functools.cache(decode), functools.cache(flash_combine)

def _decode(target:Target, mods:Mods, q:Tensor, k:Tensor, v:Tensor, seqlens:Tensor, table:Tensor|None, scale:float|None, cfg:FwdConfig,
            splits:int, mod_args:tuple[Tensor, ...], top_left:bool=False, descales:tuple[Tensor, ...]=()) -> tuple[Tensor, Tensor]:
  """(o, lse) by the decoding kernel over `splits` splits of the keys (then the combine); top_left: flash_attention's split-KV path
  (positions top-left), differentiable: its gradients are flash_attention's backward of the combined o and lse. descales: fp8's
  (_descales), read by the decoding kernel; the output is then bfloat16"""
  B, H, Nq, D = q.shape
  decode, combine = _decode_builders(target, cfg, mods, scale, table is not None, top_left)
  ins = (q.contiguous(), k.contiguous(), v.contiguous(), seqlens, *((table,) if table is not None else ()))
  args = (*descales, *(t.contiguous() for t in mod_args))
  grad, out_dtype = top_left and not descales, dtypes.bfloat16 if descales else q.dtype   # fp8 is forward-only
  if splits == 1:
    o, lse = shard.empty(q, (B, H, Nq, D), out_dtype), shard.empty(q, (B, H, Nq), dtypes.float32)
    return tuple(Tensor.custom_kernel(*ins, o, lse, *args, fxn=decode, grad_fxn=_split_grad(target, mods, scale, len(ins), 1) if grad else None)
                 [len(ins):len(ins) + 2])
  o_part, lse_part = shard.empty(q, (B, H, Nq, splits, D), dtypes.float32), shard.empty(q, (B, H, Nq, splits), dtypes.float32)
  o_part, lse_part = Tensor.custom_kernel(*ins, o_part, lse_part, *args, fxn=decode,
                                          grad_fxn=_split_grad(target, mods, scale, len(ins)) if grad else None)[len(ins):len(ins) + 2]
  o, lse = shard.empty(q, (B, H, Nq, D), out_dtype), shard.empty(q, (B, H, Nq), dtypes.float32)
  return tuple(Tensor.custom_kernel(o_part, lse_part, o, lse, fxn=combine, grad_fxn=_combine_grad if grad else None)[2:])

def _weights(lse_part:Tensor, lse:Tensor) -> Tensor:
  """each split's share exp(lse_s - lse) of a combined row (0 in a row no split saw a key of)"""
  return lse.unsqueeze(-1).eq(-math.inf).where(0.0, (lse_part - lse.unsqueeze(-1)).exp())

def _combine_grad(*grads:UOp, call:UOp|None=None):
  """the combine's gradients: o = Σ_s w_s·o_s with w_s = exp(lse_s - lse), lse = log Σ_s exp(lse_s), so do_s = w_s·do and
  dlse_s = w_s·(dlse + do·(o_s - o))"""
  if call is None: *grads, call = grads
  o_part, lse_part, o, lse = (Tensor(u) for u in call.src[1:])
  o, lse = Tensor(o.uop.after(call)).float(), Tensor(lse.uop.after(call))
  by_rank = {len(g.shape): Tensor(g) for g in grads}
  do, dlse = by_rank.get(4, o.zeros_like()).float(), by_rank.get(3, lse.zeros_like()).float()
  w = _weights(lse_part, lse)
  d_o = w.unsqueeze(-1) * do.unsqueeze(-2)
  d_lse = w * (dlse.unsqueeze(-1) + (do.unsqueeze(-2) * (o_part - o.unsqueeze(-2))).sum(-1))
  return (d_o.uop, d_lse.uop, None, None)

@functools.cache
def _split_grad(target:Target, mods:Mods, scale:float|None, n_ins:int, splits:int=0):
  """the decoding kernel's gradients as flash_attention's backward computes them: unsplit (splits=1) from its o and lse; split, from
  those of its partial results (_combine_grad's): do = Σ_s do_s and dlse = Σ_s dlse_s (Σ_s w_s = 1), against the combined o and lse
  recomputed from the parts"""
  def grad_fxn(*grads:UOp, call:UOp|None=None):
    if call is None: *grads, call = grads
    q, k, v, *rest = call.src[1:]
    o_part, lse_part, *args = rest[n_ins - 3:]
    o_part, lse_part = Tensor(o_part.after(call)), Tensor(lse_part.after(call))
    if splits == 1:   # its outputs are the forward's o and lse: flash_attention's gradient as it is
      o, lse = o_part, lse_part
      do, dlse = _out_grads(grads, o, lse)
    else:
      by_rank = {len(g.shape): Tensor(g) for g in grads}
      m = lse_part.max(-1)
      safe = m.eq(-math.inf).where(0.0, m)
      total = (lse_part - safe.unsqueeze(-1)).exp().sum(-1)
      lse = total.eq(0).where(-math.inf, safe + total.log())
      o = (_weights(lse_part, lse).unsqueeze(-1) * o_part).sum(-2)
      do, dlse = by_rank[5].sum(-2) if 5 in by_rank else o.zeros_like(), by_rank[4].sum(-1) if 4 in by_rank else None
    dq, dk, dv = _backward(target, mods, Tensor(q), Tensor(k), Tensor(v), o, lse, do, dlse, scale, None,
                           tuple(Tensor(a) for a in args[:mods.n_args]))
    return (dq.uop, dk.uop, dv.uop, *[None] * (len(call.src) - 4))
  return grad_fxn

def _all_keys(q:Tensor, nk:int) -> Tensor:
  """cache_seqlens for flash_attention's split-KV path, every key real: a buffer laid out as q's batch (a length the kernel knows
  when it is built made nvcc spill it: 384 bytes on sm_90a), realized once per layout"""
  return _lengths(q.device, 0 if shard.axis(q) == 0 else None, q.shape[0], nk)   # over batch where q is, else whole on each device

@functools.cache
def _lengths(device, axis:int|None, B:int, nk:int) -> Tensor:
  ref = Tensor.empty(B, device=device) if isinstance(device, str) else Tensor.empty(B, device=device[0]).shard(device, axis=axis)
  return shard.alike(ref, (B,), lambda s, d: Tensor.full(s, nk, dtype=dtypes.int32, device=d).contiguous()).realize()

def split_kv_plan(target:Target, q:Tensor, k:Tensor, mods:Mods) -> tuple[FwdConfig, int]|None:
  """flash_attention's choice of the decoding kernels (tile, splits) over its own forward, or None: where a forward block's 64 query
  rows would be mostly empty (Nq < 64; the decoding kernel packs the query heads of a GQA group into one tile and reads K and V
  once a group), or where its query blocks cannot fill the GPU and the keys they see split (fa_uop.config.split_kv)"""
  B, H, Nq, D = shard.local_shape(q)
  keys = k.shape[2] if mods.right is None else min(k.shape[2], Nq + mods.right)   # the keys some query sees (causal: top-left)
  return split_kv(decode_plan(target, shard.device(q), (B, H, Nq, D), shard.local_shape(k)[1], keys), B * H * math.ceil(Nq / 64),
                  multiprocessors(shard.device(q), target), Nq)

def decode_plan(target:Target, device:str, q_shape:tuple[int, ...], hkv:int, cap:int, num_splits:int=0, config:FwdConfig|None=None) -> tuple[FwdConfig, int]:
  """the decoding kernel's tile and split count for queries of q_shape against caches of up to cap keys (see decode_splits); target
  the MMA's description for the inputs' dtype (Target.for_dtype: an fp8 K of 32 rules out D=16 and 16-key tiles)"""
  B, H, Nq, D = q_shape
  cfg = config or default_decode_config(target, D, H // hkv * Nq)
  cfg.check(target, D)
  if cfg.tma: raise ValueError(f"{cfg}: bulk tensor copies (tma, ring) are flash_attention's; the cache path copies by the target's async copies")
  if cfg.reads_vt(target, D): raise ValueError(f"{cfg}: 8-bit wgmma reads Vᵀ (flash_attention's forward lays it out); the cache path reads the "
                                               "cache as stored: a tile of fewer than 128 keys or not of 64-row warpgroups")
  n_tiles = math.ceil(cap / cfg.block_n)
  blocks = B * hkv * math.ceil(H // hkv * Nq / cfg.block_m)
  return cfg, min(num_splits or decode_splits(blocks, n_tiles, multiprocessors(device, target)), n_tiles)

def flash_attention_with_kvcache(q:Tensor, k_cache:Tensor, v_cache:Tensor, cache_seqlens:Tensor, block_table:Tensor|None=None,
                                 causal:bool=False, scale:float|None=None, return_lse:bool=False, num_splits:int=0,
                                 config:FwdConfig|None=None, window:tuple[int|None, int|None]|None=None, softcap:float|None=None,
                                 score_mod:Callable|None=None, mask_mod:Callable|None=None, mod_args:tuple[Tensor, ...]=(),
                                 q_descale:Tensor|None=None, k_descale:Tensor|None=None, v_descale:Tensor|None=None) -> Tensor|tuple[Tensor, Tensor]:
  """Attention of a few new queries per sequence against a KV cache (decoding), read at memory bandwidth.

  q: (B, H, Nq, D), any Nq >= 1 (1 to decode, a few for speculative decoding, more for chunked prefill), float16 or bfloat16, or fp8
  (below). k_cache, v_cache: (B, Hkv, Nmax, D), H a multiple of Hkv (GQA/MQA as in flash_attention), in q's dtype; or with block_table a
  paged pool (num_pages, Hkv, page_size, D), page_size a multiple of 16, where block_table (B, max_pages) lists the pages of each
  sequence in order. The caches are read where they are: pass realized, contiguous buffers (a view would be copied).
  cache_seqlens: (B,) integer Tensor, the valid keys of each sequence; keys at or past it are ignored. The lengths and the block
  table are read by the kernel at run time, so new values compile nothing. Out-of-range values are clamped, never read past:
  a length to [0, Nmax] (paged: [0, max_pages·page_size]), a block-table entry to [0, num_pages-1]. A sequence of length 0
  (or, causal, a query before the first key) gets output 0 and logsumexp -inf.
  causal: bottom-right aligned, as FlashAttention and serving systems do: query i sits at position cache_seqlens[b] - Nq + i
  and sees the keys up to it (the caller has written the new tokens' K and V into the cache first).
  Returns o (B, H, Nq, D) in q's dtype (fp8: bfloat16) and, with return_lse, the natural-log logsumexp (B, H, Nq) float32.
  fp8 cache (one device), as FlashAttention-3's flash_attn_with_kvcache takes it: q, k_cache and v_cache all in one 8-bit float the
  target's MMA takes (e4m3 or e5m2 on sm_89+, gfx950 and RDNA4, their fnuz formats on gfx942; D a multiple of its K: 32, 16 on
  RDNA4), with q_descale, k_descale and v_descale float32 (B, Hkv) Tensors per sequence and KV head (None: 1): the scores are
  q·kᵀ·scale·q_descale·k_descale, the output P·v·v_descale with P rounded to v's format. write_kvcache fills such a cache from k and
  v the caller has quantized.
  The query heads of a GQA group are packed into one tile, so K and V are read once per KV head. Split-KV: num_splits=0 picks
  the split count from the shape and the GPU's multiprocessor count (fa_uop.config.decode_splits), 1 turns it off, n > 1 forces
  n splits (at most one per KV tile); the splits' partial results are merged by a small combine kernel. The result does not
  depend on the split count beyond float rounding. config fixes the tile (default fa_uop.config.default_decode_config).
  window, softcap, score_mod, mask_mod and mod_args as in flash_attention, over the same bottom-right positions (q_idx of query
  i is cache_seqlens[b] - Nq + i, kv_idx the key's index in its sequence): a window visits only its tiles of the cache.
  Inference only: no gradient flows through it (train with flash_attention). Sharded: q and dense caches over batch or heads
  alike (a paged pool over heads only), cache_seqlens and block_table sharded over batch where q is, else whole on each device."""
  paged = block_table is not None
  target = _check(q, k_cache, v_cache, causal, scale, "k_cache", "v_cache", batch=not paged, fp8=True)
  descales = _descales(q, k_cache, v_cache, q_descale, k_descale, v_descale)
  mods, mod_args = _mods(q, causal, window, softcap, score_mod, mask_mod, mod_args)
  B, H, Nq, D = q.shape
  Hkv, P = k_cache.shape[1], k_cache.shape[2]
  seqlens = _int_tensor("cache_seqlens", cache_seqlens, (B,), q)
  table = _page_table(block_table, B, P, q)
  if not isinstance(num_splits, int) or isinstance(num_splits, bool) or num_splits < 0:
    raise ValueError(f"num_splits must be an int >= 0 (0: automatic), got {num_splits!r}")
  if config is not None and not isinstance(config, FwdConfig): raise TypeError(f"config must be a FwdConfig, got {type(config).__name__}")
  cfg, splits = decode_plan(target.for_dtype(q.dtype), shard.device(q), shard.local_shape(q), shard.local_shape(k_cache)[1],
                            P * block_table.shape[1] if paged else P, num_splits, config)
  o, lse = _decode(target, mods, q, k_cache, v_cache, seqlens, table, scale, cfg, splits, mod_args, descales=descales)
  return (o, lse) if return_lse else o

def write_kvcache(k_cache:Tensor, v_cache:Tensor, k:Tensor, v:Tensor, cache_seqlens:Tensor, block_table:Tensor|None=None) -> tuple[Tensor, Tensor]:
  """Append new keys and values to a KV cache in place, as flash_attention_with_kvcache reads it: k, v (B, Hkv, Nnew, D) go to
  positions cache_seqlens[b] + i of sequence b (dense caches (B, Hkv, Nmax, D), or paged pools through block_table). Positions
  past the cache are dropped; lengths below 0 count as 0. The caches must be realized buffers: their memory is written. Returns
  (k_cache, v_cache) after the write, to use (or realize) before reading the cache again. The lengths are not advanced.
  An fp8 cache takes k and v already in its dtype, copied as they are: the caller quantizes them, e.g. (k / k_scale).cast(dtypes.fp8e4m3)
  with k_scale float32 (B, Hkv, 1, 1), one scale for all of a sequence's cache (every step's entries), and reads the cache with
  k_descale=k_scale.reshape(B, Hkv) (v alike)."""
  for name, t in (("k_cache", k_cache), ("v_cache", v_cache), ("k", k), ("v", v)):
    if not isinstance(t, Tensor): raise TypeError(f"{name} must be a tinygrad Tensor, got {type(t).__name__}")
    if t.ndim != 4: raise ValueError(f"{name} must have rank 4, got shape {t.shape}")
    if t.dtype != k_cache.dtype: raise TypeError(f"{name} must have k_cache's dtype {k_cache.dtype}, got {t.dtype}")
    if t.device != k_cache.device: raise ValueError(f"{name} must be on k_cache's device {k_cache.device}, got {t.device}")
  if v_cache.shape != k_cache.shape: raise ValueError(f"v_cache must have k_cache's shape {k_cache.shape}, got {v_cache.shape}")
  if v.shape != k.shape: raise ValueError(f"v must have k's shape {k.shape}, got {v.shape}")
  shard.check(("k_cache", "v_cache", "k", "v"), (k_cache, v_cache, k, v), (0, 1) if block_table is None else (1,))
  B, Hkv, _, D = k.shape
  if (k_cache.shape[1], k_cache.shape[3]) != (Hkv, D): raise ValueError(f"k {k.shape} has other heads or head dim than k_cache {k_cache.shape}")
  if block_table is None and k_cache.shape[0] != B: raise ValueError(f"k has batch {B}, k_cache has batch {k_cache.shape[0]}")
  seqlens = _int_tensor("cache_seqlens", cache_seqlens, (B,), k)
  table = _page_table(block_table, B, k_cache.shape[2], k)
  fxn = _kv_write_builder(table is not None)
  return tuple(Tensor.custom_kernel(k_cache, v_cache, k.contiguous(), v.contiguous(), seqlens, *((table,) if table is not None else ()), fxn=fxn)[:2])

@functools.cache
def _kv_write_builder(paged:bool):
  return functools.cache(lambda kc, vc, k, v, sl, *table: flash_kv_write(kc, vc, k, v, sl, table[0] if paged else None))
