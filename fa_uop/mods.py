"""What a kernel may change in attention's scores, described once for every kernel: causal and sliding-window masks, softcap, a
user's score_mod and mask_mod written over UOps, and the extra buffers (mod_args) those read. The kernels call `score`, its
derivative `dscore` and `keep` at the one place their scores are made, and `tile_plan` to know which tiles to visit and which
of those need the mask."""
from __future__ import annotations
import functools, math
from dataclasses import dataclass, replace
from typing import Callable
from tinygrad import UOp, dtypes
from tinygrad.mixin.gradient import compute_gradient

@dataclass(frozen=True)
class Mods:
  """causal: key j > query i is hidden (i and j as the entry point aligns positions). window (left, right): key j is kept for
  query i iff i - left <= j <= i + right, a side of None unbounded. softcap c: score <- c·tanh(score/c). score_mod(score, b, h,
  q_idx, kv_idx, *args) -> score and mask_mod(b, h, q_idx, kv_idx, *args) -> bool, on UOps; args: the n_args mod_args buffers."""
  causal: bool = False
  window: tuple[int|None, int|None] = (None, None)
  softcap: float|None = None
  score_mod: Callable|None = None
  mask_mod: Callable|None = None
  n_args: int = 0
  # at_positions' window (left, right, causal folded in) where it is the whole mask_mod: a block map then classifies a tile from its
  # rows' and keys' position ranges, an op per row and key where the mask_mod costs one per element (the ring's 128x128 maps over
  # 64K keys: 17 ms a step on the H200, as long as a step's attention, docs/journal.md 2026-11-29)
  span: tuple[int|None, int|None]|None = None
  @property
  def left(self) -> int|None: return self.window[0]
  @property
  def right(self) -> int|None:
    """the right side with causal folded in: causal is a window whose right side is 0"""
    r = self.window[1]
    return (0 if r is None else min(r, 0)) if self.causal else r
  @property
  def scores_changed(self) -> bool: return self.softcap is not None or self.score_mod is not None
  @property
  def tiles_alike(self) -> bool:
    """whether every query block visits the same KV tiles (no causal mask, window or mask_mod): its loops' trips known when built"""
    return not self.causal and not self.masks_more
  @property
  def masks_more(self) -> bool:
    """a window or a mask_mod: beyond causal, whose tiles the kernels know without them, and a row may keep no key at all"""
    return self.window != (None, None) or self.mask_mod is not None
  @property
  def tag(self) -> str:
    """for kernel names and tuner keys: causal, then w(indow), c(ap), s(core_mod), m(ask_mod)"""
    mods = "".join(t for t, on in (("w", self.window != (None, None)), ("c", self.softcap is not None), ("s", self.score_mod is not None),
                                   ("m", self.mask_mod is not None)) if on)
    return "_".join(x for x in ("causal" if self.causal else "", mods) if x)
  def name(self, kernel:str, d:int) -> str: return "_".join(x for x in (kernel, self.tag, f"d{d}") if x)

  def plan(self, first:UOp|int, last:UOp|int, n:UOp|int, T:int, keys:bool=True) -> TilePlan:
    """tile_plan for query rows at positions first..last over the keys 0..n-1 in tiles of T (the key tail masked), or with
    keys=False for key rows over the queries (mirrored window; queries past n need no mask: their P is 0); by the window and
    causal, and with a mask_mod every visited tile masked"""
    p = tile_plan(first, last, n, T, self.left, self.right) if keys else tile_plan(first, last, n, T, self.right, self.left, tail_masked=False)
    return p if self.mask_mod is None else TilePlan(p.total, 0, p.tile, p.total)

  def score_fn(self, b:UOp, h:UOp, pos:Callable[[UOp], UOp], args:tuple[UOp, ...], lim:tuple) -> Callable[..., UOp]|None:
    """attend's score hook for a block: (scaled score, block row, key, interior) -> modified score, the row at position pos(row);
    interior: an unmasked tile of keys, all real, whose index needs no clamp. None if the scores are not modified"""
    return (lambda x, row, key, interior=False: self.score(x, b, h, pos(row), key, args, (*lim[:2], None) if interior else lim)) \
      if self.scores_changed else None

  def score(self, x:UOp, b:UOp, h:UOp, qi:UOp, kj:UOp, args:tuple[UOp, ...], lim:tuple) -> UOp:
    """the modified score of a scaled score x (natural-log domain, float32) of query qi and key kj; see user_idx for lim"""
    if self.softcap is not None: x = _tanh(x * (1 / self.softcap)) * self.softcap
    if self.score_mod is not None: x = self.score_mod(x, *user_idx(b, h, qi, kj, lim), *args)
    return x

  def dscore(self, x:UOp, b:UOp, h:UOp, qi:UOp, kj:UOp, args:tuple[UOp, ...], lim:tuple) -> UOp:
    """d score / d x at x: softcap's as 1 - tanh² of the tanh the score computes, times score_mod's by tinygrad's UOp gradient"""
    d, y = x.const_like(1.0), x
    if self.softcap is not None: d, y = 1 - (t:=_tanh(x * (1 / self.softcap))) * t, t * self.softcap
    if self.score_mod is None: return d
    leaf = UOp.placeholder((1,), dtypes.float, slot=1 << 20)[0]   # a stand-in for the score_mod's score, substituted once differentiated
    z = self.score_mod(leaf, *user_idx(b, h, qi, kj, lim), *args)
    return d * compute_gradient(z, z.const_like(1.0), {leaf})[leaf].substitute({leaf: y})

  def keep(self, b:UOp, h:UOp, qi:UOp, kj:UOp, nk:UOp|int|None, args:tuple[UOp, ...], lim:tuple) -> UOp:
    """whether query qi sees key kj: a real key (kj < nk; nk None: any) that the window, causal and mask_mod keep"""
    conds = [] if nk is None else [kj < nk]
    if self.left is not None: conds.append(kj >= qi - self.left)
    if self.right is not None: conds.append(kj <= qi + self.right)
    if self.mask_mod is not None: conds.append(self.mask_mod(*user_idx(b, h, qi, kj, lim), *args))
    return functools.reduce(lambda a, c: a & c, conds) if conds else UOp.const(True, dtypes.bool)

@functools.cache
def at_positions(mods:Mods) -> Mods:
  """mods over rows and keys at the global positions of two more buffers (int32, a row's and a key's; fa_uop.shard.positions),
  last among the mod_args: a kernel of a sequence-sharded call sees its chunks' rows from 0. Causal and the window become part of
  the mask_mod (block maps then list the tiles each device's chunks keep), the user's mods see the global positions. mods as they
  are where nothing reads a position (none of causal, window, score_mod, mask_mod). Cached: one Mods, one set of kernels"""
  if not (mods.causal or mods.masks_more or mods.score_mod is not None): return mods
  n, plain = mods.n_args, replace(mods, softcap=None, score_mod=None, mask_mod=None, n_args=0)
  def mask_mod(b, h, qi, kj, *a):
    i, j = a[n][qi].load(), a[n + 1][kj].load()
    if mods.mask_mod is None: return plain.keep(b, h, i, j, None, (), ())
    user = mods.mask_mod(b, h, i, j, *a[:n])
    return user if plain.right is None and plain.left is None else plain.keep(b, h, i, j, None, (), ()) & user
  score_mod = None if mods.score_mod is None else lambda x, b, h, qi, kj, *a: mods.score_mod(x, b, h, a[n][qi].load(), a[n + 1][kj].load(), *a[:n])
  return Mods(softcap=mods.softcap, score_mod=score_mod, mask_mod=mask_mod if mods.causal or mods.masks_more else None, n_args=n + 2,
              span=(plain.left, plain.right) if mods.mask_mod is None and (mods.causal or mods.masks_more) else None)

def stand_ins(B:int, H:int, arg_specs) -> tuple[list[UOp], list[UOp]]:
  """UOps standing in for a kernel's (b, h, q_idx, kv_idx) and mod_args buffers ((shape, dtype) each), to call the mods on
  outside a kernel: to check what they return, or which indices they read (the indices are variables named b, h, q_idx, kv_idx)"""
  idx = [UOp.variable(n, 0, m - 1).cast(dtypes.int32) for n, m in (("b", B), ("h", H), ("q_idx", 1 << 30), ("kv_idx", 1 << 30))]
  return idx, [UOp.placeholder(s, dt, i + 16) for i, (s, dt) in enumerate(arg_specs)]

def args_read(out:UOp, args:list[UOp]) -> tuple[int, ...]:
  """which of the stand-in buffers args (stand_ins') a mod's result out reads"""
  seen = set(out.toposort())
  return tuple(i for i, a in enumerate(args) if a in seen)

@functools.cache
def picked(fn:Callable, lead:int, reads:tuple[int, ...], specs:tuple) -> Callable:
  """the mod fn (lead UOps, then a buffer for each (shape, dtype) of specs) taking only the buffers at reads, the others stand-ins it
  never reads: so a kernel is given only buffers it reads. tinygrad 0.14's CUDA graph (TinyJit) passes a kernel every buffer of its
  call while the renderer drops an unread one from the kernel's signature, and the launch fails (H100, docs/journal.md 2026-11-25).
  Cached, so one mod gives one wrapper, one Mods and one set of kernels."""
  def mod(*xs:UOp) -> UOp:
    bufs = [UOp.placeholder(sh, dt, slot=(1 << 21) + i) for i, (sh, dt) in enumerate(specs)]
    for i, a in zip(reads, xs[lead:]): bufs[i] = a
    return fn(*xs[:lead], *bufs)
  return mod

def only_read(reads:tuple[int, ...], mod_args:tuple, *mods:tuple[Callable|None, int]) -> tuple[tuple[Callable|None, ...], tuple]:
  """the mods (each a function or None, and its count of leading UOps) taking only the mod_args at reads (see picked), and those
  mod_args; as they are where they read them all"""
  if len(reads) == len(mod_args): return tuple(f for f, _ in mods), tuple(mod_args)
  specs = tuple((t.shape, t.dtype) for t in mod_args)
  return tuple(None if f is None else picked(f, lead, reads, specs) for f, lead in mods), tuple(mod_args[i] for i in reads)

def user_idx(b:UOp, h:UOp, qi:UOp, kj:UOp, lim:tuple) -> tuple[UOp, UOp, UOp, UOp]:
  """the indices a user's mod sees, int32, with the head, query and key clamped to [0, lim]: a tile also holds rows past the
  queries and keys past the keys (masked, their results discarded), and a mod may index its buffers with any of them. A key
  limit of None: the keys are known real (an interior tile), and the clamp, an op per element, is left out"""
  h_max, q_max, k_max = lim
  return b.cast(dtypes.int32), h.minimum(h_max).cast(dtypes.int32), qi.maximum(0).minimum(q_max).cast(dtypes.int32), \
    (kj if k_max is None else kj.maximum(0).minimum(k_max)).cast(dtypes.int32)

def _tanh(z:UOp) -> UOp:
  """tanh without overflow (and a gradient without inf·0): from e = exp(-2|z|) in (0, 1]"""
  e = (z.maximum(-z) * (-2 * math.log2(math.e))).exp2()
  t = (1 - e) / (1 + e)
  return (z < 0).where(-t, t)

@dataclass(frozen=True)
class TilePlan:
  """The tiles one block visits, in order: positions 0..n_masked-1 need the mask, n_masked..n_masked+n_free-1 none, tile(p)
  is the tile index at position p (masked tiles first, as FlashAttention-2 visits them)."""
  n_masked: UOp|int
  n_free: UOp|int
  tile: Callable[[UOp|int], UOp|int]
  total: UOp|int      # n_masked + n_free, in a form whose bounds tinygrad can see
  listed: bool = False  # tile(p) reads a block map's list (a load; else it is arithmetic)
  last: int|None = None   # the largest tile index, where known when the kernel is built
  def index(self, p:UOp|int) -> UOp|int:
    """tile(p) as an int32, for the register a kernel carries it in"""
    return t if isinstance(t:=self.tile(p), int) else t.cast(dtypes.int32)
  def one_stage(self) -> TilePlan:
    """every tile visited masked, in one stage: beside a second copy of the loop's body the kernels past D=128 spill (RDNA's masked
    dK/dV 16-30 VGPRs; the H100's causal dK/dV at D=256, flash_bwd_dkdv), where the mask's compare and select an element cost little"""
    return replace(self, n_masked=self.total, n_free=0)
  def carried(self, t:UOp) -> UOp:
    """a tile index read back from the register it was carried in, its bounds told to tinygrad again: it then drops the copies' and
    the statistics' guards its tiles cannot need, two integer ops for many (the document mask's backward on the H100: -3%,
    docs/journal.md 2026-11-25)"""
    return t if self.last is None else t.maximum(0).minimum(self.last)

def _ceil(x:UOp|int, d:int) -> UOp|int: return (x + d - 1) // d

def _max0(x:UOp|int) -> UOp|int: return max(x, 0) if isinstance(x, int) else x.maximum(0)

def _bounds(x:UOp|int) -> tuple[int, int]: return (x, x) if isinstance(x, int) else (x.vmin, x.vmax)

def _where(c:UOp|bool, a:UOp|int, b:UOp|int) -> UOp|int: return (a if c else b) if isinstance(c, bool) else c.where(a, b)

def tile_plan(first:UOp|int, last:UOp|int, n:UOp|int, T:int, left:int|None, right:int|None, tail_masked:bool=True) -> TilePlan:
  """Which of the tiles of T columns (0..n-1) a block whose rows sit at positions first..last visits, when row i keeps column j
  iff i - left <= j <= i + right (a side None: unbounded): the tiles a side's edge crosses, and the column tail's tile where
  tail_masked, need the mask; the tiles no row keeps anything of are never visited. Visited: the masked tiles at the right
  edge, those at the left edge, then the unmasked ones between, each from the last down.
  The emulator needs two things of the stages this gives: a first (masked) stage that runs whenever the second does (a
  barrier tinygrad puts in the second lists the first's LDS loads, which the emulator never made if the first ran zero times),
  so where no tile needs the mask the first unmasked one is masked anyway; and no unmasked stage of at most one trip, which is
  folded into the masked one: tinygrad's linearizer orders code by how often it runs, counts a loop whose index can only be 0 as
  run once and may place a loop-invariant uop used after that loop in its body, which the emulator skips when it runs no time
  (a KeyError after it; the one such uop seen, a cast constant, the C renderers inline: the CUDA and HIP source was right)."""
  n_tiles = _ceil(n, T)
  lo = 0 if left is None else _max0(first - left)                          # the columns some row keeps: lo..hi-1
  hi = n if right is None else _min(n, _max0(last + right + 1))
  t_lo = lo // T
  t_hi = _ceil(hi, T) if _bounds(lo)[1] < _bounds(hi)[0] else _where(lo < hi, _ceil(hi, T), t_lo)
  if right is None: u_hi = n // T if tail_masked else n_tiles
  else: u_hi = (_min(n, _max0(first + right + 1)) if tail_masked else _max0(first + right + 1)) // T
  u_lo = t_lo if left is None else _min(_max(_ceil(_max0(last - left), T), t_lo), t_hi)
  u_hi = _min(_max(u_hi, u_lo), t_hi)
  cr, cl, cu = t_hi - u_hi, u_lo - t_lo, u_hi - u_lo
  n_masked = cr + cl
  # (a masked stage that is never built, count 0 at build time, needs nothing borrowed: the unmasked stage is then the first)
  borrow = 0 if isinstance(n_masked, int) or n_masked.vmin >= 1 else ((n_masked < 1) & (cu > 0)).where(1, 0)
  n_masked, n_free = n_masked + borrow, cu - borrow
  if (n_free if isinstance(n_free, int) else n_free.vmax) <= 1: n_masked, n_free = n_masked + n_free, 0
  def tile(p:UOp|int) -> UOp|int:
    if isinstance(cl, int) and cl == 0: return t_hi - 1 - p                   # no left edge: right edge and middle are one run
    return _where(p < cr, t_hi - 1 - p, _where(p < cr + cl, u_lo - 1 - (p - cr), u_hi - 1 - (p - cr - cl)))
  return TilePlan(n_masked, n_free, tile, t_hi - t_lo, last=n_tiles - 1 if isinstance(n_tiles, int) else None)

def _min(a:UOp|int, b:UOp|int) -> UOp|int:
  if isinstance(a, int) and isinstance(b, int): return min(a, b)
  return a.minimum(b) if isinstance(a, UOp) else b.minimum(a)

def _max(a:UOp|int, b:UOp|int) -> UOp|int:
  if isinstance(a, int) and isinstance(b, int): return max(a, b)
  return a.maximum(b) if isinstance(a, UOp) else b.maximum(a)
