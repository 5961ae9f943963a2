"""The tile vocabulary kernels are written in: load a tile to LDS, MMA over tiles, row max/sum across lanes, broadcast over rows.
Everything here reads the fragment layout off the Target; kernels never spell out lane arithmetic."""
from __future__ import annotations
import itertools, math
from dataclasses import dataclass, field
from typing import Iterator
from tinygrad import UOp, dtypes
from tinygrad.dtype import AddrSpace, DType
from tinygrad.uop.ops import AxisType, Ops
from fa_uop.target import Target

@dataclass
class Block:
  """One thread block: its target, warps and lanes, and the counters that keep range and buffer ids unique inside a kernel."""
  target: Target
  warps: int
  first_axis: int = 0
  ids: Iterator[int] = field(default_factory=lambda: itertools.count(10))
  slots: Iterator[int] = field(default_factory=itertools.count)
  def __post_init__(self):
    self.warp = UOp.range(self.warps, next(self.ids), AxisType.LOCAL)
    self.lane = UOp.range(self.target.warp, -1, AxisType.WARP)
    self.tid = self.warp * self.target.warp + self.lane
    self.threads = self.warps * self.target.warp
  def range(self, n:int|UOp, kind=AxisType.UPCAST) -> UOp: return UOp.range(n, next(self.ids), kind)
  def lds(self, shape:tuple[int, ...], dtype:DType) -> UOp:
    return UOp.placeholder(shape, dtype, slot=next(self.slots), addrspace=AddrSpace.LOCAL)
  def reg(self, shape:tuple[int, ...], dtype:DType=dtypes.float) -> UOp:
    return UOp.placeholder(shape, dtype, slot=next(self.slots), addrspace=AddrSpace.REG)

# *** global <-> LDS ***

def flat(buf:UOp) -> UOp:
  """the flat buffer under a global placeholder. Index it, not a reshape of it: tinygrad's reshape lowering drops valid clauses
  whose ranges the simplified index no longer mentions, which ungates a store."""
  while buf.op is Ops.RESHAPE: buf = buf.src[0]
  assert buf.op is Ops.PARAM, f"expected a global buffer, got {buf.op}"
  return buf


def load_tile(blk:Block, dst:UOp, src:UOp, base:UOp, row_stride:int, rows_valid:UOp|None=None, vec:int=8) -> UOp:
  """Copy a (rows, cols) tile from a flat global buffer at base + r*row_stride + c into the LDS view dst, all threads together,
  vec elements (16 bytes of half) per access. With rows_valid, rows at or past it read nothing and are zero in LDS."""
  rows, cols = dst.shape
  assert cols % vec == 0 and (rows * cols // vec) % blk.threads == 0, f"tile {rows}x{cols} does not split over {blk.threads} threads"
  it, v = blk.range(rows * cols // vec // blk.threads), blk.range(vec)
  # the guarded copy walks the threads in reverse: tinygrad merges same-address LDS stores kernel-wide, even from different loops,
  # so it must not spell its stores like the unguarded copy of the same tile
  tid = blk.tid if rows_valid is None else blk.threads - 1 - blk.tid
  chunk = it * blk.threads + tid
  r, c = chunk // (cols // vec), chunk % (cols // vec) * vec + v
  idx = base + r * row_stride + c
  return dst[r, c].store(src.index(idx if rows_valid is None else idx.valid(r < rows_valid))).end(it, v)

# *** register tiles in the MMA accumulator layout ***

def acc_tile(blk:Block, tm:int, tn:int, dtype:DType=dtypes.float) -> UOp:
  """a warp's (tm·M) x (tn·N) tile in C fragments: registers shaped (tm, tn, elements)"""
  return blk.reg((tm, tn, blk.target.c.nelems), dtype)

def rows_view(blk:Block, t:UOp) -> UOp:
  """a C-fragment register tile seen as (rows this lane holds, columns this lane holds)"""
  c = blk.target.c
  tm, tn, _ = t.shape
  edig = [c.split[d] for d in c.elems]
  rdig = [i for i, d in enumerate(c.elems) if d < c.nrow]
  cdig = [i for i, d in enumerate(c.elems) if d >= c.nrow]
  v = t.reshape(tm, tn, *edig).permute(0, *[2 + i for i in rdig], 1, *[2 + i for i in cdig])
  return v.reshape(tm * math.prod(edig[i] for i in rdig), tn * math.prod(edig[i] for i in cdig))

def tile_coords(blk:Block, m:UOp|int, n:UOp|int, e:UOp|int) -> tuple[UOp, UOp]:
  """(row, col) in the warp's tile of element e of C fragment (m, n), for this lane"""
  M, N, _ = blk.target.mma
  r, c = blk.target.c.coords(blk.lane, e)
  return m * M + r, n * N + c

def row_coords(blk:Block, nrows:int) -> list[UOp]:
  """the warp-tile row of each row of rows_view, for this lane"""
  c = blk.target.c
  rdig = c.elem_digits(rows=True)
  per_m = math.prod(c.split[d] for d in rdig)
  # an element index that walks only the row digits of the fragment
  rstride = {d: math.prod(c.split[x] for x in c.elems[c.elems.index(d)+1:]) for d in rdig}
  def elem(j:int) -> int:
    return sum((j // math.prod(c.split[x] for x in rdig[k+1:]) % c.split[d]) * rstride[d] for k, d in enumerate(rdig))
  return [tile_coords(blk, i // per_m, 0, elem(i % per_m))[0] for i in range(nrows)]

# *** MMA over tiles ***

def mma(blk:Block, acc:UOp, a:UOp, b:UOp, a_frag=None) -> UOp:
  """acc[tm, tn] += A[tm] · B[tn]ᵀ over all of K: a is a (tm·M, K) tile view, b a (tn·N, K) tile view (LDS or registers).
  a_frag(m, k) may supply A fragments directly (P kept in registers). Returns the store that ends the MMA loops."""
  t = blk.target
  M, N, K = t.mma
  tm, tn, _ = acc.shape
  ksteps = b.shape[1] // K
  kk, mi, ni = blk.range(ksteps, AxisType.REDUCE), blk.range(tm, AxisType.LOOP), blk.range(tn, AxisType.LOOP)
  af = a_frag(mi, kk) if a_frag is not None else t.a.view(a.reshape(tm, M, ksteps, K)[mi, :, kk, :], blk.lane)
  bf = t.b.view(b.reshape(tn, N, ksteps, K)[ni, :, kk, :], blk.lane)
  out = acc[mi, ni]
  return out.store(UOp.wmma(af, bf, out.after(kk), (N, M, K), t.mma_device, t.warp)).end(mi, ni).end(kk)

def a_from_acc(blk:Block, p:UOp) -> UOp|None:
  """A fragments read straight from C-fragment registers p (tm, tn, e) where the two layouts line up lane for lane (on mma.sync two
  n8 accumulators are one k16 operand): p regrouped as (tm, K-steps, A elements). None where the layouts differ."""
  t = blk.target
  M, N, K = t.mma
  src = []
  for ea in range(t.a.nelems):
    hit = [j * t.c.nelems + ec for j in range(K // N) for ec in range(t.c.nelems)
           if all(t.a.coords(l, ea) == (t.c.coords(l, ec)[0], t.c.coords(l, ec)[1] + j * N) for l in range(t.warp))]
    if not hit: return None
    src.append(hit[0])
  if src != list(range(len(src))): return None  # a lane-local permutation would need a register shuffle; no target needs one
  tm, tn, e = p.shape
  return p.reshape(tm, tn // (K // N), (K // N) * e)

# *** across the lanes of a warp ***

def lane_reduce(blk:Block, vals:UOp, op:Ops) -> UOp:
  """Reduce each row statistic in vals (a register vector, one entry per row this lane holds) over the lanes that share the row,
  with a butterfly of lane-xor exchanges: the target's shuffle where it has one, else through LDS (the portable twin)."""
  offs = blk.target.c.lane_xor_offsets(rows=False)
  n = vals.shape[0]
  if blk.target.shuffle is not None:
    for off in offs:
      r = blk.range(n, AxisType.LOOP)
      vals = vals.after(vals[r].store(vals[r].alu(op, blk.target.shuffle(vals[r], off, blk.lane))).end(r))
    return vals
  scratch, prev = blk.lds((blk.warps, n, blk.target.warp), dtypes.float), ()
  for off in offs:
    r = blk.range(n, AxisType.LOOP)
    st = scratch.after(*prev)[blk.warp, r, blk.lane].store(vals[r]).end(r)
    r2 = blk.range(n, AxisType.LOOP)
    step = vals[r2].store(vals[r2].alu(op, scratch.after(st)[blk.warp, r2, blk.lane ^ off])).end(r2)
    vals, prev = vals.after(step), (step.barrier(),)  # the next step overwrites the scratch only once every lane has read it
  return vals
