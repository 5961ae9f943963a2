"""The decoding kernels: a few new queries per sequence against a KV cache, a problem bound by memory bandwidth. The query heads
of a GQA group read the same KV head, so their rows are packed into one tile (K and V are read once per group, not once per
query head); the cache is split over blocks (split-KV) so that a small batch still fills the GPU, each split writing a partial
output and logsumexp that flash_combine merges. Lengths and page tables are read at run time: one kernel serves every step."""
from __future__ import annotations
import functools, math
from typing import Callable
from tinygrad import UOp, dtypes
from tinygrad.dtype import AddrSpace
from tinygrad.renderer import Estimates
from tinygrad.uop.ops import AxisType, KernelInfo
from fa_uop.config import FwdConfig
from fa_uop.forward import LOG2E, attend, store_rows
from fa_uop.mods import Mods, TilePlan
from fa_uop.target import Target
from fa_uop.tiles import Block, flat, rows_at

def cache_rows(cache:UOp, table:UOp|None, b:UOp, hk:UOp) -> tuple[Callable[[UOp], UOp], int]:
  """(n -> the element offset of key n of sequence b's KV head hk, the keys a sequence holds) in a dense cache (B, Hkv, Nmax, D) or
  a paged pool (pages, Hkv, P, D) through table (B, max_pages). Table indices and entries are clamped: never outside either."""
  Hkv, P, D = cache.shape[1:]
  if table is None: return (lambda n: ((b * Hkv + hk) * P + n) * D), P
  pages = table.shape[1]
  page = lambda n: flat(table)[b * pages + (n // P).maximum(0).minimum(pages - 1)].maximum(0).minimum(cache.shape[0] - 1)
  return (lambda n: ((page(n) * Hkv + hk) * P + n % P) * D), P * pages

def flash_decode(q:UOp, k:UOp, v:UOp, seqlens:UOp, table:UOp|None, o:UOp, lse:UOp|None, *args:UOp, target:Target, cfg:FwdConfig,
                 causal:bool=False, scale:float|None=None, mods:Mods|None=None, top_left:bool=False) -> UOp:
  """Build the decoding kernel's sink for Tensor.custom_kernel.
  q: (B, H, Nq, D) fp16/bf16. k, v: the cache, (B, Hkv, Nmax, D), or with table a paged pool (pages, Hkv, P, D) whose page j of
  sequence b is table[b, j]; in q's dtype. Or q, k, v in an 8-bit float the target's fp8 MMA takes (Target.for_dtype): then the first
  three args are q's, k's and v's descales, float32 (B, Hkv), as flash_fwd takes them.
  seqlens: (B,) int32, the keys of each sequence (clamped to the cache: nothing outside it is read).
  table: (B, max_pages) int32 or None; its entries are clamped to the pool. causal aligns bottom-right: query i sits at position
  seqlens[b] - Nq + i; mods (fa_uop.mods.Mods, its causal in place of causal) adds windows, softcap and score and mask mods
  over those positions, reading the buffers args; top_left: query i sits at position i instead, as flash_attention aligns.
  Outputs: o (B, H, Nq, D) in q's dtype (fp8: bf16) and lse (B, H, Nq) float32 (or None) when the cache is not split;
  split over S blocks, one partial result per split, o (B, H, Nq, S, D) and lse (B, H, Nq, S) float32, for flash_combine.
  Per block: BLOCK_M packed rows (row g·Nq + i is query i of head hk·G + g) of one KV head, against one split of its cache."""
  mods = mods or Mods(causal=causal)
  B, H, Nq, D = q.shape
  Hkv = k.shape[1]
  G = H // Hkv
  R = G * Nq                                   # packed rows of a group; they are contiguous in q, o and lse
  S = o.shape[3] if len(o.shape) == 5 else 1
  target = cfg.check(target.for_dtype(q.dtype), D)   # its fp8 MMA for 8-bit inputs; narrowed where the head dim or the tile's columns need it
  descales, args = (args[:3], args[3:]) if (fp8:=q.dtype.itemsize == 1) else ((), args)
  BM, BN = cfg.block_m, cfg.block_n

  b, hk, mb = UOp.range(B, 0, AxisType.GLOBAL), UOp.range(Hkv, 1, AxisType.GLOBAL), UOp.range(math.ceil(R / BM), 2, AxisType.GLOBAL)
  s = UOp.range(S, 3, AxisType.GLOBAL) if S > 1 else None
  blk = Block(target, cfg.warps)
  m0 = mb * BM
  row0 = (b * Hkv + hk) * R + m0               # the packed row of block row 0
  key_row, cap = cache_rows(k, table, b, hk)
  # a paged cache's keys are dense within a page: a tile is copied in runs that each look their page up once
  tile_rows, run = (lambda n0: lambda r: key_row(n0 + r)), None if table is None else math.gcd(k.shape[2], BN)
  nk = flat(seqlens)[b].maximum(0).minimum(cap)
  q0 = 0 if top_left else nk - Nq               # query i's position: bottom-right, nk - Nq + i, or top-left, i
  pos = lambda row: q0 + (m0 + row) % Nq
  head = lambda row: hk * G + (m0 + row) // Nq  # the query head of a packed row
  plan = mods.plan(q0, q0 + Nq - 1, nk, BN)
  # every tile is masked: the cost is a few compares per score, where a second, unmasked stage would leave the emulator (see
  # tile_plan) a loop after one that may run no time at all. Split s takes its share of the plan's positions.
  if s is None: share = TilePlan(plan.total, 0, plan.tile, plan.total)
  else:
    per = (plan.total + S - 1) // S
    first = (s * per).minimum(plan.total)
    count = (plan.total - first).minimum(per)
    share = TilePlan(count, 0, lambda p: plan.tile(first + p), count)
  lim = (H - 1, (Nq if top_left else cap) - 1, cap - 1)   # a mod sees positions in the cache (a query before its start at 0)
  score = (lambda x, row, key, interior=False: mods.score(x, b, head(row), pos(row), key, args, lim)) if mods.scores_changed else None   # every tile masked
  sc = 1 / math.sqrt(D) if scale is None else scale
  # fp8: the descales of this block's (sequence, KV head), alike for every row of its group; v's scales the output before a split's
  # partial result is stored (the combine weighs the splits by their logsumexps only, so it needs no scale of its own)
  qd, kd, vd = (flat(t).index(b * Hkv + hk) for t in descales) if fp8 else (None, None, None)
  acc, row_max, row_sum, q_s = attend(blk, cfg, q, k, v, rows_at(row0 * D, D), R - m0, tile_rows, run, nk, share, qd * kd * sc if fp8 else sc,
                                 lambda row, key: mods.keep(b, head(row), pos(row), key, nk, args, lim), score)
  if s is None: o_row, lse_row = (lambda r: (row0 + r) * D), (lambda r: row0 + r)
  else: o_row, lse_row = (lambda r: ((row0 + r) * S + s) * D), (lambda r: (row0 + r) * S + s)
  stores = store_rows(blk, cfg, acc, row_max, row_sum, q_s, o, o_row, lse, lse_row, R - m0, vd)
  kv_bytes = 2 * B * Hkv * cap * D * k.dtype.itemsize
  cost = Estimates(ops=4 * B * H * Nq * cap * D, mem=kv_bytes + 2 * B * H * Nq * D * q.dtype.itemsize)
  info = KernelInfo(name=mods.name("fa_decode" + ("_paged" if table is not None else ""), D), opts_to_apply=(), estimates=cost)
  grid = (s, mb, hk, b) if s is not None else (mb, hk, b)
  return UOp.group(*stores).end(blk.warp, blk.lane).end(*grid).sink(arg=info).rtag(1)

def flash_combine(o_part:UOp, lse_part:UOp, o:UOp, lse:UOp|None=None) -> UOp:
  """Merge the splits' partial results: o_part (..., S, D) and lse_part (..., S) float32 into o (..., D) in its dtype and lse
  (...) float32 (or None): lse = log Σ_s exp(lse_s), o = Σ_s exp(lse_s − lse)·o_s. A row no split saw a key of gets 0 and -inf.
  One block per row, a thread per column, one pass with a running max over chunks of splits whose loads are all independent
  (a loop of one dependent load per split was latency-bound: 70 µs for 64 splits on the H100)."""
  *lead, S, D = o_part.shape
  rows = math.prod(lead)
  U = math.gcd(S, 8)                           # splits per chunk
  r, d = UOp.range(rows, 0, AxisType.GLOBAL), UOp.range(D, 1, AxisType.LOCAL)
  lp, op = flat(lse_part), flat(o_part)
  st = UOp.placeholder((3,), dtypes.float, slot=0, addrspace=AddrSpace.REG)   # running max (log2), Σ weights, Σ weight·o
  st = st.after(UOp.group(st[0].store(-math.inf), st[1].store(0.0), st[2].store(0.0)))
  j = UOp.range(S // U, 2, AxisType.REDUCE)
  cur = st.after(j)
  ls = [lp[r * S + j * U + u] * LOG2E for u in range(U)]
  os = [op[(r * S + j * U + u) * D + d] for u in range(U)]
  m = functools.reduce(lambda a, b: a.maximum(b), ls, cur[0])
  safe = m.eq(-math.inf).where(0.0, m)         # no key seen yet: every weight is exp2(-inf) = 0
  scale, ws = (cur[0] - safe).exp2(), [(x - safe).exp2() for x in ls]
  upd = UOp.group(st[0].store(m), st[1].store(cur[1] * scale + functools.reduce(lambda a, b: a + b, ws)),
                  st[2].store(cur[2] * scale + functools.reduce(lambda a, b: a + b, [w * x for w, x in zip(ws, os)])))
  st = st.after(upd.end(j))
  total = st[1]
  stores = [flat(o).index(r * D + d).store(total.eq(0).where(0.0, st[2] / total).cast(o.dtype))]
  if lse is not None: stores.append(flat(lse).index(r.valid(d.eq(0))).store(total.eq(0).where(-math.inf, (st[0] + total.log2()) / LOG2E)))
  cost = Estimates(ops=4 * rows * S * D, mem=rows * S * (D + 1) * 4 + rows * D * o.dtype.itemsize)
  info = KernelInfo(name=f"fa_combine_s{S}_d{D}", opts_to_apply=(), estimates=cost)
  return UOp.group(*stores).end(d, r).sink(arg=info).rtag(1)

def flash_kv_write(k_cache:UOp, v_cache:UOp, k:UOp, v:UOp, seqlens:UOp, table:UOp|None=None) -> UOp:
  """Write new keys and values into a cache in place: k, v (B, Hkv, Nnew, D) go to positions seqlens[b] + i of sequence b in
  k_cache and v_cache (dense or paged, as flash_decode reads them). Positions past the cache are dropped. A block per new row."""
  B, Hkv, Nnew, D = k.shape
  b, hk, i = UOp.range(B, 0, AxisType.GLOBAL), UOp.range(Hkv, 1, AxisType.GLOBAL), UOp.range(Nnew, 2, AxisType.GLOBAL)
  d = UOp.range(D, 3, AxisType.LOCAL)
  key_row, cap = cache_rows(k_cache, table, b, hk)
  start = flat(seqlens)[b].maximum(0)
  src = ((b * Hkv + hk) * Nnew + i) * D + d
  # the gate is on i, not on start + i: tinygrad simplifies an address under its gate, and from start + i < cap it would drop the
  # clamp of the page-table index, whose load is not gated
  stores = [flat(c).index((key_row(start + i) + d).valid(i < cap - start)).store(flat(x)[src]) for c, x in ((k_cache, k), (v_cache, v))]
  info = KernelInfo(name=f"fa_kv_write_d{D}", opts_to_apply=(), estimates=Estimates(ops=0, mem=4 * B * Hkv * Nnew * D * k.dtype.itemsize))
  return UOp.group(*stores).end(d, i, hk, b).sink(arg=info).rtag(1)
