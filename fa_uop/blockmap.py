"""Which tiles a mask_mod keeps (the block mask of FlexAttention), so the attention kernels visit only those and mask only the
ones it cuts. Two small kernels: one evaluates the masks (mask_mod with the window, causal and the sequence ends) over every
element of every tile and classifies the tile as empty, partial or full; one lists, for each row block, its partial tiles
and then its full ones, from the last down. The lists are cached per mask, mod_args and shape, so the layers of a model that
share a mask build them once. A mask that reads neither b nor h is evaluated once for every batch entry and head."""
from __future__ import annotations
import math
from collections import OrderedDict
from tinygrad import Tensor, UOp, dtypes
from tinygrad.dtype import AddrSpace
from tinygrad.renderer import Estimates
from tinygrad.uop.ops import AxisType, KernelInfo
from fa_uop.mods import Mods, TilePlan, stand_ins
from fa_uop.tiles import flat

COLS_PER_BLOCK = 64   # column tiles classified by one block, a thread each

def classify(status:UOp, *args:UOp, mods:Mods, nq:int, nk:int, TR:int, TC:int, keys:bool) -> UOp:
  """status (B', H', row blocks, column tiles) int32 <- 0 (the masks keep nothing of the tile), 1 (some) or 2 (all that
  matters). keys: rows are queries in blocks of TR, columns keys in tiles of TC, and a key past nk counts as hidden (the tail
  needs the mask); else rows are keys and columns queries (dK/dV), and neither's tail matters."""
  Bm, Hm, nR, nC = status.shape
  b, h, rb = UOp.range(Bm, 0, AxisType.GLOBAL), UOp.range(Hm, 1, AxisType.GLOBAL), UOp.range(nR, 2, AxisType.GLOBAL)
  cb, t = UOp.range(math.ceil(nC / COLS_PER_BLOCK), 3, AxisType.GLOBAL), UOp.range(COLS_PER_BLOCK, 4, AxisType.LOCAL)
  ct = cb * COLS_PER_BLOCK + t
  cnt = UOp.placeholder((2,), dtypes.int32, slot=0, addrspace=AddrSpace.REG)    # kept, and elements that matter
  cnt = cnt.after(UOp.group(cnt[0].store(0), cnt[1].store(0)))
  r, c = UOp.range(TR, 5, AxisType.REDUCE), UOp.range(TC, 6, AxisType.REDUCE)
  row, col = rb * TR + r, ct * TC + c
  qi, kj = (row, col) if keys else (col, row)
  kept = mods.keep(b, h, qi, kj, nk if keys else None, args, (Hm - 1, nq - 1, nk - 1))
  matters = (row < nq) if keys else (row < nk) & (col < nq)
  cur = cnt.after(r, c)
  upd = UOp.group(cnt[0].store(cur[0] + (kept & matters).cast(dtypes.int32)), cnt[1].store(cur[1] + matters.cast(dtypes.int32)))
  cnt = cnt.after(upd.end(c, r))
  st = cnt[0].eq(0).where(0, cnt[0].eq(cnt[1]).where(2, 1))
  store = flat(status).index((((b * Hm + h) * nR + rb) * nC + ct).valid(ct < nC)).store(st)
  info = KernelInfo(name=f"fa_blockmap_classify_{TR}x{TC}", opts_to_apply=(), estimates=Estimates(ops=Bm * Hm * nR * nC * TR * TC, mem=Bm * Hm * nR * nC * 4))
  return store.end(t, cb, rb, h, b).sink(arg=info).rtag(1)

def compact(counts:UOp, idx:UOp, status:UOp) -> UOp:
  """per row block, from status: counts (..., 2) int32 = (partial tiles, full tiles) and idx (..., column tiles) the partial
  tiles' indices, then the full ones', each from the last down (the rest 0)"""
  *lead, nC = status.shape
  rows = math.prod(lead)
  rb = UOp.range(rows, 0, AxisType.GLOBAL)
  st = flat(status)
  cur = UOp.placeholder((2,), dtypes.int32, slot=0, addrspace=AddrSpace.REG)     # partial tiles listed, full tiles listed
  cur = cur.after(UOp.group(cur[0].store(0), cur[1].store(0)))
  j = UOp.range(nC, 1, AxisType.REDUCE)
  s, c1 = st[rb * nC + j], cur.after(j)
  total = cur.after(UOp.group(cur[0].store(c1[0] + s.eq(1).cast(dtypes.int32)), cur[1].store(c1[1] + s.eq(2).cast(dtypes.int32))).end(j))
  # second pass: write the lists now that the partial count is known
  pos = UOp.placeholder((2,), dtypes.int32, slot=1, addrspace=AddrSpace.REG)
  pos = pos.after(UOp.group(pos[0].store(0), pos[1].store(0)), total)
  j2 = UOp.range(nC, 2, AxisType.REDUCE)
  tile = nC - 1 - j2
  s2 = st[rb * nC + tile]
  p2 = pos.after(j2)
  slot = s2.eq(1).where(p2[0], total[0] + p2[1])
  writes = UOp.group(flat(idx).index((rb * nC + slot).valid(s2 > 0)).store(tile),
                     pos[0].store(p2[0] + s2.eq(1).cast(dtypes.int32)), pos[1].store(p2[1] + s2.eq(2).cast(dtypes.int32)))
  listed = writes.end(j2)
  # the slots past the lists hold 0: nothing reads them, but no index is ever left unwritten
  j3 = UOp.range(nC, 3, AxisType.REDUCE)
  fill = flat(idx).index((rb * nC + j3).valid(j3 >= total[0] + total[1])).store(0).end(j3)
  stores = UOp.group(flat(counts).index(rb * 2).store(total[0]), flat(counts).index(rb * 2 + 1).store(total[1]), listed, fill)
  info = KernelInfo(name="fa_blockmap_compact", opts_to_apply=(), estimates=Estimates(ops=rows * nC, mem=rows * nC * 8))
  return stores.end(rb).sink(arg=info).rtag(1)

def reads(mods:Mods, mod_args:tuple[Tensor, ...], B:int, H:int) -> tuple[bool, bool]:
  """whether the masks read the batch index and the head index (else their map is the same for every batch entry or head)"""
  idx, args = stand_ins(B, H, [(t.shape, t.dtype) for t in mod_args])
  out = mods.mask_mod(*idx, *args) if mods.mask_mod is not None else UOp.const(dtypes.bool, True)
  names = {getattr(u.arg, "name", None) for u in out.toposort()}   # a variable is a named ALU buffer
  return "b" in names, "h" in names

_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 16

def block_map(mods:Mods, mod_args:tuple[Tensor, ...], device:str, B:int, H:int, nq:int, nk:int, TR:int, TC:int, keys:bool=True) -> tuple[Tensor, Tensor]:
  """(counts, idx) for row blocks of TR over column tiles of TC (see classify and compact), lazily built and cached per mask,
  mod_args, shape and tiling: the same Tensors for the layers of a model (tinygrad computes them once)"""
  key = (mods, tuple(t.uop for t in mod_args), device, B, H, nq, nk, TR, TC, keys)
  if key in _CACHE:
    _CACHE.move_to_end(key)
    return _CACHE[key]
  rb, rh = reads(mods, mod_args, B, H)
  nR, nC = math.ceil((nq if keys else nk) / TR), math.ceil((nk if keys else nq) / TC)
  shape = (B if rb else 1, H if rh else 1, nR, nC)
  status = Tensor.empty(*shape, dtype=dtypes.int32, device=device)
  status = Tensor.custom_kernel(status, *[t.contiguous() for t in mod_args], fxn=lambda st, *a: classify(st, *a, mods=mods, nq=nq, nk=nk, TR=TR,
                                                                                                            TC=TC, keys=keys))[0]
  counts, idx = Tensor.empty(*shape[:3], 2, dtype=dtypes.int32, device=device), Tensor.empty(*shape, dtype=dtypes.int32, device=device)
  counts, idx = Tensor.custom_kernel(counts, idx, status, fxn=compact)[:2]
  _CACHE[key] = (counts, idx)
  if len(_CACHE) > CACHE_SIZE: _CACHE.popitem(last=False)
  return counts, idx

def map_plan(counts:UOp, idx:UOp, b:UOp, h:UOp, rb:UOp) -> TilePlan:
  """the tiles of row block rb from a block map's placeholders: its partial tiles masked, its full ones not; where it has no
  partial tile but full ones, the first full one is masked anyway (the emulator needs a first stage that runs; see tile_plan).
  Counts and indices are clamped to the map: nothing is read outside it whatever it holds."""
  Bm, Hm, nR, nC = idx.shape
  row = ((b if Bm > 1 else 0) * Hm + (h if Hm > 1 else 0)) * nR + rb
  part = flat(counts)[row * 2].maximum(0).minimum(nC)
  full = flat(counts)[row * 2 + 1].maximum(0).minimum(nC - part)
  borrow = ((part < 1) & (full > 0)).where(1, 0)
  # p is clamped too: the kernels also ask for the tile after their last (the next copy, issued before the test that stops it)
  clamp = lambda x: min(max(x, 0), nC - 1) if isinstance(x, int) else x.maximum(0).minimum(nC - 1)
  # at most nC - 1 tiles stay unmasked (one is masked, borrowed if need be): so tinygrad knows that with one column tile there is no
  # unmasked stage, whose tile, then a constant, it would load outside the loop that never runs (past a key tail)
  return TilePlan(part + borrow, (full - borrow).minimum(nC - 1), lambda p: clamp(flat(idx)[row * nC + clamp(p)]), part + full)

def kernel_plan(mods:Mods, args:tuple[UOp, ...], b:UOp, h:UOp, rb:UOp, first:UOp, last:UOp, n:int, T:int, keys:bool=True) -> tuple[tuple[UOp, ...], TilePlan]:
  """a kernel's mod buffers and the tiles of its row block rb (rows at positions first..last over n columns in tiles of T):
  with a mask_mod its block map, passed as the last two args, gives them; else mods.plan from the window and causal"""
  if mods.mask_mod is None: return args, mods.plan(first, last, n, T, keys)
  return args[:-2], map_plan(*args[-2:], b, h, rb)

def clear_cache() -> None:
  """forget every cached block map (the next call builds its map again: bench.py times that)"""
  _CACHE.clear()
