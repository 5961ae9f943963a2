"""The forward kernel: FlashAttention-2 with an online softmax over KV tiles, one block per BLOCK_M query rows of one head."""
from __future__ import annotations
import math
from tinygrad import UOp, dtypes
from tinygrad.uop.ops import AxisType, KernelInfo, Ops
from fa_uop.config import FwdConfig
from fa_uop.target import Target
from fa_uop.tiles import flat, Block, load_tile, acc_tile, rows_view, tile_coords, row_coords, mma, a_from_acc, lane_reduce

LOG2E, LN2 = math.log2(math.e), math.log(2)

def flash_fwd(q:UOp, k:UOp, v:UOp, o:UOp, lse:UOp|None=None, *, target:Target, cfg:FwdConfig, causal:bool=False, scale:float|None=None) -> UOp:
  """Build the forward kernel's sink for Tensor.custom_kernel.
  o: (B, H, Nq, D) out in q's dtype. lse: (B, H, Nq) float32 out, natural-log row logsumexp, or None. q: (B, H, Nq, D);
  k, v: (B, Hkv, Nk, D), H a multiple of Hkv; fp16 or bf16. causal masks key j > query i (top-left aligned)."""
  B, H, Nq, D = q.shape
  Hkv, Nk = k.shape[1], k.shape[2]
  cfg.check(target, D)
  BM, BN, W = cfg.block_m, cfg.block_n, cfg.warps
  M, N, K = target.mma
  WM = BM // W                          # query rows per warp
  c = (1 / math.sqrt(D) if scale is None else scale) * LOG2E  # softmax in base 2: exp(s·scale) = exp2(s·c)

  b, h = UOp.range(B, 0, AxisType.GLOBAL), UOp.range(H, 1, AxisType.GLOBAL)
  mb = UOp.range(math.ceil(Nq / BM), 2, AxisType.GLOBAL)
  blk = Block(target, W)
  m0 = mb * BM
  q_base, kv_base = ((b * H + h) * Nq + m0) * D, (b * Hkv + h // (H // Hkv)) * Nk * D

  # Q tile in LDS for the whole KV loop; rows past Nq are zeros and never stored
  q_lds, k_lds, v_lds = [blk.lds((n, D + cfg.pad), q.dtype)[:, :D] for n in (BM, BN, BN)]
  q_lds = q_lds.after(load_tile(blk, q_lds, flat(q), q_base, D, Nq - m0))
  q_warp = q_lds.reshape(W, WM, D)[blk.warp]

  # running state: output accumulator, row max (log2 domain, scaled) and this lane's part of the row sum
  acc = acc_tile(blk, WM // M, D // N)
  nrows = rows_view(blk, acc).shape[0]
  row_max, row_sum = blk.reg((nrows,)), blk.reg((nrows,))
  init = UOp.group(acc.store(acc.const_like(0)), row_max.store(row_max.const_like(-math.inf)), row_sum.store(row_sum.const_like(0)))
  acc, row_max, row_sum = acc.after(init), row_max.after(init), row_sum.after(init)
  rows = [m0 + blk.warp * WM + r for r in row_coords(blk, nrows)]

  def kv_tile(it:UOp, first:UOp|int, acc:UOp, row_max:UOp, row_sum:UOp, masked:bool, after:tuple[UOp, ...]) -> UOp:
    """one step of the KV loop; returns the END of the loop"""
    acc, row_max, row_sum = acc.after(it), row_max.after(it), row_sum.after(it)  # read the carried state anew each iteration
    n_tile = first + it
    n0 = n_tile * BN
    # the K and V tiles are rewritten each iteration, and only once the previous stage is done with them
    ld = UOp.group(*[load_tile(blk, t.after(it, *after), flat(g), kv_base + n0 * D, D, Nk - n0 if masked else None) for t, g in ((k_lds, k), (v_lds, v))])
    kt, vt = k_lds.after(ld), v_lds.after(ld)
    # S = Q·Kᵀ, scaled into the log2 domain
    s = acc_tile(blk, WM // M, BN // N)
    s = s.after(s.after(it).store(s.const_like(0)))
    s = s.after(mma(blk, s, q_warp, kt))
    mi, ni, e = blk.range(WM // M, AxisType.LOOP), blk.range(BN // N, AxisType.LOOP), blk.range(target.c.nelems, AxisType.LOOP)
    val = s[mi, ni, e] * c
    if masked:  # only the diagonal and the tail tiles pay for the mask
      r, col = tile_coords(blk, mi, ni, e)
      keep = (n0 + col) < Nk
      if causal: keep = keep & ((n0 + col) <= (m0 + blk.warp * WM + r))
      val = keep.where(val, -math.inf)
    s = s.after(s[mi, ni, e].store(val).end(mi, ni, e))
    s_rows = rows_view(blk, s)
    # online softmax: new row max, rescale what was accumulated so far, P = exp2(S - max)
    tile_max = blk.reg((nrows,))
    tile_max = lane_reduce(blk, tile_max.after(tile_max.after(it).store(s_rows.max(axis=1))), Ops.MAX)
    new_max = row_max.maximum(tile_max)
    # a row that has seen only masked keys keeps max -inf; subtract 0 there so exp2 gives 0, not NaN
    safe_max = new_max.eq(-math.inf).where(0.0, new_max)
    alpha = (row_max - safe_max).exp2()
    p_rows = (s_rows - safe_max.reshape(nrows, 1).expand(s_rows.shape)).exp2()
    s = s.after(s_rows.store(p_rows))
    s_rows = rows_view(blk, s)
    upd = UOp.group(row_sum.store(row_sum * alpha + s_rows.sum(axis=1)), row_max.store(new_max),
                    (a_rows:=rows_view(blk, acc)).store(a_rows * alpha.reshape(nrows, 1).expand(a_rows.shape)))
    acc, row_max, row_sum = acc.after(upd), row_max.after(upd), row_sum.after(upd)
    # acc += P·V
    p = acc_tile(blk, WM // M, BN // N, v.dtype)
    p = p.after(p.store(s.cast(v.dtype)))
    pa = a_from_acc(blk, p)
    if pa is not None: pv = mma(blk, acc, None, vt.permute(1, 0), a_frag=lambda m, kk: pa[m, kk])
    else:  # the C layout is not an A layout here: P takes a trip through LDS
      p_lds = blk.lds((BM, BN + cfg.pad), v.dtype)[:, :BN]
      pi, pj, pe = blk.range(WM // M, AxisType.LOOP), blk.range(BN // N, AxisType.LOOP), blk.range(target.c.nelems, AxisType.LOOP)
      pr, pc = tile_coords(blk, pi, pj, pe)
      p_st = p_lds[blk.warp * WM + pr, pc].store(p[pi, pj, pe]).end(pi, pj, pe)
      pv = mma(blk, acc, p_lds.after(p_st).reshape(W, WM, BN)[blk.warp], vt.permute(1, 0))
    return pv.end(it)

  # Two stages over KV tiles, as FlashAttention-2 orders them: first the tiles that need a mask (the tail tile and, for causal, the
  # ones the diagonal crosses; a causal block masks at least its last tile), then the rest with no mask at all.
  # The emulator skips a zero-trip loop's body, so values used later must not be first computed inside a loop that may not run:
  # the masked stage always runs once or more, state after a stage hangs off the state before both, a stage that can never run is
  # not built, and a causal unmasked stage of at most one trip (which the linearizer would interleave) is folded into the masked one.
  n_tiles = math.ceil(Nk / BN)
  if not causal: n_full, n_end = Nk // BN, n_tiles
  else:
    n_end = ((m0 + BM - 1) // BN + 1).minimum(n_tiles)
    n_full = ((m0 + 1) // BN).minimum(Nk // BN).minimum(n_end - 1)
    if n_full.vmax <= 1: n_full = 0
  state, dones = (acc, row_max, row_sum), []
  for first, count, masked in ((n_full, n_end - n_full, True), (0, n_full, False)):
    if (count if isinstance(count, int) else count.vmax) <= 0: continue
    # the barrier keeps the next stage's K/V stores behind this stage's last reads (tinygrad only adds one at a loop's back edge)
    dones.append(kv_tile(blk.range(count, AxisType.REDUCE), first, *[x.after(*dones) for x in state], masked=masked, after=tuple(dones)).barrier())
  acc, row_max, row_sum = [x.after(*dones) for x in state]

  # epilogue: the full row sum, normalise, store O (and the logsumexp) for rows inside Nq
  row_sum = lane_reduce(blk, row_sum, Ops.ADD)
  a_rows = rows_view(blk, acc)
  acc = acc.after(a_rows.store(a_rows * (1 / row_sum).reshape(nrows, 1).expand(a_rows.shape)))
  mi, di, e = blk.range(WM // M, AxisType.LOOP), blk.range(D // N, AxisType.LOOP), blk.range(target.c.nelems, AxisType.LOOP)
  r, col = tile_coords(blk, mi, di, e)
  out = flat(o).index((q_base + (blk.warp * WM + r) * D + col).valid(m0 + blk.warp * WM + r < Nq))
  stores = [out.store(acc[mi, di, e].cast(o.dtype)).end(mi, di, e)]
  if lse is not None:  # one lane of each row group writes the row's logsumexp
    first = target.c.coords(blk.lane, 0)[1].eq(0)
    stores += [flat(lse).index(((b * H + h) * Nq + row).valid(row < Nq)).store((row_max[i] + row_sum[i].log2()) * LN2)
               for i, row in enumerate(rows)]
  return UOp.group(*stores).end(blk.warp, blk.lane).end(mb, h, b).sink(arg=KernelInfo(name=f"fa_fwd_{'causal_' if causal else ''}d{D}", opts_to_apply=()))
