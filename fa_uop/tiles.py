"""The tile vocabulary kernels are written in: copy a tile to LDS and wait for it, fragments of LDS tiles, MMA over register tiles,
row max/sum across lanes. Everything here reads the hardware off the Target: its fragment layouts, and where it has them its fast
paths (async copies, ldmatrix, shuffles), each with a portable twin the emulator runs. Kernels never spell out lane arithmetic."""
from __future__ import annotations
import functools, itertools, math
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator
from tinygrad import UOp, dtypes
from tinygrad.dtype import AddrSpace, DType
from tinygrad.uop.ops import AxisType, Ops
from fa_uop.target import Target

@dataclass
class Block:
  """One thread block: its target, warps and lanes, and the counters that keep range, buffer and name ids unique in a kernel. With a
  producer (warp specialisation) a warpgroup follows the `warps` (the consumers, whose threads `threads` counts): its first thread issues
  the bulk copies, then it leaves (fa_uop.forward.attend), and every other tile function runs on the consumers only."""
  target: Target
  warps: int
  producer: bool = False
  rebuilt: bool = False   # wgmma's descriptors where A is in LDS rebuilt each K-step (FwdConfig.rebuilt)
  ids: Iterator[int] = field(default_factory=lambda: itertools.count(10))
  slots: Iterator[int] = field(default_factory=itertools.count)
  def __post_init__(self):
    assert self.warps & (self.warps - 1) == 0, f"warps={self.warps} must be a power of two"
    self.warp = UOp.range(self.warps + 4 * self.producer, next(self.ids), AxisType.LOCAL)
    self.lane = UOp.range(self.target.warp, -1, AxisType.WARP)
    self.tid = self.warp * self.target.warp + self.lane
    self.threads = self.warps * self.target.warp
    # the producer's threads (None: no producer), and the thread that issues bulk copies: the producer's first, else thread 0
    self.producing = (self.warp >= self.warps) if self.producer else None
    self.leader = self.tid.eq(self.threads if self.producer else 0)
  def range(self, n:int|UOp, kind=AxisType.LOOP) -> UOp: return UOp.range(n, next(self.ids), kind)
  def lds(self, shape:tuple[int, ...], dtype:DType) -> UOp:
    return UOp.placeholder(shape, dtype, slot=next(self.slots), addrspace=AddrSpace.LOCAL)
  def reg(self, shape:tuple[int, ...], dtype:DType=dtypes.float) -> UOp:
    return UOp.placeholder(shape, dtype, slot=next(self.slots), addrspace=AddrSpace.REG)

def split_warp(blk:Block, split:int, rows:int, *cols:int) -> tuple[UOp|int, ...]:
  """where this warp works in a block whose warps split `split` ways along columns (FwdConfig.split, BwdConfig.split): its column group,
  its first row (rows a warp) within its row group, and for each of cols (columns a warp, of each dimension split) its first column;
  0s without a split. The group is warp // (warps/split), not the row spelled warp % (warps/split): tinygrad splits a thread range
  taken modulo into two thread dimensions whose hardware order reverses the warps', and wgmma's warpgroups are the hardware's"""
  if split == 1: return (0, blk.warp * rows, *(0 for _ in cols))
  per = blk.warps // split
  cg = blk.warp // per
  return (cg, (blk.warp - cg * per) * rows, *(cg * c for c in cols))

def flat(buf:UOp) -> UOp:
  """the flat buffer under a global placeholder. Index it, not a reshape of it: tinygrad's reshape lowering drops valid clauses
  whose ranges the simplified index no longer mentions, which ungates a store."""
  while buf.op is Ops.RESHAPE: buf = buf.src[0]
  assert buf.op is Ops.PARAM, f"expected a global buffer, got {buf.op}"
  return buf

# *** LDS tiles ***

@dataclass(frozen=True)
class Smem:
  """A (rows, cols) tile of 16- or 8-bit elements in LDS. Each row's 16-byte chunks are XOR-swizzled by the row, so the 8 rows an
  8x8 fragment read touches, and the 16-byte chunks a copy writes, fall in 8 different bank groups: no padding, no conflicts. Where
  the target pads instead (Target.lds_pad), each row is 16 bytes longer, which shifts consecutive rows by 4 banks to the same end"""
  buf: UOp
  rows: int
  cols: int
  atom: int = 0   # else: stored as column blocks of `atom` (rows of 128, 64 or 32 bytes), each rows x atom: Hopper's swizzles (wgmma)
  base: UOp|int = 0   # where the tile starts in buf: the tiles of a ring (smem's n) follow one another
  itemsize: int = 2   # bytes an element
  pad: int = 0        # else: rows of cols + pad elements, not swizzled (Target.lds_pad)
  @property
  def vec(self) -> int: return 16 // self.itemsize   # elements in a 16-byte chunk
  @property
  def size(self) -> int: return self.rows * (self.cols + self.pad)   # elements a tile takes
  def index(self, r:UOp|int, c:UOp|int) -> UOp|int:
    v = self.vec
    if self.pad: return self.base + r * (self.cols + self.pad) + c
    if self.atom:   # the hardware's swizzle of an atom of 8 rows: its n 16-byte chunks a row XORed with the row's digit of 8 // n
      n = self.atom // v
      return self.base + c // self.atom * (self.rows * self.atom) + r * self.atom + ((c % self.atom // v) ^ (r // (8 // n) % n)) * v + c % v
    # XOR within aligned groups of g chunks (g: the largest power of two dividing the chunks per row, at most 8), so a chunk
    # never leaves its row; the XOR value changes every 8/g rows, which spreads any 8 consecutive rows over all 8 bank groups
    chunks = self.cols // v
    g = min(8, chunks & -chunks)
    return self.base + r * self.cols + ((c // v) ^ (r // (8 // g) % g)) * v + c % v
  def at(self, r:UOp|int, c:UOp|int) -> UOp: return self.buf.index(self.index(r, c))
  def after(self, *deps:UOp) -> Smem: return replace(self, buf=self.buf.after(*deps))
  def nth(self, i:UOp|int) -> Smem: return replace(self, base=i * self.size)   # tile i of a ring (smem's n)

def smem(blk:Block, rows:int, cols:int, dtype:DType, atom:int=0, n:int=1) -> Smem:
  """a rows x cols LDS tile (in swizzle atoms of `atom` columns, rows of 128, 64 or 32 bytes; 0: XOR-swizzled rows, or rows padded by 16
  bytes where the target says so), or the first of a ring of n (Smem.nth)"""
  assert cols * dtype.itemsize % 16 == 0, f"LDS tile rows of {cols} {dtype} elements are not whole 16-byte chunks"
  assert not atom or (atom * dtype.itemsize in (32, 64, 128) and cols % atom == 0 and rows % 8 == 0), \
    f"swizzle atoms of 128, 64 or 32 bytes a row and 8 rows, got {rows}x{cols} {dtype} in atoms of {atom}"
  pad = 0 if atom else blk.target.lds_row(cols, dtype.itemsize) - cols
  return Smem(blk.lds((n * rows * (cols + pad),), dtype), rows, cols, atom, itemsize=dtype.itemsize, pad=pad)

# *** global -> LDS ***

def rows_at(base:UOp, stride:int) -> Callable[[UOp], UOp]:
  """rows of a matrix stored densely: row r starts at base + r*stride"""
  return lambda r: base + r * stride

def copy_tile(blk:Block, dst:Smem, src:UOp, row:Callable[[UOp], UOp], rows_valid:UOp|int|None=None, variant:int=0, run:int|None=None,
              stride:int|None=None, cols:int|None=None) -> UOp:
  """Start copying rows of a flat global buffer (row r of the tile starting at element row(r), e.g. rows_at(base, D), or a
  paged cache's lookup) into dst, 16 bytes per thread and step. Rows at or past rows_valid read nothing and arrive as zeros.
  run: the rows come in runs of that many stored densely (a cache's pages), so row() is asked only where a run starts, once per
  run and thread rather than once per 16 bytes; stride: elements from one row of a run to the next (None: the columns copied, dense;
  more where the tile is a column slice of its rows, as Vᵀ's is); cols: the first that many of each row's columns (None: all; the
  rest, an uneven split's phantom columns, are left as they are). Returns the copy; wait_tile makes its result visible to every thread.
  Fast path: the target's async copy. Twin: loads and LDS stores, which tinygrad merges across the whole kernel when two copies
  spell the same LDS address, so each copy into one tile passes its own variant (the threads are walked in another order)."""
  run = dst.rows if run is None or run >= dst.rows else run
  assert dst.rows % run == 0, f"runs of {run} rows do not tile {dst.rows} rows"
  cols = cols or dst.cols
  return UOp.group(*[_copy_rows(blk, dst, src, j * run, run, row(j * run), rows_valid, variant, stride or cols, cols) for j in range(dst.rows // run)])

def in_order(blk:Block, x:UOp, t:Smem, *deps:UOp) -> UOp:
  """the int x once the copies deps into the LDS tile t are done, where the target keeps memory accesses from moving across that point
  (Target.fence): a copy whose addresses are made of it loads after their stores, its pieces not in registers beside theirs; else x"""
  if blk.target.fence is None: return x
  return blk.target.fence(x, t.buf.after(*deps).index(0)).maximum(int(x.vmin)).minimum(int(x.vmax))

def all_of(*conds:UOp|None) -> UOp|None:
  """the conjunction of the conditions that are given (None: no condition)"""
  given = [x for x in conds if x is not None]
  return functools.reduce(lambda x, y: x & y, given) if given else None

def _pieces(blk:Block, rows:int, cols:int, asm:bool, variant:int=0, vec:int=8) -> tuple[UOp, UOp, UOp, UOp|None]:
  """The walk over a rows x cols tile's 16-byte pieces (vec elements each), blk.threads at a time: its range, this thread's piece's
  row and column, and whether the piece is in the tile (None: always). An inline asm statement (asm) cannot be vectorized, so its walk
  loops, at least twice: a statement survives as a dependency only at the END of a loop, and tinygrad removes a one-trip loop; the
  extra trip is switched off. variant walks the threads in another order. Where a row's pieces are no power of two, rotated, so that
  tinygrad knows the thread stays in [0, threads) and the row and column it divides out of it with it: as `tid ^ variant`, which it
  bounds nowhere, they were unbounded and their indices int64 (RDNA's causal dK/dV at D=192: 256 VGPRs spilled, none rotated). Else
  as measured before, with shifts and masks (rotated, gfx1100's 64x16x4 forward at D=128 spilled 14-19: docs/journal.md 2026-11-27,
  twenty-fourth session); and so the asm's (NVIDIA's), whose addresses are summed in 64 bits"""
  per_row = cols // vec
  tid = blk.tid ^ variant if asm or per_row & (per_row - 1) == 0 else (blk.tid + variant) % blk.threads
  # rows whose pieces the threads do not divide (D = 48, 80, 96, ...): each thread keeps one column and walks the rows `step` at a
  # time, its row and column worked out once. Walked as chunks of the tile, each piece had its own division, every one held across the
  # loops (clang-22, gfx1100's masked dK/dV at D=80: 314 VGPRs spilled)
  by_rows = blk.threads % per_row != 0 and per_row <= blk.threads
  step = blk.threads // per_row
  steps = -(-rows // step) if by_rows else -(-rows * per_row // blk.threads)
  it = blk.range(max(steps, 2) if asm else steps, AxisType.LOOP if asm else AxisType.UPCAST)
  # the twin's threads past the tile copy a piece another thread copies, the same bytes (the next step's row or the tile's last): a
  # guarded LDS store is a branch, which the AMDGPU scheduler orders nothing across (see target.AmdSelects); the asm's copy takes a predicate
  if by_rows:
    r = it * step + tid // per_row
    if not asm: return it, r.minimum(rows - 1), tid % per_row * vec, None
    return it, r, tid % per_row * vec, all_of(tid < step * per_row, r < rows if rows % step or steps < 2 else None)
  chunks, chunk = rows * per_row, it * blk.threads + tid
  if not asm and chunks % blk.threads: return it, (ch:=chunk.minimum(chunks - 1)) // per_row, ch % per_row * vec, None
  return it, chunk // per_row, chunk % per_row * vec, chunk < chunks if chunks % blk.threads or (asm and steps < 2) else None

def _rows_ok(r:UOp, rows_valid:UOp|int|None, end:int) -> UOp|None:
  """r < rows_valid, or None (no guard) where rows_valid, or the lower bound tinygrad knows of it, reaches end, past every row r"""
  return None if rows_valid is None or (rows_valid if isinstance(rows_valid, int) else rows_valid.vmin) >= end else r < rows_valid

def _copy_rows(blk:Block, dst:Smem, src:UOp, r0:int, nrows:int, base:UOp, rows_valid:UOp|int|None, variant:int, stride:int, cols:int) -> UOp:
  """copy_tile's rows r0..r0+nrows-1 of dst (their first cols columns), stored densely from element base on"""
  fast = blk.target.copy16 is not None
  it, rr, c, active = _pieces(blk, nrows, cols, fast, variant, dst.vec)
  r = r0 + rr
  ok = _rows_ok(r, rows_valid, r0 + nrows)
  g = base + rr * stride + c
  if fast:
    # the asm's address summed in 64 bits: nvcc then folds each piece's constant offset into the copy instruction, where a 32-bit sum
    # over a tile base read from a register costs three integer ops a piece (the document mask's backward on the H100: -5%, and dQ
    # down from 232 to 168 registers; docs/journal.md 2026-11-25)
    g = base.cast(dtypes.int64) + (rr * stride + c).cast(dtypes.int64) if isinstance(base, UOp) else g
    return blk.target.copy16(dst.at(r, c), src.index(g if ok is None else ok.where(g, 0)), ok, active).end(it)
  v = blk.range(dst.vec, AxisType.UPCAST)
  # a guard that reads data (a cache's length) keeps tinygrad from making one vector load of a gated piece: the piece is read from
  # an index clamped into the buffer instead (pieces are 16-byte aligned, as the async copy needs them), and a select keeps it or
  # zeros (RDNA4's decoding key tile at D=256: 418 VGPRs spilled reading scalars, 16 reading vectors). Where the guard reads no data,
  # tinygrad turns the select back into a gated load, one vector (the AMD renderer then selects: target.AmdSelects). Not for 8-bit
  # floats, which tinygrad selects in float32 (four conversions a piece)
  if active is None and ok is not None and src.dtype.itemsize > 1 and any(u.op is Ops.INDEX for u in ok.toposort()):
    piece = (g // dst.vec).minimum((src.src[0] - dst.vec) // dst.vec)
    return dst.at(r, c + v).store(ok.where(src.index(piece * dst.vec + v), 0)).end(it, v)
  if active is None: return dst.at(r, c + v).store(src.index((g + v) if ok is None else (g + v).valid(ok))).end(it, v)
  return dst.buf.index(dst.index(r, c + v).valid(active)).store(src.index((g + v).valid(all_of(active, ok)))).end(it, v)

def wait_tile(blk:Block, dst:Smem, *deps:UOp) -> Smem:
  """dst once the copies into it (issued before, in program order, or among deps) are done and visible to the whole block.
  deps are statements (stores, ENDs, copies, ranges) that the wait must come after."""
  if blk.target.copy_wait is None: return dst.after(*deps)  # tinygrad puts a barrier behind LDS stores that deps carry
  return dst.after(blk.target.copy_wait(dst.buf.after(*deps).index(0), dst.atom > 0).barrier())   # wgmma reads the atom-stored tiles

# Hopper's bulk tensor copies: one thread issues a tile's boxes, an mbarrier counts their bytes, every thread waits on its phase

def _statement(blk:Block, make:Callable[[UOp], UOp]) -> UOp:
  """an inline statement make(live) in a loop of one live trip (live: the first): a statement survives as a dependency only at the END
  of a loop, and tinygrad removes a one-trip loop (see _pieces)"""
  it = blk.range(2)
  return make(it.eq(0)).end(it)

def mbarriers(blk:Block, counts:tuple[int, ...], tmaps:tuple[UOp, ...], srcs:tuple[UOp, ...]=()) -> UOp:
  """mbarriers in LDS, barrier i expecting counts[i] arrivals, set up by thread 0, for the target's bulk tensor copies (Target.tma) from
  the tensor maps at tmaps (pointers into global memory) of the global buffers srcs; then every thread of the block meets, so none
  tests a barrier before it is set up (compute-sanitizer's synccheck: "missing init" where a wait came before the first block barrier).
  srcs are named, never read: a kernel handed a buffer it does not use loses it from its signature, and tinygrad's CUDA graph (TinyJit)
  launches it with every buffer of the call (invalid argument); and handed it, the buffer stays allocated until the kernel has run"""
  # 1 KB: with every LDS buffer a multiple of 1024 bytes, the swizzle atoms of tiles declared statically stay 1024-byte aligned
  bar = blk.lds((max(len(counts), 128),), dtypes.uint64)
  return bar.after(_statement(blk, lambda live: blk.target.tma.init(bar.index(0), counts, blk.tid.eq(0) & live, live, tmaps, srcs)))

def bulk_copy_tile(blk:Block, dst:Smem, tmap:UOp, y:UOp|int, z:UOp|int, bar:UOp, when:UOp|None=None, x:UOp|int=0) -> UOp:
  """Start copying the tile of rows y.. and columns x.. of plane z of the 3-d tensor map at tmap (coordinates: column, row, plane; its
  box dst's atom of columns by dst.rows rows, swizzled as it; what lies past the tensor arrives as zeros) into dst, which stores it
  in swizzle atoms of those columns; its bytes counted on the mbarrier bar. Issued by the block's leader, only where `when` (None:
  always): a copy nothing will wait for must not be issued, since it could land after the block has exited, in another block's LDS.
  Returns the copy; wait_bulk makes it visible to every thread."""
  assert dst.atom, "bulk copies land in swizzle atoms"
  nbytes, boxes = dst.rows * dst.cols * dst.buf.dtype.itemsize, dst.cols // dst.atom
  y, z = (UOp.const(x, dtypes.int) if isinstance(x, int) else x for x in (y, z))
  # a loop over the boxes, of two trips at least: an inline statement survives as a dependency only at a loop's END (see _pieces)
  it = blk.range(max(boxes, 2))
  elect = all_of(blk.leader, it.eq(0) if boxes < 2 else None, when)
  return blk.target.tma.copy(dst.at(0, it * dst.atom), tmap, x + it * dst.atom, y, z, bar, nbytes, elect, it.eq(0)).end(it)

def wait_bulk(blk:Block, dst:Smem, bar:UOp, parity:UOp, *deps:UOp, sync:bool=True, when:UOp|None=None) -> Smem:
  """dst once the bulk copy into it that completes bar's phase of this parity has landed (the threads where `when`, None: all, wait);
  sync: then every thread past the wait (a block barrier: the tile's last reader is done before anything is copied into its other
  tile), else (a ring whose slots are released on mbarriers) each thread goes on from its own wait. deps as wait_tile's"""
  if sync: return dst.after(blk.target.tma.wait(bar, parity, dst.buf.after(*deps).index(0), when).barrier())
  return dst.after(_statement(blk, lambda live: blk.target.tma.wait(bar, parity, dst.buf.after(*deps).index(0), all_of(live, when))))

def release(blk:Block, bars:UOp, i:UOp|int, *deps:UOp, when:UOp|None=None) -> UOp:
  """every consumer thread arrives on mbarrier i of bars (counting blk.threads arrivals) once deps (its reads of a ring's slot) are
  done: the producer may copy into that slot again. Only where `when` (None: always)"""
  return _statement(blk, lambda live: blk.target.tma.arrive(bars.after(*deps).index(i), all_of(live, when)))

def registers(blk:Block, producer:bool, blocks:int, buf:UOp, *deps:UOp) -> UOp|None:
  """the statement by which the producer gives up registers (producer) or the consumers take them, once deps are done (buf, an LDS
  buffer, only carries the order), `blocks` blocks an SM: the consumers' waits until the producer's has run. None where the target
  hands none over"""
  if (split:=blk.target.tma.split(blk.threads, blocks)) is None: return None
  n, who = split[0 if producer else 1], blk.producing if producer else blk.warp < blk.warps
  return _statement(blk, lambda live: blk.target.tma.regs(n, all_of(live, who), buf.after(*deps).index(0)))

def turn(blk:Block, mine:bool, buf:UOp, *deps:UOp, when:UOp|None=None) -> UOp:
  """FlashAttention-3's ping-pong of a block's two consumer warpgroups, their tensor-core work in turns, one's softmax under the
  other's products: mine, wait for this warpgroup's turn; else end it, handing the turn to the other (the threads where `when`, None:
  all), once deps are done (buf, an LDS buffer, only carries the order)"""
  wg = blk.warp // 4
  return _statement(blk, lambda live: blk.target.tma.turn(wg if mine else 1 - wg, blk.threads, not mine, all_of(live, when), buf.after(*deps).index(0)))

def leave(blk:Block, when:UOp, buf:UOp, *deps:UOp) -> UOp:
  """the threads where `when` exit once deps are done (a producer that has issued its copies: buf, an LDS buffer, only carries
  the order); the rest go on after this"""
  return _statement(blk, lambda live: blk.target.tma.leave(buf.after(*deps).index(0), live & when))

def store_tile(blk:Block, src:Smem, dst:UOp, row:Callable[[UOp], UOp], rows_valid:UOp|int, cols:int|None=None) -> UOp:
  """copy_tile's reverse: store src (its rows' first cols columns, all by default) to a flat global buffer (row r of the tile at
  element row(r)), 16 bytes per thread and step, its rows from rows_valid on not at all. Whole rows leave in 16-byte pieces, where C
  fragments would store a few bytes per row each.
  Each row(r) is a multiple of 16 bytes, as the rows of a (..., D) tensor are: said so to tinygrad, which vectorizes (8 bytes at
  most, bf16 not at all); the target's store16, where it has one, moves each piece in one instruction pair."""
  fast = blk.target.store16 is not None   # the target's 16-byte store, which tinygrad's vectorizer would not give (bf16: none)
  n = src.vec
  it, r, c, active = _pieces(blk, src.rows, cols or src.cols, fast, vec=n)
  if fast:
    ok = all_of(active, _rows_ok(r, rows_valid, src.rows))
    # and declared written, which inline stores are not to tinygrad
    return UOp.group(blk.target.store16(src.at(r, c), dst.index((row(r) + c) // n * n), ok).end(it), declare_written(blk, dst))
  v = blk.range(n, AxisType.UPCAST)
  if active is None: return dst.index(((row(r) + c) // n * n + v).valid(r < rows_valid)).store(src.at(r, c + v)).end(it, v)
  # the last step's threads past the tile read and store nothing
  return dst.index(((row(r) + c) // n * n + v).valid(active & (r < rows_valid))).store(src.buf.index(src.index(r, c + v).valid(active))).end(it, v)

# *** fragments of LDS tiles ***

def _gather(blk:Block, t:Smem, frag, r0:UOp|int, c0:UOp|int, trans:bool=False) -> UOp:
  vals = []
  for e in range(frag.nelems):
    r, c = frag.coords(blk.lane, e)
    vals.append(t.at(c0 + c, r0 + r) if trans else t.at(r0 + r, c0 + c))
  return UOp.stack(*vals)

def frag_a(blk:Block, t:Smem, r0:UOp|int, c0:UOp|int) -> UOp:
  """the A fragment of the (M, K) block of t at (r0, c0)"""
  if blk.target.ldsm is None: return _gather(blk, t, blk.target.a, r0, c0)
  ar, ac = blk.target.ldsm_addr["a"](blk.lane)
  return UOp.stack(*blk.target.ldsm(t.at(r0 + ar, c0 + ac), False, f"fa_ldsm{next(blk.ids)}", t.buf.dtype))

def b_group(blk:Block) -> int:
  """how many B fragments (consecutive n-tiles) one fragment read yields"""
  return 1 if blk.target.ldsm is None else 16 // blk.target.mma[1]

def frags_b(blk:Block, t:Smem, n0:UOp|int, k0:UOp|int, trans:bool=False) -> list[UOp]:
  """b_group B fragments for the n-tiles from n0 over k0..k0+K. t holds B as (n, k) rows, or with trans as (k, n) rows (V)."""
  N, K, g = blk.target.mma[1], blk.target.mma[2], b_group(blk)
  if blk.target.ldsm is None: return [_gather(blk, t, blk.target.b, n0 + j * N, k0, trans) for j in range(g)]
  ar, ac = blk.target.ldsm_addr["bt" if trans else "b"](blk.lane)
  h = blk.target.ldsm(t.at(k0 + ar, n0 + ac) if trans else t.at(n0 + ar, k0 + ac), trans, f"fa_ldsm{next(blk.ids)}", t.buf.dtype)
  per = blk.target.b.nelems
  return [UOp.stack(*h[j * per:(j + 1) * per]) for j in range(g)]

# *** register tiles in the MMA accumulator layout ***

def acc_tile(blk:Block, tm:int, tn:int, dtype:DType=dtypes.float) -> UOp:
  """a warp's (tm·M) x (tn·N) tile in C fragments: registers shaped (tm, tn, elements)"""
  return blk.reg((tm, tn, blk.target.c.nelems), dtype)

def lane_rows(blk:Block, tm:int) -> int:
  """how many rows of tm C-fragment tiles one lane holds"""
  return tm * math.prod(blk.target.c.split[d] for d in blk.target.c.elem_digits(rows=True))

def lane_cols(blk:Block, tn:int) -> int:
  """how many columns of tn C-fragment tiles one lane holds"""
  return tn * math.prod(blk.target.c.split[d] for d in blk.target.c.elem_digits(rows=False))

def _elem_digits(blk:Block) -> tuple[list[int], list[int], list[int]]:
  """a lane's C-fragment elements as digits: their sizes, and which of them (positions) are row digits, which column digits"""
  c = blk.target.c
  rows = [i for i, d in enumerate(c.elems) if d < c.nrow]
  return [c.split[d] for d in c.elems], rows, [i for i in range(len(c.elems)) if i not in rows]

def rows_view(blk:Block, t:UOp) -> UOp:
  """a C-fragment register tile seen as (rows this lane holds, columns this lane holds)"""
  tm, tn, _ = t.shape
  edig, rdig, cdig = _elem_digits(blk)
  v = t.reshape(tm, tn, *edig).permute(0, *[2 + i for i in rdig], 1, *[2 + i for i in cdig])
  return v.reshape(tm * math.prod(edig[i] for i in rdig), tn * math.prod(edig[i] for i in cdig))

def scale_rows(blk:Block, t:UOp, f:UOp, when:UOp|None=None) -> UOp:
  """a C-fragment register tile's rows (rows_view's) times f, a factor a row this lane holds, where `when` (None: always): behind the
  target's branch where it has one (Target.scale_if), else every time, so f must be 1 where `when` is false"""
  rows = rows_view(blk, t)
  if when is None or blk.target.scale_if is None: return rows.store(rows * f.reshape(rows.shape[0], 1).expand(rows.shape))
  cells = list(itertools.product(*map(range, t.shape)))
  return _statement(blk, lambda live: blk.target.scale_if([t[cell] for cell in cells], [f[i] for i in range(rows.shape[0])],
                                                          lane_row_of(blk, t.shape), when & live))

def lane_row_of(blk:Block, shape:tuple[int, int, int]) -> list[int]:
  """for each register of a (tm, tn, elements) C-fragment tile, in order, its row in rows_view: its m-tile, then its element's row digits"""
  edig, rdig, _ = _elem_digits(blk)
  def row(m:int, e:int) -> int:
    ds = [e // math.prod(edig[i + 1:]) % edig[i] for i in range(len(edig))]
    return functools.reduce(lambda r, i: r * edig[i] + ds[i], rdig, m)
  return [row(m, e) for m, _, e in itertools.product(*map(range, shape))]

def row_reduce(x:UOp, op:Ops, tree:bool=True) -> UOp:
  """(rows, cols) -> (rows,): op over each row's columns, with tree as a tree of halves (log2(cols) dependent steps), else as tinygrad
  renders a reduce: a chain (on the H100 32 dependent FMNMX or FADD a row). C renderers print a sum of sums as one sum, which C
  evaluates as a chain: the tree holds for MAX (fmaxf) only (a sum's levels held in registers measured no faster, sixteenth session)"""
  r, n = x.shape
  while tree and n % 2 == 0:
    n //= 2
    x = x.shrink(((0, r), (0, n))).alu(op, x.shrink(((0, r), (n, 2 * n))))
  return (x if n == 1 else x.max(axis=1) if op is Ops.MAX else x.sum(axis=1)).reshape(r)

def tile_coords(blk:Block, m:UOp|int, n:UOp|int, e:UOp|int) -> tuple[UOp, UOp]:
  """(row, col) in the warp's tile of element e of C fragment (m, n), for this lane"""
  M, N, _ = blk.target.mma
  r, c = blk.target.c.coords(blk.lane, e)
  return m * M + r, n * N + c

def _axis_coords(blk:Block, n:int, rows:bool) -> list[UOp]:
  c = blk.target.c
  dig = c.elem_digits(rows=rows)
  per_tile = math.prod(c.split[d] for d in dig)
  # an element index that walks only the row (or column) digits of the fragment
  stride = {d: math.prod(c.split[x] for x in c.elems[c.elems.index(d)+1:]) for d in dig}
  def elem(j:int) -> int: return sum((j // math.prod(c.split[x] for x in dig[k+1:]) % c.split[d]) * stride[d] for k, d in enumerate(dig))
  return [tile_coords(blk, i // per_tile, 0, elem(i % per_tile))[0] if rows else tile_coords(blk, 0, i // per_tile, elem(i % per_tile))[1]
          for i in range(n)]

def row_coords(blk:Block, nrows:int) -> list[UOp]:
  """the warp-tile row of each row of rows_view, for this lane"""
  return _axis_coords(blk, nrows, rows=True)

def col_coords(blk:Block, ncols:int) -> list[UOp]:
  """the tile column of each column of rows_view, for this lane"""
  return _axis_coords(blk, ncols, rows=False)

def load_vec(blk:Block, src:UOp, idxs:list[UOp], valid:list[UOp|None], fill:float=0.0) -> UOp:
  """a register vector of src[idx] for each idx (fill where its valid is false): the per-row or per-column statistics a lane needs"""
  vec = blk.reg((len(idxs),))
  vals = [src.index(i) if ok is None else ok.where(src.index(i.valid(ok)), fill) for i, ok in zip(idxs, valid)]
  return vec.after(UOp.group(*[vec[j].store(v) for j, v in enumerate(vals)]))

def _a_src(t:Target, keys:tuple[int, ...]|None) -> list[int]|None:
  """for each A element, the C register (of the K // N accumulators a K-step spans) that holds it in the same lane (see a_from_acc)"""
  M, N, K = t.mma
  g = len(keys) if keys else 1
  col = lambda c: c // g * g + keys[c % g] if keys else c
  src = []
  for ea in range(t.a.nelems):
    hit = [j * t.c.nelems + ec for j in range(K // N) for ec in range(t.c.nelems)
           if all((t.a.coords(l, ea)[0], col(t.a.coords(l, ea)[1])) == (t.c.coords(l, ec)[0], t.c.coords(l, ec)[1] + j * N) for l in range(t.warp))]
    if not hit: return None
    src.append(hit[0])
  return src

def a_via(blk:Block, rows:int, cols:int, dtype:DType, over:Smem|None=None) -> Smem|None:
  """the rows x cols LDS tile a_operand's A fragments go through where the C and A layouts do not line up (None where they do): made
  once, so a kernel's stages share it (a barrier separates their loops; each warp writes and reads its own rows); laid over the LDS
  of `over` where it fits there, a tile that must then be free (read before the loop, written after it: barriers between)"""
  if _a_src(blk.target, None) is not None: return None
  if over is not None and over.itemsize == dtype.itemsize and not over.atom and (t:=replace(over, rows=rows, cols=cols)).size <= over.size: return t
  return smem(blk, rows, cols, dtype)

def a_from_acc(blk:Block, p:UOp, keys:tuple[int, ...]|None=None) -> Callable[[UOp|int, UOp|int], UOp]|None:
  """A fragments read straight from C-fragment registers p (tm, tn, e) where the two layouts line up lane for lane (on mma.sync two
  n8 accumulators are one k16 operand), as a function of (m-tile, K-step); keys: B's K runs over p's columns in this order, a group
  at a time (Target.key_order), so A's column c is p's column keys[c]. A lane's registers may be regrouped (free); None where some
  A element is another lane's."""
  if (src:=_a_src(blk.target, keys)) is None: return None
  M, N, K = blk.target.mma
  tm, tn, e = p.shape
  pa = p.reshape(tm, tn // (K // N), (K // N) * e)
  if src == list(range(len(src))): return lambda m, kk: pa[m, kk]
  return lambda m, kk: UOp.stack(*[pa[m, kk, i] for i in src])

def a_operand(blk:Block, t:UOp, rows0:UOp, dtype:DType, keys:tuple[int, ...]|None=None, via:Smem|None=None,
              shared:UOp|int|None=None) -> Callable[[UOp|int, UOp|int], UOp]:
  """A fragments (m-tile, K-step) of the C-fragment register tile t, this warp's rows from rows0 of the block, rounded to dtype:
  read straight from registers where the C and A layouts line up (keys: as a_from_acc's), else through the LDS tile via (a_via's;
  None: a new one). shared: t is this warp's columns from there of rows its row group's warps share (a split, split_warp): through
  via, every warp's columns there before any reads whole rows"""
  M, N, K = blk.target.mma
  if shared is not None:
    assert via is not None, "a shared tile is the caller's"
    s = wait_tile(blk, acc_to_lds(blk, t, via, rows0, dtype, cols0=shared))
    return lambda m, kk: frag_a(blk, s, rows0 + m * M, kk * K)
  tm, tn, _ = t.shape
  reg = acc_tile(blk, tm, tn, dtype)
  reg = reg.after(reg.store(t.cast(dtype)))
  if (pa:=a_from_acc(blk, reg, keys)) is not None: return pa
  assert keys is None, "keys ordered for registers that do not line up"
  s = acc_to_lds(blk, reg, smem(blk, blk.warps * tm * M, tn * N, dtype) if via is None else via, rows0, dtype)
  return lambda m, kk: frag_a(blk, s, rows0 + m * M, kk * K)

def acc_to_lds(blk:Block, t:UOp, s:Smem, rows0:UOp, dtype:DType, unrolled:bool=False, cols0:UOp|int=0) -> Smem:
  """s with the C-fragment register tile t (this warp's rows from rows0 of the block, its columns from cols0) stored into it, rounded
  to dtype; unrolled in the graph, not as loops (see store_rows)"""
  i, j, e = [blk.range(n, AxisType.UPCAST if unrolled else AxisType.LOOP) for n in (t.shape[0], t.shape[1], blk.target.c.nelems)]
  r, c = tile_coords(blk, i, j, e)
  return s.after(s.at(rows0 + r, cols0 + c).store(t[i, j, e].cast(dtype)).end(i, j, e))

def store_acc(blk:Block, t:UOp, s:Smem, rows0:UOp, dst:UOp, row:Callable[[UOp], UOp], rows_valid:UOp|int, cols0:UOp|int=0,
              cols:int|None=None) -> UOp:
  """store the C-fragment register tile t (each warp's rows from rows0, columns from cols0) to a flat 16-bit global buffer (row r of
  the block at element row(r), the first rows_valid rows and cols columns) through the free LDS tile s: whole 16-byte pieces of rows
  leave, where C fragments would store a few bytes per row each. Unrolled: at the END of a loop of LDS stores tinygrad puts a barrier that lists the
  LDS loads the stored values came from, a KV loop's, which the emulator never made where that stage of the loop ran no time"""
  return store_tile(blk, wait_tile(blk, acc_to_lds(blk, t, s, rows0, dst.dtype, unrolled=True, cols0=cols0)), dst, row, rows_valid, cols)

def each_element(blk:Block, t:UOp, f:Callable[[UOp, UOp, UOp], UOp]) -> UOp:
  """the statement f(row, col, element) for each element of the C-fragment register tile t (its row and column in the warp's tile)"""
  i, j, e = (blk.range(n) for n in t.shape)
  return f(*tile_coords(blk, i, j, e), t[i, j, e]).end(i, j, e)

def add_acc(blk:Block, t:UOp, dst:UOp, at:Callable[[UOp, UOp], UOp], when:UOp|None=None) -> UOp:
  """add the C-fragment register tile t into the flat float32 global buffer dst, element (r, c) of the warp's tile at dst[at(r, c)]
  (where `when`), by the target's atomic add: other blocks add into the same elements (the backward's dQ accumulation)"""
  if (add:=blk.target.atomic_add) is not None:
    return UOp.group(each_element(blk, t, lambda r, c, x: add(dst.index(at(r, c)), x.load(), when)), declare_written(blk, dst))
  return each_element(blk, t, lambda r, c, x: (idx:=dst.index(at(r, c) if when is None else at(r, c).valid(when))).store(idx + x))

def reduce_tile(blk:Block, stage:UOp, dst:UOp, nbytes:int, when:UOp|None, *deps:UOp) -> UOp:
  """the float32 LDS buffer stage, once its stores (among deps) are visible to the bulk copy engine, added into global memory from dst
  (an index of a global buffer) by it (Target.tma.reduce), issued by the block's leader where `when`"""
  seen = blk.target.copy_wait(stage.after(*deps).index(0), True).barrier()
  return UOp.group(_statement(blk, lambda live: blk.target.tma.reduce(stage.after(seen).index(0), dst, nbytes, all_of(blk.leader, live, when))),
                   declare_written(blk, dst.src[0]))

def reduce_free(blk:Block, stage:UOp, *deps:UOp) -> UOp:
  """stage once the bulk adds issued from it before (in program order, deps) have read it: free to be written again"""
  return stage.after(blk.target.tma.reduce_wait(stage.after(*deps).index(0), blk.leader).barrier())

def reduce_done(blk:Block, stage:UOp, *deps:UOp) -> UOp:
  """the statement after which the bulk adds issued from stage before (deps) have read it: the block may exit"""
  return _statement(blk, lambda live: blk.target.tma.reduce_wait(stage.after(*deps).index(0), blk.leader & live))

def declare_written(blk:Block, buf:UOp) -> UOp:
  """a STORE into buf that never runs: tinygrad counts a kernel's buffers as written by its STOREs alone (ProgramInfo's outs), and
  TinyJit's CUDA graph orders the kernels that read a buffer after those that write it, so a buffer the kernel writes only by the
  target's inline code (16-byte stores, atomic and bulk adds: CUSTOM) must say so. Without it the graph ran dQ's conversion beside
  the dQ accumulation (H200: zeros from the second call). Its guard reads a register tinygrad cannot see through (0: nvcc drops it)"""
  z = (r:=blk.reg((1,), dtypes.int32)).after(r.store(0))[0]
  return flat(buf).index(UOp.const(0, dtypes.int).valid(z.eq(1))).store(UOp.const(0, getattr(buf.dtype, "base", buf.dtype)))

# *** MMA over tiles ***

# K-steps per trip of an MMA loop whose A fragments are read from LDS, unrolled in the graph: nvcc leaves a loop of one K-step rolled
# at 128x32x4 (255 registers), each step waiting on its own fragment reads, and unrolled fully it spills (H100, the document mask's
# forward at 1, 2, 4, 8: 1.427, 1.402, 1.495, 1.665 ms; docs/journal.md)
A_UNROLL = 2

def mma(blk:Block, acc:UOp, a:Callable[[UOp, UOp], UOp], b:Callable[[UOp, UOp], list[UOp]], ksteps:int, a_reads:bool=False) -> UOp:
  """acc[m, n] += A[m] · B[n]ᵀ over ksteps K-steps: a(m, k) gives the A fragment of m-tile m, b(n0, k) the b_group B fragments
  from column n0 on. K-steps outermost, then n-groups, then m-tiles, so each B fragment read serves every m-tile; where a reads
  LDS (a_reads), each A fragment is read into registers once per K-step. Returns the loops' END (the last K-step's)."""
  t = blk.target
  M, N, K = t.mma
  tm, tn, _ = acc.shape
  g = b_group(blk)
  if not a_reads:
    kk, ng, m = blk.range(ksteps, AxisType.REDUCE), blk.range(tn // g), blk.range(tm)
    bf = b(ng * g * N, kk)
    outs = [acc[m, ng * g + j] for j in range(g)]
    return UOp.group(*[o.store(UOp.wmma(a(m, kk), bf[j], o.after(kk), (N, M, K), t.mma_device, t.warp)) for j, o in enumerate(outs)]).end(m).end(ng).end(kk)
  # A from LDS: each K-step reads its A fragments once for every n-group, A_UNROLL K-steps per trip of the loop
  U = A_UNROLL if ksteps % A_UNROLL == 0 else 1
  ko = blk.range(ksteps // U, AxisType.REDUCE) if U < ksteps else None
  rd = acc if ko is None else acc.after(ko)
  for ki in range(U):
    kk = ki if ko is None else ko * U + ki
    areg = blk.reg((tm, t.a.nelems), (af:=[a(i, kk) for i in range(tm)])[0].dtype)
    areg = areg.after(UOp.group(*[areg[i].store(x) for i, x in enumerate(af)]))
    ng, m = blk.range(tn // g), blk.range(tm)
    bf = b(ng * g * N, kk)
    done = UOp.group(*[acc[m, ng * g + j].store(UOp.wmma(areg[m], bf[j], rd[m, ng * g + j], (N, M, K), t.mma_device, t.warp))
                       for j in range(g)]).end(m).end(ng)
    rd = acc.after(done)
  return done if ko is None else done.end(ko)

def _wgmma_args(blk:Block, acc:UOp, a:Smem|Callable[[int], UOp], b:Smem, b_kn:bool, a_row:UOp|None, b_off:UOp|int) -> tuple:
  """what wgmma_tile and wgmma_issue hand the target's wgmma, for its first arguments"""
  t = blk.target
  M, N, K = t.mma
  n, k = acc.shape[1] * N, b.rows if b_kn else b.cols
  assert blk.warps % 4 == 0 and acc.shape[0] == 1 and (callable(a) or a.cols == k), "64 x n tiles of warpgroups"
  # the warpgroup's first row; spelled without warp % 4, which tinygrad may answer by splitting the warp range into two thread
  # dimensions whose order no longer matches the hardware's warpgroups (wrong rows on the H100)
  wg_row = blk.warp // 4 * 4 * M if a_row is None else a_row // (4 * M) * (4 * M)
  a_op = [a(kk)[e].load() for kk in range(k // K) for e in range(t.a.nelems)] if callable(a) else a.at(wg_row, 0)
  return (b.at(0, b_off) if b_kn else b.at(b_off, 0), n, k // K, b.rows * b.atom * b.itemsize, f"fa_wg{next(blk.ids)}", b.buf.dtype, a_op,
          0 if callable(a) else a.rows * a.atom * a.itemsize, b.atom * b.itemsize)

def _acc_regs(acc:UOp) -> list[UOp]:
  """a warpgroup's (1, n/N, elements) C tile as wgmma names its registers, in order"""
  return [acc[0, j, e] for j in range(acc.shape[1]) for e in range(acc.shape[2])]

def _wgmma_twin(blk:Block, acc:UOp, a:Smem|Callable[[int], UOp], b:Smem, b_kn:bool, add:bool, a_row:UOp|None, b_off:UOp|int) -> UOp:
  """the portable twin of wgmma: mma over fragment reads of the same tiles"""
  M, N, K = blk.target.mma
  k = b.rows if b_kn else b.cols
  a_frag = a if callable(a) else lambda kk: frag_a(blk, a, blk.warp * M if a_row is None else a_row, kk * K)
  a_twin = (lambda kk: a_frag(kk).cast(b.buf.dtype)) if callable(a) and a(0).dtype != b.buf.dtype else a_frag
  # zeroed once B's tile is there: a store that follows nothing in a loop would be hoisted out of it, zeroing only the first trip's
  if not add: acc = acc.after(acc.after(b.buf).store(acc.const_like(0)))
  return mma(blk, acc, lambda m, kk: a_twin(kk), lambda n0, kk: frags_b(blk, b, b_off + n0, kk * K, trans=b_kn), k // K)

def wgmma_tile(blk:Block, acc:UOp, a:Smem|Callable[[int], UOp], b:Smem, b_kn:bool=False, add:bool=False, a_row:UOp|None=None,
               b_off:UOp|int=0) -> UOp:
  """acc = A·B (acc += A·B with add) for the block's warpgroups (4 warps of 16 rows each); acc is each warp's (1, n/N, elements) C tile
  of its 16 rows. A: an LDS tile, whose rows from a_row (default 16·warp; a warpgroup's four warps take consecutive rows) this warp
  multiplies, or a(kk), this warp's A fragment of K-step kk in registers (float32 values are rounded to B's dtype). B: n columns from b_off of the LDS tile b, whose rows are B's
  columns (K-major, B = Kᵀ), or with b_kn whose rows are the K dimension (V) and columns B's. Hopper's wgmma on the LDS tiles (stored
  in swizzle atoms; b_off a multiple of 8 rows, or of 64 columns with b_kn) where the target has it; the twin: mma over fragment reads
  of the same tiles. Returns the stores."""
  if blk.target.wgmma is None: return _wgmma_twin(blk, acc, a, b, b_kn, add, a_row, b_off)
  regs = _acc_regs(acc)
  vals = blk.target.wgmma(*_wgmma_args(blk, acc, a, b, b_kn, a_row, b_off), [r.load() for r in regs] if add else None, b_kn, rebuilt=blk.rebuilt)
  return UOp.group(*[r.store(v) for r, v in zip(regs, vals)])

@dataclass(frozen=True)
class InFlight:
  """a product wgmma_issue started: its accumulator, and the issue (or the twin's stores, done)"""
  acc: UOp
  done: UOp

def wgmma_issue(blk:Block, acc:UOp, a:Smem|Callable[[int], UOp], b:Smem, b_kn:bool=False, add:bool=False) -> InFlight:
  """wgmma_tile's product started and left in flight in acc's registers (acc, A's registers and the tiles untouched until wgmma_wait);
  the twin's runs where issued"""
  if blk.target.wgmma is None: return InFlight(acc, _wgmma_twin(blk, acc, a, b, b_kn, add, None, 0))
  regs, args = _acc_regs(acc), _wgmma_args(blk, acc, a, b, b_kn, None, 0)
  return InFlight(acc, _statement(blk, lambda live: blk.target.wgmma(*args, b_kn=b_kn, into=regs, add=add, live=live, rebuilt=blk.rebuilt)[0]))

def wgmma_wait(blk:Block, f:InFlight, pending:int=0, *deps:UOp) -> UOp:
  """f's product done, once at most `pending` products issued after it are in flight, and after deps: the statement reads of f.acc
  follow"""
  if blk.target.wgmma is None: return UOp.group(f.done, *deps)
  acc = f.acc.after(f.done, *deps)
  return _statement(blk, lambda live: blk.target.wgmma_wait(_acc_regs(acc), pending, live))

# *** across the lanes of a warp ***

def lane_reduce(blk:Block, vals:UOp, op:Ops) -> UOp:
  """Reduce each row statistic in vals (a register vector, one entry per row this lane holds) over the lanes that share the row,
  with a butterfly of lane-xor exchanges: the target's shuffle where it has one, else through LDS (the portable twin)."""
  offs = blk.target.c.lane_xor_offsets(rows=False)
  n = vals.shape[0]
  if blk.target.shuffle is not None:
    for off in offs:
      r = blk.range(n)
      vals = vals.after(vals[r].store(vals[r].alu(op, blk.target.shuffle(vals[r], off, blk.lane))).end(r))
    return vals
  scratch, prev = blk.lds((blk.warps, n, blk.target.warp), dtypes.float), ()
  for off in offs:
    r = blk.range(n)
    st = scratch.after(*prev)[blk.warp, r, blk.lane].store(vals[r]).end(r)
    r2 = blk.range(n)
    step = vals[r2].store(vals[r2].alu(op, scratch.after(st)[blk.warp, r2, blk.lane ^ off])).end(r2)
    vals, prev = vals.after(step), (step.barrier(),)  # the next step overwrites the scratch only once every lane has read it
  return vals
