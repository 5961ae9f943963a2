"""Tensors sharded over devices by Tensor.shard: each device runs the kernels on its own shard (tinygrad hands a custom kernel the
shard's shape), so the kernels need nothing; the entry points check that q, k and v are sharded alike over an axis they can
split (batch or heads) and make their outputs sharded the same way. Sharded over the sequence (context parallelism), each device
holds a chunk of the rows (contiguous, or zigzag's two), the keys pass around a ring of the devices (rotate) and the kernels see
the rows' global positions (positions)."""
from __future__ import annotations
import functools
import numpy as np
from typing import Callable
from tinygrad import Tensor, UOp
from tinygrad.uop.ops import Ops
from tinygrad.dtype import DType

AXES = {0: "batch", 1: "heads", 2: "sequence"}
LAYOUTS = ("contiguous", "zigzag")

def device(t:Tensor) -> str:
  """the device a tensor's kernels run on: its own, or the first of a multi-device tensor's (they are alike: the tuner times one)"""
  return t.device if isinstance(t.device, str) else t.device[0]

def axis(t:Tensor) -> int|None:
  """the axis a multi-device tensor is sharded over (None: replicated on every device, or a single-device tensor)"""
  return None if isinstance(t.device, str) else t.uop.axis

def check(names:tuple[str, ...], ts:tuple[Tensor, ...], axes:tuple[int, ...]=(0, 1)) -> int|None:
  """the axis that tensors named `names`, all on one device or one set of devices, are sharded over alike; a ValueError where
  they are not sharded alike or over an axis not in axes (the sequence and head-dim axes: a kernel would see a part of a row)"""
  if isinstance(ts[0].device, str): return None
  got = [axis(t) for t in ts]
  if len(set(got)) > 1:
    raise ValueError(f"{', '.join(names)} must be sharded alike, got axes {', '.join(f'{n}: {a}' for n, a in zip(names, got))}")
  if got[0] is not None and got[0] not in axes:
    raise ValueError(f"{names[0]} is sharded over axis {got[0]}: shard over {' or '.join(f'{AXES[a]} (axis {a})' for a in axes)}, "
                     "or not at all (replicated); a kernel must see whole sequences")
  return got[0]

def alike(ref:Tensor, shape:tuple[int, ...], make:Callable[[tuple[int, ...], str|tuple[str, ...]], Tensor]) -> Tensor:
  """a tensor of `shape` whose leading axes are ref's (batch, heads), on ref's devices and sharded as ref is, each device's part
  made by make(its shape, its device)"""
  if (ax:=axis(ref)) is None: return make(shape, ref.device)
  part = tuple(s // len(ref.device) if i == ax else s for i, s in enumerate(shape))
  return stacked([make(part, d).uop for d in ref.device], ax)

def empty(ref:Tensor, shape:tuple[int, ...], dtype:DType) -> Tensor:
  """an output of `shape` sharded as ref is (see alike): each device's kernel writes its shard"""
  return alike(ref, shape, lambda s, d: Tensor.empty(*s, dtype=dtype, device=d))

def own(ref:Tensor, n:int, dtype:DType) -> Tensor:
  """n elements on ref's device; on several devices each one's own (n·devices, sharded over axis 0): what a kernel makes for the
  device it runs on, as the tensor maps of its shards"""
  if isinstance(ref.device, str): return Tensor.empty(n, dtype=dtype, device=ref.device)
  return stacked([Tensor.empty(n, dtype=dtype, device=d).uop for d in ref.device], 0)

def stacked(parts:list[UOp], axis:int) -> Tensor:
  """each device's part (in the devices' order) as one tensor sharded over axis"""
  return Tensor(UOp.mstack(*parts).unshard(axis))

def local_shape(t:Tensor) -> tuple[int, ...]:
  """the shape each device's kernels see: the shard's"""
  return t.shape if isinstance(t.device, str) or axis(t) is None else tuple(t.uop.shard_shape)

def like(ref:Tensor, t:Tensor) -> Tensor:
  """t sharded as ref where t is whole on every device (the gradient of a sum is): tinygrad's elementwise ops give each shard its
  part of a whole operand"""
  if isinstance(t.device, str) or axis(t) is not None or axis(ref) is None or t.shape != ref.shape: return t
  return ref.zeros_like(dtype=t.dtype) + t

def order(n:int, p:int, layout:str) -> np.ndarray:
  """the global positions of a sequence of n rows laid out over p devices, in the order the devices hold them: contiguous, device
  d the d-th n/p; zigzag, device d the d-th and the (2p-1-d)-th of 2p chunks (a causal mask's work then even over the devices)"""
  if layout == "contiguous": return np.arange(n)
  c = n // (2 * p)
  return np.concatenate([np.arange(i * c, (i + 1) * c) for d in range(p) for i in (d, 2 * p - 1 - d)])

@functools.cache
def positions(devices:tuple[str, ...], n:int, layout:str, step:int=0) -> Tensor:
  """int32 (n,) sharded over devices: each device's rows' global positions (order), realized once per layout; with step s, at device d
  those of the rows of the device s before it on the ring (the keys ring step s brings it, as rotate's): constants, never copied, so a
  block map over them is built once (fa_uop.blockmap caches it per buffer)"""
  p = np.roll(order(n, len(devices), layout).reshape(len(devices), -1), step, axis=0).reshape(-1)
  return Tensor(p.astype(np.int32), device=devices[0]).shard(devices, axis=0).contiguous().realize()

def rotate(t:Tensor, s:int, axis:int) -> Tensor:
  """t sharded over axis, each device holding instead the shard of the device s before it on the ring of its devices (device d
  holds device (d - s) mod P's): a copy a device, of its shard only"""
  devs = t.device
  P = len(devs)
  if s % P == 0: return t
  # each device's shard copied straight from the buffer a kernel of this call writes (AFTER(UNSHARD(buffers), the writer)): t itself
  # where it is one (the backward's dK and dV), else a clone. Not the input's own buffer: tinygrad's CUDA graph replays a copy from a
  # TinyJit input's shard with the copy's own device's shard. (Gathering t.to(device) then cutting the shard out cost two elementwise
  # copies a device, a lazy view of a tensor sharded from one device one with an unbound device index)
  u = t.uop if t.uop.op is Ops.AFTER and t.uop.src[0].op is Ops.UNSHARD else t.clone().uop
  b, after = u.src[0].src[0], u.src[1:]
  part = (lambda j: b.src[j].after(*after)) if b.op is Ops.MSTACK else (lambda j: b.after(*after).mselect(j))
  return stacked([part((d - s) % P).copy_to_device(devs[d]) for d in range(P)], axis)

def zigzag(x:Tensor, devices:tuple[str, ...], axis:int=2) -> Tensor:
  """x (whole, on one device) sharded over devices along its sequence axis in zigzag order (order): device d holds chunks d and
  2P-1-d of 2P. flash_attention(..., layout="zigzag") takes q, k and v so, its causal work then even over the devices; the rows
  keep their positions in x (positions gives each device's, for a rotary embedding). unzigzag inverts it"""
  if not isinstance(x.device, str): raise ValueError(f"zigzag takes a tensor on one device, got one on {x.device}")
  P = len(devices)
  if x.shape[axis] % (2 * P): raise ValueError(f"zigzag over {P} devices needs a sequence of a multiple of {2 * P} rows, got {x.shape[axis]}")
  c = x.chunk(2 * P, dim=axis)
  return Tensor.cat(*[c[i] for d in range(P) for i in (d, 2 * P - 1 - d)], dim=axis).shard(devices, axis=axis).contiguous()

def unzigzag(y:Tensor, axis:int=2, device:str|None=None) -> Tensor:
  """y (sharded over its sequence axis in zigzag order) whole on one device (default its first), the rows in sequence order"""
  P = len(y.device)
  c = y.to(device or y.device[0]).chunk(2 * P, dim=axis)
  return Tensor.cat(*[c[2 * d] for d in range(P)], *[c[2 * d + 1] for d in reversed(range(P))], dim=axis)
