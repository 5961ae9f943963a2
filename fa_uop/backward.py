"""The backward kernels (FlashAttention-2): P is recomputed from the saved logsumexp. delta = rowsum(dO ∘ O) comes first
(an O(N·D) reduction tinygrad generates); then one kernel holds a K/V tile and walks the query tiles of every query head that
reads it (GQA) to accumulate dK and dV, and one holds a query tile and walks the KV tiles to accumulate dQ."""
from __future__ import annotations
import math
from typing import Callable
from tinygrad import UOp, dtypes
from tinygrad.renderer import Estimates
from tinygrad.uop.ops import AxisType
from fa_uop.config import BwdConfig
from fa_uop.forward import LOG2E, producer, fill_ring, ring_barriers, ring_wait, ring_release
from fa_uop.mods import Mods
from fa_uop.blockmap import kernel_plan, launch
from fa_uop.target import Target, BoundedKernel
from fa_uop.tiles import (Block, Smem, flat, smem, acc_to_lds, copy_tile, wait_tile, frag_a, frags_b, acc_tile, rows_view, tile_coords, row_coords, col_coords,
                          lane_rows, lane_cols, load_vec, mma, wgmma_tile, a_operand, a_via, rows_at, store_acc, all_of, split_warp, in_order,
                          add_acc, each_element, reduce_tile, reduce_free, reduce_done, bulk_copy_tile)

def _info(name:str, flops:int, nbytes:int, cfg:BwdConfig, consumers:int=0) -> BoundedKernel:
  # stated so tinygrad does not derive it symbolically over data-dependent loop bounds (see forward)
  # the rings (warp-specialised) broadcast their warp index: timed 3-5% faster (target.UniformWarp)
  return BoundedKernel(name=name, opts_to_apply=(), estimates=Estimates(ops=flops, mem=nbytes), min_blocks=cfg.blocks, consumers=consumers,
                       uniform_warp=consumers > 0)

def _scores(blk:Block, s:UOp, sc:float, pos:Callable[[UOp, UOp], tuple[UOp, UOp]], masked:bool, keep:Callable[[UOp, UOp], UOp],
            score:Callable[[UOp, UOp, UOp], UOp]|None, dscore:Callable[[UOp, UOp, UOp], UOp]|None) -> tuple[UOp, UOp|None]:
  """S (accumulator registers) into the log2-domain scores P is made of: scaled by sc, modified by score(x, query, key) where
  given, masked by keep(query, key) in a masked tile; pos(row, col) gives the query and key of a tile element. With dscore, a
  register tile of d score / d x as well, which dS is multiplied by."""
  tm, tn, ne = s.shape
  mi, ni, e = blk.range(tm), blk.range(tn), blk.range(ne)
  r, col = tile_coords(blk, mi, ni, e)
  qi, kj = pos(r, col)
  x = s[mi, ni, e]
  val = x * (sc * LOG2E) if score is None else score(x * sc, qi, kj) * LOG2E
  if masked: val = keep(qi, kj).where(val, -math.inf)
  stores, ds = [s[mi, ni, e].store(val)], None
  if dscore is not None:
    ds = acc_tile(blk, tm, tn)
    stores.append(ds[mi, ni, e].store(dscore(x * sc, qi, kj)))
  done = UOp.group(*stores).end(mi, ni, e)
  return s.after(done), None if ds is None else ds.after(done)

# threads per block of the delta kernel
DELTA_THREADS = 256

def flash_bwd_delta(o:UOp, do:UOp, delta:UOp, *dlse:UOp, target:Target) -> UOp:
  """delta = rowsum(dO ∘ O) (less dlse, the gradient of the logsumexp, where given), float32 (B, H, Nq) from o and do (B, H, Nq, D):
  each thread multiplies one 16-byte piece of a row of each (a warp reads whole rows, in order), the pieces' sums meet in LDS and one
  thread a row adds them. tinygrad's own reduction of the same took 0.26 ms on the H100 at 16k x 16 heads x 128 (six times what
  reading O and dO costs), 8% of the document mask's backward (docs/journal.md, 2026-11-25)"""
  B, H, Nq, D = o.shape
  n = B * H * Nq
  C = 1 << (D // 8 - 1).bit_length()   # threads a row: its 16-byte pieces, to a power of two (those past D add nothing)
  R = DELTA_THREADS // C               # rows a block
  blk = Block(target, DELTA_THREADS // target.warp)
  g = UOp.range(math.ceil(n / R), 0, AxisType.GLOBAL)
  r, c = blk.tid // C, blk.tid % C
  row = g * R + r
  ok = all_of(row < n if n % R else None, c < D // 8 if C > D // 8 else None)
  part = blk.reg((8,))
  v = blk.range(8, AxisType.UPCAST)
  at = row * D + c * 8 + v
  ld = lambda t: flat(t).index(at if ok is None else at.valid(ok)).cast(dtypes.float)   # a masked load reads 0
  part = part.after(part[v].store(ld(o) * ld(do)).end(v))
  sums = blk.lds((R, C), dtypes.float)
  sums = sums.after(sums[r, c].store(sum((part[x] for x in range(1, 8)), part[0])).barrier())
  total = sum((sums[blk.tid % R, x] for x in range(1, C)), sums[blk.tid % R, 0])   # every thread reads a row, the first R store it
  out = g * R + blk.tid
  keep = blk.tid < R if n % R == 0 else (blk.tid < R) & (out < n)
  if dlse: total = total - flat(dlse[0]).index(out.valid(keep))
  info = _info(f"fa_bwd_delta_d{D}", 2 * n * D, 2 * n * D * o.dtype.itemsize + 4 * n * (2 if dlse else 1), BwdConfig())
  return flat(delta).index(out.valid(keep)).store(total).end(blk.warp, blk.lane).end(g).sink(arg=info).rtag(1)

def flash_bwd_dkdv(q:UOp, k:UOp, v:UOp, do:UOp, lse:UOp, delta:UOp, dk:UOp, dv:UOp, *args:UOp, target:Target, cfg:BwdConfig, causal:bool=False,
                   scale:float|None=None, mods:Mods|None=None) -> UOp:
  """dK and dV. q, do: (B, H, Nq, D); k, v, dk, dv: (B, Hkv, Nk, D); lse (natural log) and delta (rowsum(dO∘O), less any
  gradient of lse): (B, H, Nq) float32. Per block: cfg.block_m keys of one KV head, split over the warps; the block walks the
  query tiles (cfg.block_n rows) of each of the H/Hkv query heads that read the head. Works transposed (rows = keys):
  Sᵀ = K·Qᵀ, Pᵀ = exp(Sᵀ·scale − lse), dV += Pᵀ·dO, dPᵀ = V·dOᵀ, dSᵀ = Pᵀ∘(dPᵀ − delta), dK += dSᵀ·Q·scale. With cfg.split,
  the warps of a row group split Sᵀ and dPᵀ by query columns and dK and dV by head-dim columns, Pᵀ and dSᵀ shared through LDS.
  With cfg.ring (Hopper, tma) the last arg is the tensor maps of q and do (32 uint64: fa_uop.forward.flash_tma_maps of q and do), from
  which a producer warpgroup bulk-copies each query tile into a ring of cfg.ring Q and dO slots ahead of the consumers (the forward's
  warp specialisation): a consumer warpgroup waits on a slot's mbarrier and releases it once its products are done, meeting the other
  at no block barrier in the loop."""
  mods = mods or Mods(causal=causal)
  causal = mods.causal
  B, H, Nq, D = q.shape
  Hkv, Nk = k.shape[1], k.shape[2]
  G = H // Hkv
  target = cfg.check(target, D)   # narrowed where the head dim or the tile's columns need it
  BK, BQ, W, S = cfg.block_m, cfg.block_n, cfg.warps, cfg.split
  M, N, K = target.mma
  WR = BK // (W // S)                            # key rows per warp
  QC, DC = BQ // S, cfg.cols(D)                 # a warp's query columns of Sᵀ and dPᵀ, and head-dim columns of dK and dV
  DT = S * DC                                    # the tiles' columns: D, and the phantom columns of an uneven split (BwdConfig.cols)
  sc = 1 / math.sqrt(D) if scale is None else scale
  c = sc * LOG2E

  ring = cfg.ring
  if ring: args, tmaps = args[:-1], flat(args[-1])
  dqa, *args = args if cfg.dq else (None, *args)   # with dq: the zeroed float32 dQ (B, H, Nq to whole query tiles, D) added into
  args, grid, b, hk, nb = launch(mods, args, B, Hkv, math.ceil(Nk / BK), last_first=False)   # the first key blocks see the most queries
  blk = Block(target, W, producer=ring > 0, rebuilt=cfg.rebuilt)
  n0 = nb * BK
  kv_base = ((b * Hkv + hk) * Nk + n0) * D
  qg, kg, vg, dog = flat(q), flat(k), flat(v), flat(do)
  # warp w: key rows from rows0, query columns from q0 and head-dim columns from d0
  _, rows0, q0, d0 = split_warp(blk, S, WR, QC, DC)

  # Hopper: the four products by wgmma (Sᵀ and dPᵀ from LDS, dV and dK with Pᵀ and dSᵀ from registers, or with split from their LDS
  # tiles), the tiles in its swizzle atoms
  wg = cfg.by_wgmma(target, D)
  k_s, v_s = smem(blk, BK, DT, k.dtype, atom=64 if wg else 0), smem(blk, BK, DT, k.dtype, atom=64 if wg else 0)
  q_s, do_s = (smem(blk, BQ, DT, q.dtype, atom=64 if wg else 0, n=max(ring, 1)) for _ in range(2))
  # V's tile, then K's, where the target orders them (tiles.in_order): the twin's pieces of both in registers at once, beside every value
  # the loop holds (hoisted into this prologue), spilled (clang-22, RDNA past D=224: gfx1100's causal dK/dV at 240 4 VGPRs, its window's
  # at 256 4; one tile at a time, none; K's first, gfx1201's at 256 8). Elsewhere as before (their order only numbers the ranges)
  copy_k = lambda base: copy_tile(blk, k_s, kg, rows_at(base, D), Nk - n0, cols=D)
  copy_v = lambda: copy_tile(blk, v_s, vg, rows_at(kv_base, D), Nk - n0, variant=1, cols=D)
  kv_copy = UOp.group(copy_k(kv_base), copy_v()) if target.fence is None else UOp.group(copy_k(in_order(blk, kv_base, v_s, vc:=copy_v())), vc)

  dk_acc, dv_acc = acc_tile(blk, WR // M, DC // N), acc_tile(blk, WR // M, DC // N)
  hold_kv = target.holds(2 * WR // M, D // K, k.dtype.itemsize)
  # with split, Pᵀ and dSᵀ meet in LDS (in wgmma's swizzle atoms where it reads them)
  p_s, ds_s = (smem(blk, BK, BQ, q.dtype, atom=64 if wg else 0) for _ in range(2)) if S > 1 else (None, None)
  # else their LDS tiles where C and A layouts differ, one each for both stages
  p_via, ds_via = (a_via(blk, BK, BQ, q.dtype) for _ in range(2)) if S == 1 and not wg else (None, None)
  if cfg.dq:
    # dQ's part, dS·K: dS (queries x keys) in LDS, stored from dSᵀ's registers transposed (wgmma's atoms where it runs the product);
    # warp w takes its rows from rq0 and its columns from cq0, QCH at a time (their registers beside dK's and dV's)
    R, dq_wg = cfg.dq_warps(target, D)
    ds_q = smem(blk, BQ, BK, q.dtype, atom=64 if dq_wg else 0)
    _, rq0, cq0 = split_warp(blk, W // R, BQ // R, D // (W // R))
    QCH = math.gcd(D // (W // R), 64)
    # Hopper: the part staged in LDS (float32, the rows of dQ it covers in order) and added by the bulk copy engine, one operation a
    # step, where element by element the atomics took 2.6x the whole backward (H200, D=128 N=16384: 32.8 against 12.4 ms)
    dq_stage = blk.lds((BQ * D,), dtypes.float) if target.tma is not None else None

  # query tiles: those past the diagonal need no mask; a causal block skips the ones wholly above it. Rows past Nq need none
  # either: their logsumexp reads as +inf, so P is 0 there, and their copies read nothing.
  # Stage trip counts that depend on the block must not meet the block index inside the loop: tinygrad's valid simplification
  # (uop_given_valid) substitutes a block index it can pin from a load's guard into the loop's own bound too, leaving two RANGEs
  # of one id and unbalanced braces (nvrtc failed on Nq = Nk = 128). So the masked stage has a constant count (tiles past
  # Nq cost a little, add nothing) and the unmasked stage walks down from the last tile, its indices free of the block index.
  n_qt, key0, trips = math.ceil(Nq / BQ), n0, None
  stages = target.stages(D, "dkdv", causal, mods.masks_more)
  one_stage = causal and not mods.masks_more and (stages == 1 or cfg.ring > 0)   # the causal stages past D=128 and of a ring: see below
  # a window or a mask_mod: the tiles tile_plan gives (mirrored: the queries that see the block's keys), a phantom masked trip
  # where a block has none, as attend does
  if (general:=mods.masks_more):
    # a block map's plan depends on the head where the mask reads it; the head loop runs around the stages
    g, mod_args, kstages = blk.range(G, AxisType.REDUCE), args, stages   # (stages is the stages' list below)
    args, plan = kernel_plan(mods, args, b, hk * G + g, nb, n0, n0 + BK - 1, Nq, BQ, stages, keys=False)   # the map: keys x queries
    phantom = (plan.total if isinstance(plan.total, int) else plan.total.vmin) < 1
    masked_trips = lambda pl: (1 if isinstance(pl.n_masked, int) else pl.n_masked.maximum(1)) if phantom else pl.n_masked
    n_masked = masked_trips(plan)
    n_free = plan.n_free
  elif not causal: q_lo, n_masked, n_free = 0, 0, n_qt
  elif not one_stage:
    q_lo = n0 // BQ                                           # the tile holding query n0
    # tiles from q_lo the diagonal may cross, at most, over the offsets n0 % BQ a block can have
    n_masked = max((r + BK + BQ - 2) // BQ for r in range(0, BQ, math.gcd(BK, BQ)))
    n_free = (n_qt - q_lo - n_masked).maximum(0)
    # see forward: no stage of at most one trip whose count varies; such a tile joins the masked stage
    if n_free.vmax <= 1: n_masked, n_free = n_masked + n_free.vmax, 0
  else:
    # causal past D=128: one stage of masked tiles, from the last down to the one holding query n0, each masked (a compare and a select
    # an element). Beside a stage for the diagonal's tiles, the unmasked one spilled (H100, 64x64x8s2 at D=256: 440 bytes, none in one
    # stage; causal N=16384 251 -> 275 TFLOPS, N=4096 224 -> 250); at D=128 one stage measured 4% slower (docs/journal.md 2026-11-26,
    # fifteenth session). A ring's consumers (setmaxnreg: 240 registers) spilled beside two stages too (nvcc, 128x64x8tr2 at D=128: 96
    # bytes, with GQA and tails 208; D=64 104), in one none
    q_lo = n0 // BQ
    n_masked, n_free = 0, (n_qt - q_lo).maximum(0)
    # see forward: no stage of at most one trip whose count varies; there the one tile from q_lo (past Nq: nothing) is the stage
    if n_free.vmax <= 1: n_masked, n_free = 1, 0
    # its mask reads the block's first key, and its loop its count, from registers: the block index must not meet that loop (see above)
    # Read back with their bounds told to tinygrad again where the copies are the twin's (as TilePlan.carried does): unbounded, the loop's
    # index and every copy address made of it were 64-bit (clang-22, gfx1100 at D=240: 106 of them, 9 VGPRs spilled -> 4). Not with the
    # async copy, whose addresses are 64-bit sums anyway: bounded there, the H100's causal backward at D=256 went 2.77 -> 2.91 ms
    def reread(x:UOp) -> UOp:
      y = (r:=blk.reg((1,), dtypes.int32)).after(r.store(x))[0]
      return y.maximum(0).minimum(int(x.vmax)) if target.copy16 is None else y
    key0 = reread(n0)
    if not isinstance(n_free, int): trips = reread(n_free)
  ncols = lane_cols(blk, QC // N)

  lim = (H - 1, Nq - 1, Nk - 1)
  keep = lambda qi, kj: mods.keep(b, hk * G + g, qi, kj, None, args, lim)  # keys past Nk are never stored: no tail mask
  # a row that kept no key has logsumexp -inf: read as +inf, its P is 0 (and its gradients), not exp(inf)
  no_key_rows = (lambda l: l.eq(-math.inf).where(math.inf, l)) if mods.masks_more else (lambda l: l)
  score = (lambda x, qi, kj: mods.score(x, b, hk * G + g, qi, kj, args, lim)) if mods.scores_changed else None
  dscore = (lambda x, qi, kj: mods.dscore(x, b, hk * G + g, qi, kj, args, lim)) if mods.scores_changed else None

  def shared(t:UOp, s:Smem, dtype) -> Smem:
    """the whole rows of Pᵀ or dSᵀ (this warp's columns of them in t) through the LDS tile s, every warp's part there"""
    return wait_tile(blk, acc_to_lds(blk, t, s, rows0, dtype, cols0=q0))
  def acc_mma(acc:UOp, a:Smem|Callable, t:Smem) -> UOp:
    """acc (this warp's dK or dV columns) += A·t, A (Pᵀ or dSᵀ) from registers (a(m, kk)) or, with split, from its LDS tile"""
    if wg: return wgmma_tile(blk, acc, (lambda kk: a(0, kk)) if callable(a) else a, t, b_kn=True, add=True, a_row=rows0, b_off=d0)
    af = a if callable(a) else lambda m, kk: frag_a(blk, a, rows0 + m * M, kk * K)
    return mma(blk, acc, af, lambda c0, kk: frags_b(blk, t, d0 + c0, kk * K, trans=True), BQ // K, a_reads=not callable(a))

  def dq_add(ds:UOp, kt:Smem, tile:UOp, h:UOp) -> UOp:
    """this block's keys' part of query tile `tile`'s dQ, dS·K, added into the float32 dQ (its scale applied after)"""
    # keys past Nk (K's rows read as zeros) add nothing
    put = lambda r, col, x: ds_q.at(q0 + col, rows0 + r).store((x if Nk % BK == 0 else (n0 + rows0 + r < Nk).where(x, 0)).cast(q.dtype))
    a = wait_tile(blk, ds_q, each_element(blk, ds, put))
    row0 = ((b * H + h) * (n_qt * BQ) + tile * BQ + rq0) * D
    # a masked stage's tiles past the last (a constant count; see below) add nothing, and must not: dQ ends there
    when = tile < n_qt if isinstance(tile, UOp) and tile.vmax >= n_qt else None
    adds: list[UOp] = []
    stg = None if dq_stage is None else reduce_free(blk, dq_stage, a.buf)   # the last step's bulk add has read it
    for c0 in range(0, D // (W // R), QCH):
      acc = acc_tile(blk, 1 if dq_wg else BQ // R // M, QCH // N).after(*adds)   # one piece's registers live at a time
      if dq_wg: acc = acc.after(wgmma_tile(blk, acc.after(a.buf), a, kt, b_kn=True, a_row=rq0, b_off=cq0 + c0))
      else:
        acc = acc.after(acc.after(a.buf).store(acc.const_like(0)))
        acc = acc.after(mma(blk, acc, lambda m, kk: frag_a(blk, a, rq0 + m * M, kk * K),
                            lambda n, kk: frags_b(blk, kt, cq0 + c0 + n, kk * K, trans=True), BK // K, a_reads=True))
      if stg is None: adds.append(add_acc(blk, acc, flat(dqa), lambda r, c: row0 + r * D + cq0 + c0 + c, when))
      else: adds.append(each_element(blk, acc, lambda r, c, x: stg[(rq0 + r) * D + cq0 + c0 + c].store(x)))
    if stg is None: return UOp.group(*adds)
    return reduce_tile(blk, stg, flat(dqa).index(((b * H + h) * (n_qt * BQ) + tile * BQ) * D), 4 * BQ * D, when, *adds)

  def q_step(it:UOp, tile:UOp, g:UOp, dk_acc:UOp, dv_acc:UOp, masked:bool, after:tuple, variant:int, real:UOp|None=None,
             carry:Callable[[UOp], UOp]|None=None, pos:UOp|None=None) -> UOp:
    dk_acc, dv_acc = dk_acc.after(it), dv_acc.after(it)
    h = hk * G + g
    i0 = tile * BQ
    if ring:   # the producer's copies: Q and dO of position pos
      qt, dot = ring_wait(blk, ring, bars, (q_s, do_s), pos, it, start, *after)
      carried: tuple = ()
      kt, vt = k_ready.after(it), v_ready.after(it)
    else:
      q_base = ((b * H + h) * Nq + i0) * D
      qc = copy_tile(blk, q_s.after(it, *after), qg, rows_at(q_base, D), Nq - i0, variant=variant, cols=D)
      dc = copy_tile(blk, do_s.after(it, *after), dog, rows_at(q_base, D), Nq - i0, variant=variant + 1, cols=D)
      qt, dot = wait_tile(blk, q_s, qc, dc, kv_copy), wait_tile(blk, do_s, qc, dc, kv_copy)
      carried = () if carry is None else (carry(UOp.group(qc, dc)),)
      # K's and V's A fragments, held across the query loop where the target's budget holds them, else read again each step
      kt, vt = (wait_tile(blk, x if hold_kv else x.after(it), kv_copy) for x in (k_s, v_s))
    # per column (query) statistics: log2-domain logsumexp (+inf past Nq) and delta
    cols = [i0 + q0 + cc for cc in col_coords(blk, ncols)]
    stat = (b * H + h) * Nq
    lse2 = no_key_rows(load_vec(blk, flat(lse), [stat + cc for cc in cols], [cc < Nq for cc in cols], math.inf))
    dlt = load_vec(blk, flat(delta), [stat + cc for cc in cols], [cc < Nq for cc in cols])
    # Sᵀ = K·Qᵀ, then Pᵀ
    s = acc_tile(blk, WR // M, QC // N)
    if wg: s = s.after(wgmma_tile(blk, s.after(qt.buf), kt, qt, a_row=rows0, b_off=q0))
    else:
      s = s.after(s.after(qt.buf).store(s.const_like(0)))
      s = s.after(mma(blk, s, lambda m, kk: frag_a(blk, kt, rows0 + m * M, kk * K), lambda c0, kk: frags_b(blk, qt, q0 + c0, kk * K), D // K,
                      a_reads=not hold_kv))
    s, dsc = _scores(blk, s, sc, lambda r, col: (i0 + q0 + col, key0 + rows0 + r), masked,
                     keep if real is None else lambda qi, kj: keep(qi, kj) & real, score, dscore)
    s_rows = rows_view(blk, s)
    s = s.after(s_rows.store((s_rows - (lse2 * LOG2E).reshape(1, ncols).expand(s_rows.shape)).exp2()))
    # dV += Pᵀ·dO
    pa = a_operand(blk, s, rows0, v.dtype, via=p_via) if S == 1 else shared(s, p_s, v.dtype)
    dv_done = acc_mma(dv_acc, pa, dot)
    # dPᵀ = V·dOᵀ, dSᵀ = Pᵀ∘(dPᵀ − delta)
    dp = acc_tile(blk, WR // M, QC // N)
    # zeroed behind this step's tiles, not just its loop: a one-trip loop is removed, and a bare constant store would then be
    # hoisted out of the head loop around it
    if wg: dp = dp.after(wgmma_tile(blk, dp.after(qt.buf), vt, dot, a_row=rows0, b_off=q0))
    else:
      dp = dp.after(dp.after(qt.buf).store(dp.const_like(0)))
      dp = dp.after(mma(blk, dp, lambda m, kk: frag_a(blk, vt, rows0 + m * M, kk * K), lambda c0, kk: frags_b(blk, dot, q0 + c0, kk * K), D // K,
                        a_reads=not hold_kv))
    dp_rows, p_rows = rows_view(blk, dp), rows_view(blk, s)
    ds = p_rows * (dp_rows - dlt.reshape(1, ncols).expand(dp_rows.shape))
    dp = dp.after(dp_rows.store(ds if dsc is None else ds * rows_view(blk, dsc)))
    # dK += dSᵀ·Q (the softmax scale is applied once at the end)
    dsa = a_operand(blk, dp, rows0, q.dtype, via=ds_via) if S == 1 else shared(dp, ds_s, q.dtype)
    dk_done = acc_mma(dk_acc, dsa, qt)
    dq_done = () if dqa is None else (dq_add(dp, kt, tile, h),)
    # a ring's slots are released once every product reading them is done (wgmma_tile waits for each)
    if ring: return UOp.group(dv_done, dk_done, *ring_release(blk, ring, bars, pos, dv_done, dk_done)).end(it)
    # the next query tile's copies overwrite what this step read (through ldmatrix, which tinygrad's barriers do not see)
    return UOp.group(dv_done, dk_done, *dq_done, *carried).barrier().end(it)

  # the stages' (masked, trips) and each trip's query tile (where no block map lists them)
  stages = [(masked, bound) for count, masked, bound in ((n_masked, True, n_masked), (n_free, one_stage, n_free if trips is None else trips))
            if (count if isinstance(count, int) else count.vmax) > 0]
  tile_of = lambda masked, it: q_lo + it if masked else n_qt - 1 - it
  n_pos = sum(bound for _, bound in stages)   # positions a head
  if ring:
    # a window's or mask_mod's tiles differ by head, in counts too: the ring walks them for one query head a KV head
    if general and G > 1: raise ValueError(f"{cfg}: the backward's ring walks a window's or block map's tiles for one query head a KV head")
    bars = ring_barriers(blk, ring, (tmaps.index(0), tmaps.index(16)), qg, dog)
    def fill(prev:UOp) -> UOp:
      """the producer: every head's stages in the consumers' order, Q and dO of each query tile into the ring. One loop over all the
      positions: with a loop a head, tinygrad 0.14's linearizer declared the block's first key inside it, out of the sight of the
      consumers' code after it (nvcc: undefined identifier). A window's or block map's tiles (G = 1) from a plan of its own, made
      outside the consumers' head loop, positions as theirs: the masked stage's trips (one, a phantom's of tile 0, where none), then the rest"""
      if general:   # (G = 1)
        _, pl = kernel_plan(mods, mod_args, b, hk, nb, n0, n0 + BK - 1, Nq, BQ, kstages, keys=False)
        nm, gp = masked_trips(pl), 0
        pp = blk.range(blk.producing.where(nm + pl.n_free, 0))
        p = (pp < nm).where(pp, pp - nm + pl.n_masked)
        tile = ((pp >= nm) | (p < pl.n_masked)).where(pl.tile(p), 0) if phantom else pl.tile(p)
      else:
        pp = blk.range(blk.producing.where(G * n_pos, 0))
        gp, p = (pp // n_pos, pp % n_pos) if G > 1 else (0, pp)
        (masked0, n0_pos), *rest = stages
        tile = tile_of(masked0, p) if not rest else (p < n0_pos).where(tile_of(masked0, p), tile_of(rest[0][0], p - n0_pos))
      copy = lambda j, dst, row0, ok, i: bulk_copy_tile(blk, dst, tmaps.index(16 * j), row0, b * H + hk * G + gp, bars.index(i))
      return fill_ring(blk, ring, bars, q_s, do_s, copy, pp, lambda _: tile * BQ, None, prev).end(pp)
    start = producer(blk, cfg, bars, fill)   # type: ignore[arg-type]
    # K and V copied by the consumers (the producer has left), waited for once
    k_s, v_s = k_s.after(start), v_s.after(start)
    kv_copy = UOp.group(copy_k(kv_base), copy_v())
    k_ready, v_ready = wait_tile(blk, k_s, kv_copy), wait_tile(blk, v_s, kv_copy)
    dk_acc, dv_acc = dk_acc.after(start), dv_acc.after(start)
  init = UOp.group(dk_acc.store(dk_acc.const_like(0)), dv_acc.store(dv_acc.const_like(0)))
  dk_acc, dv_acc = dk_acc.after(init), dv_acc.after(init)

  if not general: g = blk.range(G, AxisType.REDUCE)
  state, dones = (dk_acc.after(g), dv_acc.after(g)), []
  if general and plan.listed and not ring:  # the step's tile index, carried in a register: loaded a step before its copies (see attend); per head
    tix = blk.reg((1,), dtypes.int32)
    tix = tix.after(tix.after(g)[0].store(plan.index(0)))
  off: UOp|int = 0
  for masked, bound in stages:
    it = blk.range(bound, AxisType.REDUCE)
    if general:  # positions from 0 (masked) and from n_masked (unmasked); a phantom trip reads tile 0 and keeps nothing
      p = it if masked else plan.n_masked + it
      real = p < plan.n_masked if masked and phantom else None
      tile, carry = plan.tile(p), None
      if plan.listed and not ring:   # (a ring's consumers copy nothing: their tile index is for the mask)
        tile = plan.carried((tx:=tix.after(*dones, it))[0])
        carry = lambda copies, p=p, tx=tx: tx.after(copies)[0].store(plan.index(p + 1))
      if real is not None: tile = real.where(tile, 0)
    else: tile, real, carry = tile_of(masked, it), None, None
    pos = g * n_pos + off + it if ring else None   # the ring's position
    off = off + bound
    dones.append(q_step(it, tile, g, *[x.after(*dones) for x in state], masked=masked, after=tuple(dones), variant=2 + 2 * len(dones),
                        real=real, carry=carry, pos=pos).barrier())
  g_done = dones[-1].end(g) if dones else None  # each stage comes after the one before it, so the last one ends the head loop
  dk_acc, dv_acc = (dk_acc.after(g_done), dv_acc.after(g_done)) if g_done is not None else (dk_acc, dv_acc)

  # through K's and V's LDS tiles, free now, in whole 16-byte pieces of rows (the softmax scale applied to dK once, here)
  dk_acc = dk_acc.after((dk_rows:=rows_view(blk, dk_acc)).store(dk_rows * sc))
  stage = lambda t: t if g_done is None else t.after(g_done)
  stores = [store_acc(blk, acc, stage(t), rows0, flat(out), rows_at(kv_base, D), Nk - n0, cols0=d0, cols=D)
            for acc, t, out in ((dk_acc, k_s, dk), (dv_acc, v_s, dv))]
  if cfg.dq and dq_stage is not None: stores.append(reduce_done(blk, dq_stage, *stores))   # its LDS read before the block exits
  flops = 2 * (5 if cfg.dq else 4) * B * H * Nq * Nk * D // (2 if causal else 1)
  nbytes = (2 * B * H * Nq + 4 * B * Hkv * Nk) * D * q.dtype.itemsize + (8 * B * H * Nq * D * math.ceil(Nk / BK) if cfg.dq else 0)
  info = _info(mods.name("fa_bwd_dkdvq" if cfg.dq else "fa_bwd_dkdv", D), flops, nbytes, cfg, blk.threads if ring else 0)
  return UOp.group(*stores).end(blk.warp, blk.lane).end(*grid).sink(arg=info).rtag(1)

def flash_bwd_dq(q:UOp, k:UOp, v:UOp, do:UOp, lse:UOp, delta:UOp, dq:UOp, *args:UOp, target:Target, cfg:BwdConfig, causal:bool=False,
                 scale:float|None=None, mods:Mods|None=None) -> UOp:
  """dQ. Shapes as in flash_bwd_dkdv, dq like q. Per block: cfg.block_m query rows of one head, split over the warps, walking the
  KV tiles (cfg.block_n keys) as the forward does (masked tiles first, tiles above a causal diagonal never): S = Q·Kᵀ, P = exp(S·scale − lse),
  dP = dO·Vᵀ, dS = P∘(dP − delta), dQ += dS·K·scale. With cfg.split, as dK/dV's: the warps of a row group split S and dP by key
  columns and dQ by head-dim columns (BwdConfig.cols), dS shared through LDS. With cfg.ring (Hopper, tma) the last arg is the tensor
  maps of k and v (the forward's), from which a producer warpgroup bulk-copies the KV tiles into a ring, as the forward's does."""
  mods = mods or Mods(causal=causal)
  causal = mods.causal
  ring = cfg.ring
  if ring: args, tmaps = args[:-1], flat(args[-1])
  B, H, Nq, D = q.shape
  Hkv, Nk = k.shape[1], k.shape[2]
  target = cfg.check(target, D)   # narrowed where the head dim or the tile's columns need it
  BM, BN, W, S = cfg.block_m, cfg.block_n, cfg.warps, cfg.split
  M, N, K = target.mma
  WM, KC, DC = BM // (W // S), BN // S, cfg.cols(D)   # a warp's query rows, key columns of S and dP, head-dim columns of dQ
  sc = 1 / math.sqrt(D) if scale is None else scale
  c = sc * LOG2E

  args, grid, b, h, mb = launch(mods, args, B, H, math.ceil(Nq / BM), last_first=True)
  blk = Block(target, W, producer=ring > 0, rebuilt=cfg.rebuilt)
  m0 = mb * BM
  q_base, kv_base = ((b * H + h) * Nq + m0) * D, (b * Hkv + h // (H // Hkv)) * Nk * D
  kg, vg = flat(k), flat(v)
  _, rows0, k0, d0 = split_warp(blk, S, WM, KC, DC)   # query rows from rows0, keys of S and dP from k0, columns of dQ from d0
  args, plan = kernel_plan(mods, args, b, h, mb, m0, m0 + BM - 1, Nk, BN, target.stages(D, "dq", causal, mods.masks_more))
  lim = (H - 1, Nq - 1, Nk - 1)
  keep = lambda qi, kj: mods.keep(b, h, qi, kj, Nk, args, lim)
  no_key_rows = (lambda l: l.eq(-math.inf).where(math.inf, l)) if mods.masks_more else (lambda l: l)  # see flash_bwd_dkdv
  score = mods.score_fn(b, h, lambda qi: qi, args, lim)
  dscore = (lambda x, qi, kj: mods.dscore(x, b, h, qi, kj, args, lim)) if mods.scores_changed else None

  # Q and dO fragments to registers once (Hopper: wgmma reads them from LDS, in its swizzle atoms with K and V); the rows'
  # log2-domain logsumexp and delta too
  wg = S == 1 and cfg.by_wgmma(target, D)
  q_s, do_s, k_s, v_s = (smem(blk, rows, S * DC, q.dtype, atom=64 if wg else 0, n=n) for rows, n in ((BM, 1), (BM, 1), (BN, max(ring, 1)), (BN, max(ring, 1))))
  stats = (flat(lse), flat(delta))
  if ring:   # the producer fills the ring with every KV tile of the plan, then leaves; the consumers copy Q and dO
    if mods.masks_more: raise ValueError(f"{cfg}: the backward's ring walks causal or full key tiles, not a block map's")
    bars = ring_barriers(blk, ring, (tmaps.index(0), tmaps.index(16)), kg, vg)
    pp = blk.range(blk.producing.where(plan.n_masked + plan.n_free, 0))
    copy = lambda j, dst, n0, ok, i: bulk_copy_tile(blk, dst, tmaps.index(16 * j), n0, b * Hkv + h // (H // Hkv), bars.index(i))
    start = producer(blk, cfg, bars, lambda prev: fill_ring(blk, ring, bars, k_s, v_s, copy, pp, lambda p: plan.tile(p) * BN, None, prev).end(pp))  # type: ignore[arg-type]
    q_s, do_s, stats = q_s.after(start), do_s.after(start), tuple(x.after(start) for x in stats)
  qc = copy_tile(blk, q_s, flat(q), rows_at(q_base, D), Nq - m0, cols=D)
  dc = copy_tile(blk, do_s, flat(do), rows_at(q_base, D), Nq - m0, variant=1, cols=D)
  q_s, do_s = wait_tile(blk, q_s, qc, dc), wait_tile(blk, do_s, qc, dc)
  frags = []
  # Q's and dO's A fragments, held across the KV loop where the target's budget holds them, else read again each step
  hold = target.holds(2 * WM // M, D // K, q.dtype.itemsize)
  for t in (q_s, do_s) if not wg and hold else ():
    f = blk.reg((WM // M, D // K, target.a.nelems), q.dtype)
    fm, fk = blk.range(WM // M), blk.range(D // K)
    frags.append(f.after(f[fm, fk].store(frag_a(blk, t, rows0 + fm * M, fk * K)).end(fm, fk)))
  q_frag, do_frag = frags or (None, None)
  # dS's LDS tile: shared by the warps with split, else where C and A layouts differ; one for both stages
  ds_via = smem(blk, BM, BN, k.dtype) if S > 1 else None if wg else a_via(blk, BM, BN, k.dtype)
  dq_acc = acc_tile(blk, WM // M, DC // N)
  nrows = lane_rows(blk, WM // M)
  rows = [m0 + rows0 + r for r in row_coords(blk, nrows)]
  stat = (b * H + h) * Nq
  lse2 = no_key_rows(load_vec(blk, stats[0], [stat + r for r in rows], [r < Nq for r in rows]))
  dlt = load_vec(blk, stats[1], [stat + r for r in rows], [r < Nq for r in rows])
  # where a block map lists the tiles, the step's tile index is carried in a register, each loaded a step before its copies need it
  # (see attend); the arithmetic of the other plans is cheaper done again
  tix = blk.reg((1,), dtypes.int32)
  init = UOp.group((dq_acc if not ring else dq_acc.after(start)).store(dq_acc.const_like(0)), *([tix[0].store(plan.index(0))] if plan.listed else []))
  dq_acc, tix = dq_acc.after(init), tix.after(init)

  def kv_step(it:UOp, p0:UOp|int, dq_acc:UOp, tix:UOp, masked:bool, after:tuple, variant:int) -> UOp:
    dq_acc, tx = dq_acc.after(it), tix.after(it)
    p = p0 + it
    nt0 = (plan.carried(tx[0]) if plan.listed else plan.tile(p)) * BN
    if ring: kt, vt = ring_wait(blk, ring, bars, (k_s, v_s), p, it, start, *after)   # the producer's copies: K_p and V_p
    else:
      ok_rows = Nk - nt0 if masked else None
      kc = copy_tile(blk, k_s.after(it, *after), kg, rows_at(kv_base + nt0 * D, D), ok_rows, variant=variant, cols=D)
      vc = copy_tile(blk, v_s.after(it, *after), vg, rows_at(kv_base + nt0 * D, D), ok_rows, variant=variant + 1, cols=D)
      if plan.listed: dq_acc = dq_acc.after(tix.after(kc, vc)[0].store(plan.index(p + 1)))
      kt, vt = wait_tile(blk, k_s, kc, vc), wait_tile(blk, v_s, kc, vc)
    s = acc_tile(blk, WM // M, KC // N)
    if wg: s = s.after(wgmma_tile(blk, s.after(kt.buf), q_s, kt))
    else:
      s = s.after(s.after(kt.buf).store(s.const_like(0)))
      qa = (lambda m, kk: q_frag[m, kk]) if hold else (lambda m, kk: frag_a(blk, q_s.after(it), rows0 + m * M, kk * K))
      s = s.after(mma(blk, s, qa, lambda c0, kk: frags_b(blk, kt, k0 + c0, kk * K), D // K, a_reads=not hold))
    s, dsc = _scores(blk, s, sc, lambda r, col: (m0 + rows0 + r, nt0 + k0 + col), masked, keep, score, dscore)
    s_rows = rows_view(blk, s)
    s = s.after(s_rows.store((s_rows - (lse2 * LOG2E).reshape(nrows, 1).expand(s_rows.shape)).exp2()))
    dp = acc_tile(blk, WM // M, KC // N)
    if wg: dp = dp.after(wgmma_tile(blk, dp.after(kt.buf), do_s, vt))
    else:
      dp = dp.after(dp.after(kt.buf).store(dp.const_like(0)))  # behind this step's tiles (see flash_bwd_dkdv)
      da = (lambda m, kk: do_frag[m, kk]) if hold else (lambda m, kk: frag_a(blk, do_s.after(it), rows0 + m * M, kk * K))
      dp = dp.after(mma(blk, dp, da, lambda c0, kk: frags_b(blk, vt, k0 + c0, kk * K), D // K, a_reads=not hold))
    dp_rows, p_rows = rows_view(blk, dp), rows_view(blk, s)
    ds = p_rows * (dp_rows - dlt.reshape(nrows, 1).expand(dp_rows.shape))
    dp = dp.after(dp_rows.store(ds if dsc is None else ds * rows_view(blk, dsc)))
    dsa = a_operand(blk, dp, rows0, k.dtype, via=ds_via, shared=k0 if S > 1 else None)
    if ring:   # a ring's slots are released once the products reading them are done (wgmma_tile waits for each)
      dq_done = wgmma_tile(blk, dq_acc, lambda kk: dsa(0, kk), kt, b_kn=True, add=True)
      return UOp.group(dq_done, *ring_release(blk, ring, bars, p, dq_done)).end(it)
    # the next KV tile's copies overwrite what this step read (through ldmatrix, which tinygrad's barriers do not see)
    if wg: return wgmma_tile(blk, dq_acc, lambda kk: dsa(0, kk), kt, b_kn=True, add=True).barrier().end(it)
    return mma(blk, dq_acc, dsa, lambda c0, kk: frags_b(blk, kt, d0 + c0, kk * K, trans=True), BN // K, a_reads=S > 1).barrier().end(it)

  dones = []
  for p0, count, masked in ((0, plan.n_masked, True), (plan.n_masked, plan.n_free, False)):
    if (count if isinstance(count, int) else count.vmax) <= 0: continue
    dones.append(kv_step(blk.range(count, AxisType.REDUCE), p0, dq_acc.after(*dones), tix.after(*dones), masked=masked, after=tuple(dones),
                         variant=2 + 2 * len(dones)).barrier())
  dq_acc = dq_acc.after(*dones)
  dq_acc = dq_acc.after((dq_rows:=rows_view(blk, dq_acc)).store(dq_rows * sc))
  store = store_acc(blk, dq_acc, q_s.after(*dones), rows0, flat(dq), rows_at(q_base, D), Nq - m0, cols0=d0, cols=D)   # through Q's LDS tile (see dK/dV)
  flops = 3 * 2 * B * H * Nq * Nk * D // (2 if causal else 1)
  info = _info(mods.name("fa_bwd_dq", D), flops, (3 * B * H * Nq + 2 * B * Hkv * Nk) * D * q.dtype.itemsize, cfg, blk.threads if ring else 0)
  return store.end(blk.warp, blk.lane).end(*grid).sink(arg=info).rtag(1)
