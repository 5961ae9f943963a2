"""Tensors sharded over devices by Tensor.shard: each device runs the kernels on its own shard (tinygrad hands a custom kernel the
shard's shape), so the kernels need nothing; the entry points check that q, k and v are sharded alike over an axis they can
split (batch or heads) and make their outputs sharded the same way."""
from __future__ import annotations
from typing import Callable
from tinygrad import Tensor, UOp
from tinygrad.dtype import DType

AXES = {0: "batch", 1: "heads"}

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
  return Tensor(UOp.mstack(*[make(part, d).uop for d in ref.device]).unshard(ax))

def empty(ref:Tensor, shape:tuple[int, ...], dtype:DType) -> Tensor:
  """an output of `shape` sharded as ref is (see alike): each device's kernel writes its shard"""
  return alike(ref, shape, lambda s, d: Tensor.empty(*s, dtype=dtype, device=d))

def local_shape(t:Tensor) -> tuple[int, ...]:
  """the shape each device's kernels see: the shard's"""
  return t.shape if isinstance(t.device, str) or axis(t) is None else tuple(t.uop.shard_shape)

def like(ref:Tensor, t:Tensor) -> Tensor:
  """t sharded as ref where t is whole on every device (the gradient of a sum is): tinygrad's elementwise ops give each shard its
  part of a whole operand"""
  if isinstance(t.device, str) or axis(t) is not None or axis(ref) is None or t.shape != ref.shape: return t
  return ref.zeros_like(dtype=t.dtype) + t
