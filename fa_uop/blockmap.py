"""Which tiles a mask_mod keeps (the block mask of FlexAttention), so the attention kernels visit only those and mask only the
ones it cuts. Two small kernels: one evaluates the masks (mask_mod with the window, causal and the sequence ends) over every
element of every tile and classifies the tile as empty, partial or full; one lists, for each row block, its partial tiles
and then its full ones, from the last down; two more order the kernel's blocks (schedule). The lists are cached per mask,
mod_args and shape, so the layers of a model that share a mask build them once. A mask that reads neither b nor h is evaluated
once for every batch entry and head."""
from __future__ import annotations
import math
from typing import Callable
from collections import OrderedDict
from dataclasses import replace
from tinygrad import Tensor, UOp, dtypes
from tinygrad.dtype import AddrSpace
from tinygrad.renderer import Estimates
from tinygrad.uop.ops import AxisType, KernelInfo
from fa_uop.mods import Mods, TilePlan, stand_ins, args_read, only_read
from fa_uop.tiles import flat

COLS_PER_BLOCK = 64   # column tiles classified by one block, a thread each
# the schedule's model of the GPU: blocks resident per multiprocessor (registers allow 2 of the attention kernels on the H100), and a
# block's time outside its tile loop, in tiles (8.5 measured on the H100 at 64x32, docs/journal.md)
RESIDENT, OVERHEAD = 2, 8

def classify(status:UOp, *args:UOp, mods:Mods, nq:int, nk:int, TR:int, TC:int, keys:bool) -> UOp:
  """status (B', H', row blocks, column tiles) int32 <- 0 (the masks keep nothing of the tile), 1 (some) or 2 (all that
  matters). keys: rows are queries in blocks of TR, columns keys in tiles of TC, and a key past nk counts as hidden (the tail
  needs the mask); else rows are keys and columns queries (dK/dV), and neither's tail matters."""
  Bm, Hm, nR, nC = status.shape
  b, h, rb = UOp.range(Bm, 0, AxisType.GLOBAL), UOp.range(Hm, 1, AxisType.GLOBAL), UOp.range(nR, 2, AxisType.GLOBAL)
  per = min(COLS_PER_BLOCK, nC)   # no idle threads where there are few tiles (the emulator runs every thread, each a long loop)
  cb, t = UOp.range(math.ceil(nC / per), 3, AxisType.GLOBAL), UOp.range(per, 4, AxisType.LOCAL)
  ct = cb * per + t
  if mods.span is not None: st = _span_status(mods.span, *args, rb, ct, nq=nq, nk=nk, TR=TR, TC=TC, keys=keys)
  else: st = _element_status(b, h, rb, ct, args, mods=mods, nq=nq, nk=nk, TR=TR, TC=TC, keys=keys, Hm=Hm)
  store = flat(status).index((((b * Hm + h) * nR + rb) * nC + ct).valid(ct < nC)).store(st)
  ops = Bm * Hm * nR * nC * (TR + TC if mods.span is not None else TR * TC)
  info = KernelInfo(name=f"fa_blockmap_classify_{TR}x{TC}", opts_to_apply=(), estimates=Estimates(ops=ops, mem=Bm * Hm * nR * nC * 4))
  return store.end(t, cb, rb, h, b).sink(arg=info).rtag(1)

def _element_status(b:UOp, h:UOp, rb:UOp, ct:UOp, args:tuple[UOp, ...], *, mods:Mods, nq:int, nk:int, TR:int, TC:int, keys:bool, Hm:int) -> UOp:
  """a tile's status from the masks evaluated on each of its elements"""
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
  return cnt[0].eq(0).where(0, cnt[0].eq(cnt[1]).where(2, 1))

def _span_status(span:tuple[int|None, int|None], pq:UOp, pk:UOp, rb:UOp, ct:UOp, *, nq:int, nk:int, TR:int, TC:int, keys:bool) -> UOp:
  """a tile's status under at_positions' window alone (Mods.span), from the ranges of its real rows' and columns' positions: empty
  where no query's range reaches the keys', full where every query's holds them all (and, with keys, the tile has no key past nk),
  else partial, which the kernels' mask makes exact (a tile whose positions are not contiguous may be listed partial and not be)"""
  left, right = span
  def bounds(pos:UOp, base:UOp, T:int, n:int, slot:int, axis:int) -> tuple[UOp, UOp]:
    acc = UOp.placeholder((2,), dtypes.int64, slot=slot, addrspace=AddrSpace.REG)    # the least and the greatest position
    acc = acc.after(UOp.group(acc[0].store(1 << 40), acc[1].store(-(1 << 40))))
    x = UOp.range(T, axis, AxisType.REDUCE)
    i, cur = base * T + x, acc.after(x)
    p = flat(pos)[i.minimum(n - 1)].cast(dtypes.int64)
    acc = acc.after(UOp.group(acc[0].store((i < n).where(cur[0].minimum(p), cur[0])), acc[1].store((i < n).where(cur[1].maximum(p), cur[1]))).end(x))
    return acc[0], acc[1]
  (qlo, qhi), (klo, khi) = (bounds(pq, rb, TR, nq, 0, 5), bounds(pk, ct, TC, nk, 1, 6)) if keys else \
    (bounds(pq, ct, TC, nq, 0, 6), bounds(pk, rb, TR, nk, 1, 5))
  none = (qhi < qlo) | (khi < klo)   # no real row or column
  full = UOp.const(True, dtypes.bool) if not keys or nk % TC == 0 else (ct + 1) * TC <= nk
  if left is not None: none, full = none | (khi < qlo - left), full & (klo >= qhi - left)
  if right is not None: none, full = none | (klo > qhi + right), full & (khi <= qlo + right)
  return none.where(0, full.where(2, 1))

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

def _map_row(shape:tuple[int, ...], b:UOp, h:UOp, rb:UOp) -> UOp:
  """the row of a (Bm, Hm, nR, ...) map that batch entry b, head h, row block rb reads: its axes of one are shared"""
  Bm, Hm, nR = shape[:3]
  return ((b if Bm > 1 else 0) * Hm + (h if Hm > 1 else 0)) * nR + rb

def _work(counts:UOp, nC:int, HX:int, G:int, j:UOp, rb:UOp, g:int) -> UOp:
  """int64 tiles a grid block lists in head g of its G (grid head j: batch entry j // HX, head (j % HX)·G + g), counts clamped"""
  cnt, row = flat(counts), _map_row(counts.shape, j // HX, j % HX * G + g, rb)
  part = cnt[row * 2].maximum(0).minimum(nC)
  return (part + cnt[row * 2 + 1].maximum(0).minimum(nC - part)).cast(dtypes.int64)

def _block_work(counts:UOp, nC:int, HX:int, G:int, j:UOp, rb:UOp) -> UOp:
  """a grid block's work: its tiles over its G heads, plus OVERHEAD"""
  return sum((_work(counts, nC, HX, G, j, rb, g) for g in range(G)), UOp.const(OVERHEAD, dtypes.int64))

def _items(n:int) -> tuple[UOp, tuple[UOp, UOp]]:
  """one thread per item of n (a grid block of the kernel a schedule orders), and the ranges to end. Threads past the last item
  redo it and store what it stores: no guard, which tinygrad's valid simplification would also take as true for the loads the
  stored values need, and drop from them."""
  per = min(COLS_PER_BLOCK, n)
  cb, t = UOp.range(math.ceil(n / per), 0, AxisType.GLOBAL), UOp.range(per, 1, AxisType.LOCAL)
  return (cb * per + t).minimum(n - 1), (t, cb)

def head_sort(sw:UOp, pre:UOp, pos:UOp, total:UOp, counts:UOp, *, HX:int, G:int, nC:int) -> UOp:
  """per grid head j (blocks j·nR .. j·nR+nR-1), its blocks longest first (ties: lower row block first): sw (B·HX·nR,) int64 <- their
  work (see _block_work) in that order, pre likewise <- the work of the head's blocks before each, pos (B·HX·nR,) int32 <- each block's
  place in the order; total (B·HX,) int64 <- the head's work"""
  n, nR = sw.shape[0], counts.shape[2]
  i, ends = _items(n)
  j, r = i // nR, i % nR
  w = _block_work(counts, nC, HX, G, j, r)
  acc = UOp.placeholder((3,), dtypes.int64, slot=0, addrspace=AddrSpace.REG)   # blocks before this one, their work, the head's
  acc = acc.after(UOp.group(*[acc[x].store(0) for x in range(3)]))
  r2 = UOp.range(nR, 2, AxisType.REDUCE)
  w2, cur = _block_work(counts, nC, HX, G, j, r2), acc.after(r2)
  first = (w2 > w) | (w2.eq(w) & (r2 < r))
  acc = acc.after(UOp.group(acc[0].store(cur[0] + first.cast(dtypes.int64)), acc[1].store(cur[1] + first.where(w2, 0)),
                            acc[2].store(cur[2] + w2)).end(r2))
  rank = acc[0].cast(dtypes.int32)
  stores = UOp.group(flat(sw).index(j * nR + rank).store(w), flat(pre).index(j * nR + rank).store(acc[1]), flat(pos).index(i).store(rank),
                     flat(total).index(j).store(acc[2]))  # every block of a head stores its total
  info = KernelInfo(name="fa_blockmap_head_sort", opts_to_apply=(), estimates=Estimates(ops=n * nR * G, mem=n * 24))
  return stores.end(*ends).sink(arg=info).rtag(1)

# the share of the kernel's time by whose end every block should have started (below 1: the model's blocks are not all equally fast;
# on the H100 the document mask's forward took 1.502, 1.490 and 1.471 ms at 1, 15/16 and 7/8)
LATEST = 7 / 8

def schedule(order:UOp, *srcs:UOp, slots:int) -> UOp:
  """order (B·HX·nR,) int32 <- the grid's blocks (j·nR + rb: grid head j, row block rb) in the order they start: head by head (the
  blocks of a head read the same keys and values, which the cache then holds), each head's longest first, except that a block
  starts no later than it must to end with the kernel. In work done by `slots` blocks running at once, each taking its work, block
  i of head j starts head by head at C_j + pre_i (C_j: the work of the heads before j; pre_i: of its head's blocks before it), and
  must by LATEST·C - slots·work_i (C: all the work); the key is the smaller, then the head, then the place in the head. Keys of a
  head grow along head_sort's order, so each block counts those before it in another head by a binary search, in its own by its place.
  srcs: head_sort's (sw, pre, pos, total), or (pos,) alone for one head, whose blocks start in head_sort's order: a kernel takes only
  buffers it reads (TinyJit's CUDA graph launches it with every buffer it is handed)."""
  i, ends = _items(n:=order.shape[0])
  info = KernelInfo(name="fa_blockmap_schedule", opts_to_apply=(), estimates=Estimates(ops=n, mem=n * 8))
  if len(srcs) == 1:
    return flat(order).index(flat(srcs[0])[i].maximum(0).minimum(n - 1)).store(i.cast(dtypes.int32)).end(*ends).sink(arg=info).rtag(1)
  sw, pre, pos, total = srcs
  BH = total.shape[0]
  nR = n // BH
  j, tot = i // nR, flat(total)
  c = UOp.placeholder((2,), dtypes.int64, slot=0, addrspace=AddrSpace.REG)    # the work of the heads before j, and of all
  c = c.after(UOp.group(c[0].store(0), c[1].store(0)))
  j1 = UOp.range(BH, 2, AxisType.REDUCE)
  cj = c.after(j1)
  c = c.after(UOp.group(c[0].store(cj[0] + (j1 < j).where(tot[j1], 0)), c[1].store(cj[1] + tot[j1])).end(j1))
  latest = c[1] * round(LATEST * 64) // 64
  key_at = lambda start, m: (start + flat(pre)[m]).minimum(latest - slots * flat(sw)[m])
  key = key_at(c[0], j * nR + flat(pos)[i])
  st = UOp.placeholder((2,), dtypes.int64, slot=1, addrspace=AddrSpace.REG)   # the work of the heads before j2, blocks before this one
  st = st.after(UOp.group(st[0].store(0), st[1].store(0)))
  j2 = UOp.range(BH, 3, AxisType.REDUCE)
  cur = st.after(j2)
  # head j2's blocks before this one: those whose key is below this one's (or equal, where j2 < j)
  bound = key + (j2 < j).cast(dtypes.int64)
  lo, hi = UOp.const(0, dtypes.int32), UOp.const(nR, dtypes.int32)
  for _ in range(nR.bit_length()):
    mid = (lo + hi) // 2
    more = (lo < hi) & (key_at(cur[0], j2 * nR + mid.minimum(nR - 1)) < bound)
    lo, hi = more.where(mid + 1, lo), ((lo < hi) & more.logical_not()).where(mid, hi)
  before = j2.eq(j).where(flat(pos)[i], lo).cast(dtypes.int64)
  st = st.after(UOp.group(st[0].store(cur[0] + tot[j2]), st[1].store(cur[1] + before)).end(j2))
  info = replace(info, estimates=Estimates(ops=n * BH * nR.bit_length(), mem=n * 4))
  return flat(order).index(st[1].cast(dtypes.int32)).store(i).end(*ends).sink(arg=info).rtag(1)

def reads(mods:Mods, mod_args:tuple[Tensor, ...], B:int, H:int) -> tuple[bool, bool, tuple[int, ...]]:
  """whether the masks read the batch index and the head index (else their map is the same for every batch entry or head), and
  which of mod_args they read"""
  idx, args = stand_ins(B, H, [(t.shape, t.dtype) for t in mod_args])
  out = mods.mask_mod(*idx, *args) if mods.mask_mod is not None else UOp.const(True, dtypes.bool)
  names = {getattr(u.arg, "name", None) for u in out.toposort()}   # a variable is a named ALU buffer
  return "b" in names, "h" in names, args_read(out, args)

_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 16

def block_map(mods:Mods, mod_args:tuple[Tensor, ...], device:str, B:int, H:int, nq:int, nk:int, TR:int, TC:int, keys:bool=True, group:int=1,
              slots:int=1) -> tuple[Tensor, ...]:
  """(counts, idx, order) for row blocks of TR over column tiles of TC (see classify and compact; idx left out where there is one
  column tile), and the order a kernel whose blocks each take `group` heads' row block starts them in on `slots` blocks at once (see
  schedule); lazily built and cached per mask, mod_args, shape, tiling and schedule: the same Tensors for the layers of a model
  (tinygrad computes them once)"""
  key = (mods, tuple(t.uop for t in mod_args), device, B, H, nq, nk, TR, TC, keys, group, slots)
  if key in _CACHE:
    _CACHE.move_to_end(key)
    return _CACHE[key]
  rb, rh, used = reads(mods, mod_args, B, H)
  # the classification evaluates the mask alone: it gets only the buffers the mask reads (see fa_uop.mods.picked)
  (mask_mod,), cargs = only_read(used, mod_args, (mods.mask_mod, 4))
  cmods = replace(mods, mask_mod=mask_mod, n_args=len(cargs))
  nR, nC = math.ceil((nq if keys else nk) / TR), math.ceil((nk if keys else nq) / TC)
  shape = (B if rb else 1, H if rh else 1, nR, nC)
  status = Tensor.empty(*shape, dtype=dtypes.int32, device=device)
  status = Tensor.custom_kernel(status, *[t.contiguous() for t in cargs], fxn=lambda st, *a: classify(st, *a, mods=cmods, nq=nq, nk=nk, TR=TR,
                                                                                                            TC=TC, keys=keys))[0]
  counts, idx = Tensor.empty(*shape[:3], 2, dtype=dtypes.int32, device=device), Tensor.empty(*shape, dtype=dtypes.int32, device=device)
  counts, idx = Tensor.custom_kernel(counts, idx, status, fxn=compact)[:2]
  HX = H // group
  ints = lambda n, dt: Tensor.empty(n, dtype=dt, device=device)
  sw, pre, pos, total = Tensor.custom_kernel(ints(B * HX * nR, dtypes.int64), ints(B * HX * nR, dtypes.int64), ints(B * HX * nR, dtypes.int32),
                                             ints(B * HX, dtypes.int64), counts, fxn=lambda *a: head_sort(*a, HX=HX, G=group, nC=nC))[:4]
  order = Tensor.custom_kernel(ints(B * HX * nR, dtypes.int32), *((sw, pre, pos, total) if B * HX > 1 else (pos,)),
                               fxn=lambda *a: schedule(*a, slots=slots))[0]
  # with one column tile every listed tile is tile 0, and a grid of one block starts it first: the kernels then read no list or no
  # order, and are not handed one (see schedule)
  _CACHE[key] = (counts, *((idx,) if nC > 1 else ()), *((order,) if B * HX * nR > 1 else ()))
  if len(_CACHE) > CACHE_SIZE: _CACHE.popitem(last=False)
  return _CACHE[key]

def launch(mods:Mods, args:tuple[UOp, ...], B:int, HX:int, nR:int, last_first:bool) -> tuple[tuple[UOp, ...], tuple[UOp, ...], UOp, UOp, UOp]:
  """(args less the schedule, the grid's ranges (to end), batch entry, grid head, row block) of a kernel over B x HX x nR blocks.
  With a mask_mod, block g runs the block its schedule (the last arg) lists g-th; else the grid runs head by head, each head's
  row blocks last to first where last_first (under causal and windows the later rows see the most keys: the longest start first)."""
  if mods.mask_mod is None:
    b, hx, r = UOp.range(B, 0, AxisType.GLOBAL), UOp.range(HX, 1, AxisType.GLOBAL), UOp.range(nR, 2, AxisType.GLOBAL)
    return args, (r, hx, b), b, hx, (nR - 1) - r if last_first else r
  n = B * HX * nR
  g = UOp.range(n, 0, AxisType.GLOBAL)
  if n == 1: return args, (g,), g, g, g   # a grid of one block is handed no schedule (block_map)
  item = flat(args[-1])[g].maximum(0).minimum(n - 1)   # clamped: whatever the order holds, no block reads outside its buffers
  return args[:-1], (g,), item // (HX * nR), item // nR % HX, item % nR

def persistent_launch(B:int, HX:int, nR:int, last_first:bool, blocks:int) -> tuple[tuple[UOp, ...], UOp, Callable[[UOp], tuple[UOp, UOp, UOp]]]:
  """launch's tiles (without a mask_mod's schedule) on a grid of at most `blocks` blocks (one an SM), block g running tiles g, g + G,
  ... (G blocks): (the grid's range, the trips of this block's loop over its tiles, and at(t): the batch entry, head and row block of
  its trip t, gi in place of the block's index where given), in launch's order"""
  n = B * HX * nR
  G = min(blocks, n)
  g = UOp.range(G, 0, AxisType.GLOBAL)
  def at(t:UOp, gi:UOp|None=None) -> tuple[UOp, UOp, UOp]:
    i = (g if gi is None else gi) + t * G
    return i // (HX * nR), i // nR % HX, (nR - 1) - i % nR if last_first else i % nR
  return (g,), (n - 1 - g) // G + 1, at

def map_plan(counts:UOp, idx:UOp|None, b:UOp, h:UOp, rb:UOp) -> TilePlan:
  """the tiles of row block rb from a block map's placeholders: its partial tiles masked, its full ones not; where it has no
  partial tile but full ones, the first full one is masked anyway (the emulator needs a first stage that runs; see tile_plan), and
  with two column tiles both are (no unmasked stage of at most one trip). Counts and indices are clamped to the map: nothing is
  read outside it whatever it holds. idx None: one column tile, tile 0."""
  nC, row = 1 if idx is None else idx.shape[3], _map_row(counts.shape, b, h, rb)
  part = flat(counts)[row * 2].maximum(0).minimum(nC)
  full = flat(counts)[row * 2 + 1].maximum(0).minimum(nC - part)
  borrow = ((part < 1) & (full > 0)).where(1, 0)
  # p is clamped too: the kernels also ask for the tile after their last (the next copy, issued before the test that stops it)
  clamp = lambda x: min(max(x, 0), nC - 1) if isinstance(x, int) else x.maximum(0).minimum(nC - 1)
  tile = lambda p: 0 if idx is None else clamp(flat(idx)[row * nC + clamp(p)])
  # no unmasked stage of at most one trip (see tile_plan): with two column tiles every listed tile is visited masked
  if nC == 2: return TilePlan(part + full, 0, tile, part + full, listed=True, last=1)
  # at most nC - 1 tiles stay unmasked (one is masked, borrowed if need be): so tinygrad knows that with one column tile there is no
  # unmasked stage, whose tile, then a constant, it would load outside the loop that never runs (past a key tail)
  return TilePlan(part + borrow, (full - borrow).minimum(nC - 1), tile, part + full, listed=True, last=nC - 1)

def kernel_plan(mods:Mods, args:tuple[UOp, ...], b:UOp, h:UOp, rb:UOp, first:UOp, last:UOp, n:int, T:int, stages:int, keys:bool=True) -> tuple[tuple[UOp, ...], TilePlan]:
  """a kernel's mod buffers and the tiles of its row block rb (rows at positions first..last over n columns in tiles of T):
  with a mask_mod its block map, passed after the mod buffers (the schedule already taken by launch), gives them; else mods.plan
  from the window and causal; in one masked stage where stages is 1 (Target.stages)"""
  if mods.mask_mod is None: args, plan = args, mods.plan(first, last, n, T, keys)
  else:
    maps = args[mods.n_args:]   # counts, and the lists where there are several column tiles
    args, plan = args[:mods.n_args], map_plan(maps[0], maps[1] if len(maps) > 1 else None, b, h, rb)
  return args, plan.one_stage() if stages == 1 else plan

def clear_cache() -> None:
  """forget every cached block map (the next call builds its map again: bench.py times that)"""
  _CACHE.clear()
