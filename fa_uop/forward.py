"""The forward kernel: FlashAttention-2 with an online softmax over KV tiles. `attend` is the loop one block runs over its query
rows, `store_rows` its epilogue; flash_fwd lays them over (batch, head, query block), the decoding kernel (fa_uop.decode) over
the query heads of a GQA group packed into one tile and the splits of a KV cache."""
from __future__ import annotations
import functools, math
from dataclasses import dataclass
from typing import Callable
from tinygrad import UOp, dtypes
from tinygrad.renderer import Estimates
from tinygrad.uop.ops import AxisType, Ops
from fa_uop.config import FwdConfig
from fa_uop.mods import Mods, TilePlan
from fa_uop.blockmap import kernel_plan, launch, persistent_launch
from fa_uop.target import Target, BoundedKernel
from fa_uop.tiles import (Block, Smem, flat, smem, store_acc, store_tile, copy_tile, wait_tile, mbarriers, bulk_copy_tile, wait_bulk, release, leave,
                          registers, turn, frag_a, frags_b, acc_tile, rows_view, tile_coords, row_coords, mma, wgmma_tile, wgmma_issue, wgmma_wait,
                          InFlight, a_operand, a_via, a_from_acc, lane_reduce, row_reduce, rows_at, scale_rows, split_warp)

LOG2E, LN2 = math.log2(math.e), math.log(2)
LAZY = 8.0   # a ping-pong's lazy rescale, in log2 units (see kv_step)

@dataclass(frozen=True)
class Persist:
  """a persistent block's state across its tiles (FwdConfig.persistent): the LDS tiles and the ring's mbarriers, made once; start,
  the consumers' (the producer gone, its registers handed over); base, where this tile's positions start in the ring's sequence; q_s,
  this tile's Q, landed (the producer's bulk copy)"""
  q_s: Smem
  k_s: Smem
  v_s: Smem
  bars: UOp
  start: UOp
  base: UOp

def fwd_tiles(blk:Block, cfg:FwdConfig, qdt, vdt, D:int, ring:int) -> tuple[Smem, Smem, Smem]:
  """the forward's LDS tiles: Q's (two slots in a persistent block: a ring's, not a persistent config's on several devices, whose
  bulk copies and so ring it lacks), then K's and V's (a slot each of a ring); by wgmma in its swizzle atoms, Vᵀ (a row of keys per
  head-dim column) in the widest its keys fill (at 8 bits 224 keys: 32 bytes)"""
  target, S, DC = blk.target, cfg.split, cfg.cols(D)
  wg, vt = cfg.by_wgmma(target, D), cfg.reads_vt(target, D)
  atom = target.atom if wg else 0
  q_s, k_s = (smem(blk, rows, S * DC, qdt, atom=atom, n=n) for rows, n in ((cfg.block_m, 1 + (cfg.persistent and ring > 0)), (cfg.block_n, max(ring, 1))))
  return q_s, k_s, smem(blk, *((D, cfg.block_n) if vt else (cfg.block_n, S * DC)), vdt, atom=target.atom_for(cfg.block_n) if vt and wg else atom,
                        n=max(ring, 1))

def positions(plan:TilePlan) -> tuple[bool, UOp|int, UOp|int]:
  """(phantom, trips of the masked stage, positions in all): where a block may have no tile at all its masked loop still runs once,
  on a phantom tile that copies nothing and masks every key (the emulator places values used both inside a loop and after it, a
  lane index of the row reductions, in the loop; tile_plan makes the masked stage the first whenever there is any tile)"""
  phantom = (plan.total if isinstance(plan.total, int) else plan.total.vmin) < 1
  n_run = (1 if isinstance(plan.n_masked, int) else plan.n_masked.maximum(1)) if phantom else plan.n_masked
  return phantom, n_run, n_run + plan.n_free

def bulk_kv_copy(blk:Block, bulk:tuple[UOp, UOp, UOp], bars:UOp, j:int, dst:Smem, n0:UOp|int, ok:UOp|None, i:UOp|int, nk:UOp|int, nkp:int,
                 when:UOp|None=None) -> UOp:
  """bulk copy of tile j (0: K, 1: V) from key n0 into dst, counted on barrier i of bars, where ok (None: always; else past the keys,
  where a box arrives as zeros: a tile waited for with no rows); issued only where `when`. Vᵀ's keys (nkp a row) are its columns"""
  n0 = n0 if ok is None else ok.where(n0, nkp if j and nkp else nk)
  if j and nkp: return bulk_copy_tile(blk, dst, bulk[j], 0, bulk[2], bars.index(i), when, x=n0)
  return bulk_copy_tile(blk, dst, bulk[j], n0, bulk[2], bars.index(i), when)

def ring_barriers(blk:Block, ring:int, bulk:tuple[UOp, ...], kg:UOp, vg:UOp) -> UOp:
  """a ring's mbarriers: K's and V's slots full (the producer's copies landed), then empty (every consumer thread done reading them):
  ring_full's and ring_empty's indices"""
  return mbarriers(blk, (1,) * 2 * ring + (blk.threads,) * 2 * ring, bulk[:2], (kg.index(0), vg.index(0)))
def ring_full(ring:int, j:int, slot:UOp|int) -> UOp|int: return j * ring + slot          # tile j's (0: K, 1: V) slot landed
def ring_empty(ring:int, j:int, slot:UOp|int) -> UOp|int: return (2 + j) * ring + slot   # its slot read by every consumer
def ring_wait(blk:Block, ring:int, bars:UOp, tiles:tuple[Smem, Smem], pos:UOp, it:UOp, start:UOp, *after:UOp) -> tuple[Smem, ...]:
  """the consumers' wait for both tiles of ring position pos (slot pos % ring, phase the parity of its use), behind the step it, the
  producer's exit (start) and after: a stage of one trip has no loop to hold its waits, and tinygrad hoisted them above the producer's
  loop, where the producer waited with the consumers for copies it had not issued (a hang: the backward's non-causal tails, one tile)"""
  slot, phase = pos % ring, pos // ring % 2
  return tuple(wait_bulk(blk, t.nth(slot), bars.index(ring_full(ring, j, slot)), phase, it, start, *after, sync=False) for j, t in enumerate(tiles))
def ring_release(blk:Block, ring:int, bars:UOp, pos:UOp, *done:UOp) -> list[UOp]:
  """both tiles' slots of ring position pos released, once the products reading them (done) are"""
  return [release(blk, bars, ring_empty(ring, j, pos % ring), *done) for j in range(2)]

def producer(blk:Block, cfg:FwdConfig, bars:UOp, fill:Callable[[UOp], UOp]) -> UOp:
  """a warp-specialised block's producer: it hands its registers to the consumers (where the launch leaves them fewer than they take),
  runs fill(after) (its loop's END, after the barriers and the hand-over) and leaves. Returns where the consumers start, their
  registers taken"""
  start = leave(blk, blk.producing, bars, fill(bars if (dec:=registers(blk, True, cfg.blocks, bars)) is None else bars.after(dec)))
  return start if (inc:=registers(blk, False, cfg.blocks, bars, start)) is None else inc

def fill_ring(blk:Block, ring:int, bars:UOp, k_s:Smem, v_s:Smem, kv_copy:Callable[..., UOp], pp:UOp, n0_of:Callable[[UOp], UOp],
              total:UOp|int|None, prev:UOp, base:UOp|int=0) -> UOp:
  """the producer's step pp over the positions the consumers will visit (where total is given, past it the phantom trip's tile: past
  the keys, zeros): K_pp and V_pp copied into slot (base + pp) % ring once the consumers have released the tiles there before (base:
  the positions of a persistent block's tiles before). Returns the V copy, to END the loop"""
  gp = base + pp
  slot = gp % ring
  for j, t in enumerate((k_s, v_s)):
    free = wait_bulk(blk, t.nth(slot).after(prev), bars.index(ring_empty(ring, j, slot)), (gp // ring + 1) % 2, sync=False, when=gp >= ring)
    prev = kv_copy(j, free, n0_of(pp), None if total is None else pp < total, ring_full(ring, j, slot))
  return prev

def attend(blk:Block, cfg:FwdConfig, q:UOp, k:UOp, v:UOp, q_rows:Callable[[UOp], UOp], nq:UOp|int, tile_rows:Callable[[UOp], Callable[[UOp], UOp]],
           run:int|None, nk:UOp|int, plan:TilePlan, scale:float|UOp, keep:Callable[[UOp, UOp], UOp],
           score:Callable[..., UOp]|None=None, bulk:tuple[UOp, UOp, UOp]|None=None, ring:int=0,
           vt_rows:Callable[[UOp], Callable[[UOp], UOp]]|None=None, nkp:int=0, persist:Persist|None=None) -> tuple[UOp, UOp, UOp]:
  """FlashAttention-2's loop for one block: its BLOCK_M query rows (row r at q_rows(r) of q, the first nq of them real) against
  the KV tiles of the plan, in its order (a stage of masked tiles, then one of unmasked ones). tile_rows(n0) gives where row r of
  the tile from key n0 lives in k and v, the keys stored densely in runs of `run` (None: all); nk keys are real. The scores
  are scaled by scale (> 0 where a UOp: fp8's descales read at run time); score(x, row, key, interior), where given, modifies a scaled score x of a block row and a key (natural
  log domain; interior: an unmasked tile, whose keys the plan guarantees real);
  in a masked tile a block row sees a key where keep(row, key). Returns the output accumulator, row max (log2 domain), the
  full row sums and Q's LDS tile, free once the loop is done (store_rows stages the output through it).
  With cfg.split the warps of a row group split S by key columns and the output by head-dim columns (FwdConfig.cols): each step's row
  maxima meet in LDS, P is shared through an LDS tile, and the groups' row sums are added at the end.
  bulk: (pointers to K's tensor map and V's, the plane): K and V come by the target's bulk tensor copies (Hopper's TMA; key n0 of the
  tile at row n0 of that plane, the keys dense in k and v), not by copy_tile. ring (with bulk, on a block with a producer): warp
  specialisation, the producer issuing every tile into a ring of that many K and V slots ahead of the consumers, who release each
  slot on an mbarrier once read; else the consumers issue K_{p+1} and V_p themselves.
  vt_rows (where cfg.reads_vt): v is Vᵀ, its keys in the target's v_keys order and padded with zeros to whole tiles; vt_rows(n0)(d)
  gives where row d of the tile from key n0 lives in it, nkp: Vᵀ's keys a row.
  persist (a persistent block's tile, FwdConfig.persistent): its LDS tiles and ring, made once, the producer running elsewhere
  (fill_ring), and where this tile's positions start in the ring's sequence."""
  target = blk.target
  D = q.shape[-1]
  BM, BN = cfg.block_m, cfg.block_n
  M, N, K = target.mma
  S = cfg.split
  WM, KC, DC = BM * S // blk.warps, BN // S, cfg.cols(D)   # a warp's query rows, keys of S and head-dim columns of the output
  cg, rows0, k0, d0 = split_warp(blk, S, WM, KC, DC)   # query rows from rows0, keys from k0 and output columns from d0
  cols = D if S > 1 else None   # the copies' columns, where the tiles take a split's phantom ones too
  qg, kg, vg = flat(q), flat(k), flat(v)
  total = plan.total
  n0_of = lambda p: plan.tile(p) * BN   # first key of the tile at position p
  tile = lambda p: tile_rows(n0_of(p))

  # Hopper: S = Q·Kᵀ and O += P·V by wgmma (P from registers), the LDS tiles stored in its swizzle atoms, each warpgroup (4 warps of
  # one m-tile) its 64 rows
  wg, vt = cfg.by_wgmma(target, D), cfg.reads_vt(target, D)
  assert vt == (vt_rows is not None), "Vᵀ where the target's 8-bit wgmma needs it"
  # prologue: Q and the first K tile in flight together
  q_s, k_s, v_s = fwd_tiles(blk, cfg, q.dtype, v.dtype, D, ring) if persist is None else (persist.q_s, persist.k_s, persist.v_s)
  # where there may be no tile at all (an empty split), the first one's copy reads nothing
  any_tile = None if isinstance(total, int) or total.vmin >= 1 else total > 0
  # The emulator places values used both inside a loop and after it (a lane index of the row reductions) in the loop, so the masked
  # loop always runs: where the block has no tile at all it runs once on a phantom tile that copies nothing and masks every key
  # (tile_plan makes it the first stage whenever there is any tile).
  phantom, n_run, n_pos = positions(plan)
  assert bulk is None or (wg and run is None), "bulk copies land in wgmma's swizzle atoms, from dense rows"
  assert not ring or (bulk is not None and blk.producer), "a ring is filled by a producer's bulk copies"
  kv_copy = lambda j, dst, n0, ok, i, when=None: bulk_kv_copy(blk, bulk, bars, j, dst, n0, ok, i, nk, nkp if vt else 0, when)
  base = 0 if persist is None else persist.base   # this tile's first position in the ring's sequence
  if ring and persist is None:
    bars = ring_barriers(blk, ring, bulk, kg, vg)
    # the producer fills the ring, then leaves; the consumers skip its loop
    pp = blk.range(blk.producing.where(n_pos, 0))
    first_k = producer(blk, cfg, bars, lambda prev: fill_ring(blk, ring, bars, k_s, v_s, kv_copy, pp, n0_of, total if phantom else None, prev).end(pp))
    q_s = q_s.after(first_k)   # Q's copy walks the consumers' threads only: the producer has left
  elif ring: bars, first_k = persist.bars, persist.start
  elif bulk is not None:   # barriers for K and V; a tile's phase is its position's parity (each barrier completes once a trip)
    bars = mbarriers(blk, (1, 1), bulk[:2], (kg.index(0), vg.index(0)))
    first_k = kv_copy(0, k_s.after(bars), n0_of(0), any_tile, 0)
  else: first_k = copy_tile(blk, k_s, kg, tile(0), nk - n0_of(0) if any_tile is None else any_tile.where(nk - n0_of(0), 0), variant=1, run=run,
                            cols=cols)
  if persist is None: q_s = wait_tile(blk, q_s, copy_tile(blk, q_s, qg, q_rows, nq, cols=cols), first_k)   # a persistent tile's has landed
  # a persistent tile's K and V waits after its Q: the first one's slot and phase may be the same every tile (n_pos a multiple of
  # 2 * ring), and anchored on nothing of the tile tinygrad hoisted it out of the tile loop (the tiles after the first read K unwaited)
  if persist is not None: first_k = q_s.buf
  # a ping-pong (FlashAttention-3's): warpgroup w's products come in turns [S_0], [P·V_{p-1}, S_p], .., [P·V_last], each begun by
  # waiting on its barrier and, once issued, handed to the other warpgroup, so its softmax runs under the other's turn. Warpgroup 1
  # hands warpgroup 0 the first, warpgroup 0 hands it the last after the loop: each then arrives as often as the other waits
  pong = bool(ring) and cfg.pingpong
  if ring: full, empty = functools.partial(ring_full, ring), functools.partial(ring_empty, ring)
  if pong: first_k = turn(blk, True, bars, turn(blk, False, bars, q_s.buf, when=blk.warp >= 4))
  q_in_regs = cfg.q_in_regs(target, D)   # Q's A fragments in registers for the whole loop (see FwdConfig.q_in_regs)
  if q_in_regs:
    q_frag = blk.reg((WM // M, D // K, target.a.nelems), q.dtype)
    qm, qk = blk.range(WM // M), blk.range(D // K)
    q_frag = q_frag.after(q_frag[qm, qk].store(frag_a(blk, q_s, rows0 + qm * M, qk * K)).end(qm, qk))
  q_a = (lambda m, kk: q_frag[m, kk]) if q_in_regs else (lambda m, kk: frag_a(blk, q_s, rows0 + m * M, kk * K))  # (unused by wgmma)

  # running state: output accumulator, row max (log2 domain, scaled) and this lane's part of the row sum (of its column group's keys)
  acc = acc_tile(blk, WM // M, DC // N)
  nrows = rows_view(blk, acc).shape[0]
  row_max, row_sum = blk.reg((nrows,)), blk.reg((nrows,))
  # and the tiles of this step and the next. Where a block map lists them, each index is loaded a step before a copy needs it
  # (behind P·V), not waited for at the top of every step. The arithmetic of other plans measured faster carried too with the
  # target's async copies, except beside a score modification (H100: causal -2%, ALiBi +2.5%, docs/journal.md); the twin's guarded
  # loads of a carried index make tinygrad's valid simplification three times slower (a 12 s build of the emulated forward: 35 s)
  carry = plan.listed or (score is None and target.copy16 is not None)
  tix = blk.reg((2,), dtypes.int32)
  # a scale read at run time (fp8's descales) times log2 e, held in a register: tinygrad reassociates S·(d·c) into (d·S)·c, two
  # multiplies an element where the exponent's FMA takes one
  c_reg = blk.reg((1,)) if isinstance(scale, UOp) and score is None else None
  # a persistent block's state starts anew each tile: its stores after the tile's Q, or tinygrad would hoist them out of its loop
  if persist is not None: acc, row_max, row_sum, tix = (x.after(q_s.buf) for x in (acc, row_max, row_sum, tix))
  init = UOp.group(acc.store(acc.const_like(0)), row_max.store(row_max.const_like(-math.inf)), row_sum.store(row_sum.const_like(0)),
                   *([tix[0].store(plan.index(0)), tix[1].store(plan.index(1))] if carry else []),
                   *([c_reg[0].store(scale * LOG2E)] if c_reg is not None else []))
  raw = (acc, row_max, row_sum, tix)
  # P's LDS tile where C and A layouts differ, one for both stages: over Q's, where Q is held in registers meanwhile. With split, shared
  # (every warp reads whole rows of P), and the column groups' row maxima a step meet in mx
  p_via = smem(blk, BM, BN, v.dtype) if S > 1 else None if vt or wg else a_via(blk, BM, BN, v.dtype, over=q_s if q_in_regs else None)
  mx = blk.lds((S, BM), dtypes.float) if S > 1 else None
  lane_rows_at = [rows0 + r for r in row_coords(blk, nrows)]
  def across(vals:UOp, op:Ops, *deps:UOp) -> UOp:
    """vals (a lane's row statistics of its column group) combined with the other groups' by op, through mx"""
    put = UOp.group(*[mx.after(*deps)[cg, r].store(vals[i]) for i, r in enumerate(lane_rows_at)]).barrier()
    out = blk.reg((nrows,))
    return out.after(UOp.group(*[out[i].store(functools.reduce(lambda a, b: a.alu(op, b), [mx.after(put)[g, r] for g in range(S)]))
                                 for i, r in enumerate(lane_rows_at)]))

  def kv_step(it:UOp, p0:UOp|int, acc:UOp, row_max:UOp, row_sum:UOp, tix:UOp, masked:bool, after:tuple[UOp, ...], variant:int) -> UOp:
    """one KV tile: K_p was copied by the step before (or the prologue); V_p is copied while S = Q·Kᵀ runs, and K_{p+1} while P·V
    runs. Returns the END of the loop."""
    acc, row_max, row_sum, tx = acc.after(it), row_max.after(it), row_sum.after(it), tix.after(it)  # the carried state, read anew each iteration
    p = p0 + it
    real = p < plan.n_masked if masked and phantom else None
    n0 = (plan.carried(tx[0]) if carry else plan.tile(p)) * BN
    if ring:   # the producer copies: K_p and V_p wait in slot p % ring, each slot's phase the parity of its use (p counted over a
      # persistent block's tiles)
      slot, phase = (base + p) % ring, (base + p) // ring % 2
      kt, vc = wait_bulk(blk, k_s.nth(slot), bars.index(full(0, slot)), phase, it, *after, sync=False), it
    elif bulk is not None:
      kt = wait_bulk(blk, k_s, bars.index(0), phase:=p % 2, it, *after)
      vc = kv_copy(1, v_s.after(kt.buf), n0, real, 1)
    else:
      kt = wait_tile(blk, k_s, it, *after)
      vc = copy_tile(blk, v_s.after(kt.buf), vg, vt_rows(n0), None if real is None else real.where(D, 0), variant=variant, stride=nkp) if vt else \
        copy_tile(blk, v_s.after(kt.buf), vg, tile_rows(n0), (nk - n0 if real is None else real.where(nk - n0, 0)) if masked else None,
                  variant=variant, run=run, cols=cols)
    # S = Q·Kᵀ, scaled into the log2 domain; V's copy is issued first so it overlaps this
    s = acc_tile(blk, WM // M, KC // N)
    freed = ()
    if pong:   # S_p issued behind this turn's P·V_{p-1} (in flight in acc), the turn handed over, then both waited for
      sf = wgmma_issue(blk, s, q_s, kt)
      s = s.after(qk:=wgmma_wait(blk, sf, 0, turn(blk, False, bars, sf.done)))
      acc = acc.after(wgmma_wait(blk, InFlight(acc, qk), 0))   # the same wait covers P·V_{p-1}: naming acc keeps its reads below it
      freed = (release(blk, bars, empty(1, (base + p + ring - 1) % ring), acc, when=p > 0),)   # V_{p-1}'s slot: its product is done
    elif wg: s = s.after(qk:=wgmma_tile(blk, s, q_s, kt.after(vc)))   # S = Q·Kᵀ (not +=): no zeroing
    else:
      s = s.after(s.after(vc).store(s.const_like(0)))
      s = s.after(mma(blk, s, q_a, lambda n0, kk: frags_b(blk, kt, n0 if S == 1 else k0 + n0, kk * K), D // K, a_reads=not q_in_regs))
    mi, ni, e = blk.range(WM // M), blk.range(KC // N), blk.range(target.c.nelems)
    r, col = tile_coords(blk, mi, ni, e)
    if S > 1: col = k0 + col
    # softmax in base 2: exp(x) = exp2(x·log2 e), with the modification (if any) on the natural-log score. Without one the scale c
    # (> 0) is applied by the exponent's FMA, exp2(S·c - max), the row max taken on S and scaled after: one instruction an element less
    c = c_reg.after(init)[0] if c_reg is not None else scale * LOG2E if score is None and scale > 0 else None
    val = s[mi, ni, e] if c is not None else s[mi, ni, e] * (scale * LOG2E) if score is None else \
      score(s[mi, ni, e] * scale, rows0 + r, n0 + col, not masked) * LOG2E
    if masked:  # only the tiles a mask's edge crosses pay for it
      # (a phantom trip's keys moved past nk instead, one select a step, kept 40 fewer registers live and measured 4% slower on the
      # H100's document mask: docs/journal.md 2026-11-25, third session)
      ok = keep(rows0 + r, n0 + col)
      val = (ok if real is None else ok & real).where(val, -math.inf)
    if masked or c is None: s = s.after(s[mi, ni, e].store(val).end(mi, ni, e))
    s_rows = rows_view(blk, s)
    # online softmax: new row max, rescale what was accumulated so far, P = exp2(S - max)
    # (in a ping-pong its row reductions as trees: there the softmax lies between turns, and its chains' latency cost the H100's fp8
    # 3-4%; beside another block (64x128x4x2tr2) trees measured 5% slower: docs/journal.md 2026-11-26, fifteenth session)
    tile_max = blk.reg((nrows,))
    tile_max = lane_reduce(blk, tile_max.after(tile_max.after(it).store(row_reduce(s_rows, Ops.MAX, pong))), Ops.MAX)
    if S > 1: tile_max = across(tile_max, Ops.MAX, it)
    new_max = row_max.maximum(tile_max if c is None else tile_max * c)
    # in a ping-pong, FlashAttention-4's lazy rescale: a row keeps its max until a new one exceeds it by more than LAZY (P ≤ 2^LAZY,
    # within fp8 e4m3's 448; O and the row sum carry the same max, so O / l is unchanged), and the output's rescale is skipped behind
    # a branch where no row of the lane moved: fp8 +1-2% at D=128, +6% at D=256, fp16 +1-2% / +8%; beside another block (64x128x4x2tr2,
    # 128x128x8tr1) the branch measured 2-4% slower (docs/journal.md 2026-11-26, sixteenth session)
    if pong: new_max = (new_max - row_max > LAZY).where(new_max, row_max)
    # a row that has seen only masked keys keeps max -inf; subtract 0 there so exp2 gives 0, not NaN
    safe_max = new_max.eq(-math.inf).where(0.0, new_max)
    alpha = (row_max - safe_max).exp2()
    s_done = s_rows.store(((s_rows if c is None else s_rows * c) - safe_max.reshape(nrows, 1).expand(s_rows.shape)).exp2())
    s = s.after(s_done)
    s_rows = rows_view(blk, s)
    moved = functools.reduce(lambda a, b: a | b, [new_max[i].ne(row_max[i]) for i in range(nrows)]) if pong else None
    upd = UOp.group(row_sum.store(row_sum * alpha + row_reduce(s_rows, Ops.ADD, pong)), row_max.store(new_max), scale_rows(blk, acc, alpha, moved))
    acc = acc.after(upd)
    if ring:   # V_p must have landed; K's slot is released once S is in every thread's registers
      vtile = wait_bulk(blk, v_s.nth(slot), bars.index(full(1, slot)), phase, s_done, sync=False)
      kc = UOp.group(release(blk, bars, empty(0, slot), qk), *freed)
    else:   # V_p must have landed, and every warp be done reading K_p before K_{p+1} overwrites it
      vtile = wait_tile(blk, v_s.after(vc), s_done) if bulk is None else wait_bulk(blk, v_s.after(vc), bars.index(1), phase, s_done)
      n1 = (plan.carried(tx[1]) if carry else plan.tile(p + 1)) * BN
      kc = copy_tile(blk, k_s.after(vtile.buf), kg, tile_rows(n1), (p + 1 < total).where(BN, 0), variant=variant + 1, run=run,
                     cols=cols) if bulk is None else \
        kv_copy(0, k_s.after(vtile.buf), n1, None, 0, when=p + 1 < total)   # past the last tile: none (nothing waits for it)
    if carry: acc = acc.after(kc, UOp.group((tu:=tix.after(vc, kc))[0].store(tx[1]), tu[1].store(plan.index(p + 2))))
    else: acc = acc.after(kc)
    # acc += P·V, P in v's dtype (through LDS where the C layout is not an A layout); read from S's registers where Vᵀ's key order
    # lines them up, rounded by wgmma_tile
    p_a = a_from_acc(blk, s, target.key_order()) if vt else a_operand(blk, s, rows0, v.dtype, via=p_via, shared=k0 if S > 1 else None)
    if pong:   # this softmax done, P·V_p waits for this warpgroup's turn, and is left in flight into it
      return wgmma_issue(blk, acc.after(turn(blk, True, bars, acc, vtile.buf)), lambda kk: p_a(0, kk), vtile, b_kn=not vt, add=True).done.end(it)
    if wg:
      pv = wgmma_tile(blk, acc, lambda kk: p_a(0, kk), vtile, b_kn=not vt, add=True)
      return (UOp.group(pv, release(blk, bars, empty(1, slot), pv)) if ring else pv).end(it)
    return mma(blk, acc, p_a, lambda n0, kk: frags_b(blk, vtile, n0 if S == 1 else d0 + n0, kk * K, trans=True), BN // K, a_reads=S > 1).end(it)

  # Each stage, and what follows them, reads the state from the buffers themselves, after the init and the stages before:
  # tinygrad places an AFTER where it is first used, and the emulator skips the body of a loop that runs no time, so an AFTER
  # placed in one would never be made for what follows. A stage that can never run is not built.
  # (the masked loop always runs: see phantom above)
  dones: list[UOp] = []
  for p0, count, masked in ((0, n_run, True), (plan.n_masked, plan.n_free, False)):
    if (count if isinstance(count, int) else count.vmax) <= 0: continue
    # the barrier keeps the next stage's copies behind this stage's last reads (tinygrad adds one only at a loop's back edge); a ring's
    # consumers copy nothing, and in a ping-pong it would fall within a turn, where the two warpgroups would wait for each other
    done = kv_step(blk.range(count, AxisType.REDUCE), p0, *[x.after(init, *dones) for x in raw], masked=masked, after=(first_k, *dones),
                   variant=2 + 2 * len(dones))
    dones.append(done if pong else done.barrier())
  if pong:   # warpgroup 1's last turn, then the last P·V
    dones.append(turn(blk, False, bars, *dones, when=blk.warp < 4))
    dones.append(wgmma_wait(blk, InFlight(raw[0].after(init, *dones), dones[-1]), 0))
    # a persistent block's last V slot of the tile, whose product is now done (the next tile's steps release only their own)
    if persist is not None: dones.append(release(blk, bars, empty(1, (base + n_pos - 1) % ring), dones[-1]))
  acc, row_max, row_sum = [x.after(init, *dones) for x in raw[:3]]
  row_sum = lane_reduce(blk, row_sum, Ops.ADD)
  return acc, row_max, row_sum if S == 1 else across(row_sum, Ops.ADD, *dones), q_s

def store_rows(blk:Block, cfg:FwdConfig, acc:UOp, row_max:UOp, row_sum:UOp, stage:Smem, o:UOp, o_row:Callable[[UOp], UOp], lse:UOp|None,
               lse_row:Callable[[UOp], UOp], nq:UOp|int, out_scale:UOp|None=None) -> list[UOp]:
  """attend's epilogue: normalise (and scale by out_scale, where given) and store block row r's output at o_row(r) (+ column) and its
  natural-log logsumexp at lse_row(r), for the first nq rows. A row that saw no key gets output 0 and logsumexp -inf. A 16-bit output
  goes through the LDS tile stage (BLOCK_M x D, where it holds 16-bit elements), to leave in whole 16-byte pieces of its rows."""
  M, N, _ = blk.target.mma
  WM, D = cfg.block_m * cfg.split // blk.warps, o.shape[-1]
  _, rows0, d0 = split_warp(blk, cfg.split, WM, cfg.cols(D))   # a warp's rows and output columns (see attend)
  a_rows = rows_view(blk, acc)
  nrows = a_rows.shape[0]
  inv = row_sum.eq(0).where(0.0, (1 if out_scale is None else out_scale) / row_sum)
  acc = acc.after(a_rows.store(a_rows * inv.reshape(nrows, 1).expand(a_rows.shape)))
  if o.dtype.itemsize == 2 == stage.buf.dtype.itemsize:
    stores = [store_acc(blk, acc, stage, rows0, flat(o), o_row, nq, cols0=d0, cols=D if cfg.split > 1 else None)]
  else:
    # fp8's 16-bit output unrolled in the graph: clang left the loop rolled past D=160, indexing the accumulators, which it then kept
    # in scratch (gfx1201: 368-528 bytes at 176-256 -> 0-52). Not decoding's float32 partials: ptxas spilled more at D=256 (sm_90a's
    # split decoding 100 -> 180 bytes of spill stores; docs/journal.md 2026-11-28)
    kind = AxisType.UPCAST if o.dtype.itemsize == 2 else AxisType.LOOP
    mi, di, e = blk.range(WM // M, kind), blk.range(acc.shape[1], kind), blk.range(blk.target.c.nelems, kind)
    r, col = tile_coords(blk, mi, di, e)
    row = rows0 + r
    ok = row < nq if cfg.split == 1 else (row < nq) & (d0 + col < D)   # a split's phantom columns are not stored
    stores = [flat(o).index((o_row(row) + (col if cfg.split == 1 else d0 + col)).valid(ok)).store(acc[mi, di, e].cast(o.dtype)).end(mi, di, e)]
  if lse is not None:  # the lanes that share a row write the same value to it
    stores += [flat(lse).index(lse_row(row).valid(row < nq)).store((row_max[i] + row_sum[i].log2()) * LN2)
               for i, row in enumerate(rows0 + r for r in row_coords(blk, nrows))]
  return stores

def flash_fwd(q:UOp, k:UOp, v:UOp, o:UOp, lse:UOp|None=None, *args:UOp, target:Target, cfg:FwdConfig, causal:bool=False,
              scale:float|None=None, mods:Mods|None=None, tma:bool=False, sms:int=0) -> UOp:
  """Build the forward kernel's sink for Tensor.custom_kernel(q, k, v, o, lse, *mod_args, fxn=...).
  q: (B, H, Nq, D); k, v: (B, Hkv, Nk, D), H a multiple of Hkv; fp16 or bf16, or an 8-bit float the target's fp8 MMA takes
  (Target.for_dtype): then the first three args are q's, k's and v's descale factors, float32 (B, Hkv) each — the scores are
  q·kᵀ·scale·q_descale·k_descale, the output P·v·v_descale with P rounded to v's format, o 16-bit; and where cfg.reads_vt, v is
  Vᵀ, (B, Hkv, D, Nk rounded up to whole BLOCK_N, then 128), its keys in the target's v_keys order (fa_uop.api.vt_layout). o: (B, H, Nq, D) out in q's dtype.
  lse: (B, H, Nq) float32 out, the natural-log row logsumexp, or None. causal masks key j > query i (top-left aligned); mods
  (fa_uop.mods.Mods, its causal in place of causal) adds windows, softcap and score and mask mods reading the buffers args;
  with a mask_mod the last args are its block map for BLOCK_M x BLOCK_N tiles (fa_uop.blockmap.block_map). tma: K and V come
  by Hopper's bulk tensor copies, from the tensor maps then in the last arg (32 uint64: K's, V's; flash_tma_maps), and with cfg.ring a
  producer warpgroup issues them (warp specialisation). One block per BLOCK_M query rows of one head; with cfg.persistent (and a
  ring) at most sms blocks, one an SM, each looping over its tiles."""
  mods = mods or Mods(causal=causal)
  B, H, Nq, D = q.shape
  Hkv, Nk = k.shape[1], k.shape[2]
  assert q.dtype == k.dtype == v.dtype, "q, k and v of one dtype"
  target = cfg.check(target.for_dtype(q.dtype), D)   # its fp8 MMA for 8-bit inputs; narrowed where the head dim or the tile's columns need it
  BM, BN = cfg.block_m, cfg.block_n
  # a persistent forward's last arg: Q's tensor map (flash_tma_maps of q and q, boxes of BLOCK_M rows), before it K's and V's
  if tma and cfg.persistent: args, qmaps = args[:-1], flat(args[-1])
  if tma: args, maps = args[:-1], flat(args[-1])
  descales, args = (args[:3], args[3:]) if (fp8:=q.dtype.itemsize == 1) else ((), args)

  ring = cfg.ring if tma else 0
  blk = Block(target, cfg.warps, producer=ring > 0, rebuilt=cfg.rebuilt)
  lim, sc, nR = (H - 1, Nq - 1, Nk - 1), 1 / math.sqrt(D) if scale is None else scale, math.ceil(Nq / BM)
  nkp = v.shape[3] if cfg.reads_vt(target, D) else 0   # Vᵀ's keys a row
  def block_tile(b:UOp, h:UOp, mb:UOp) -> tuple:
    """what the tile of query block mb of (batch entry b, head h) reads: its first row, mod args and plan, bulk copies' plane"""
    m0 = mb * BM
    a, plan = kernel_plan(mods, args, b, h, mb, m0, m0 + BM - 1, Nk, BN, target.stages(D, "fwd", mods.causal, mods.masks_more))
    return m0, a, plan, (maps.index(0), maps.index(16), b * Hkv + h // (H // Hkv)) if tma else None
  def tile(b:UOp, h:UOp, mb:UOp, persist:Persist|None=None) -> list[UOp]:
    """the tile's attention and epilogue: its output and logsumexp stores"""
    m0, a, plan, bulk = block_tile(b, h, mb)
    q_base, kv_base = ((b * H + h) * Nq + m0) * D, (b * Hkv + h // (H // Hkv)) * Nk * D
    # fp8: the descales of this block's (batch, KV head)
    qd, kd, vd = (flat(t).index(b * Hkv + h // (H // Hkv)) for t in descales) if fp8 else (None, None, None)
    vt_rows = (lambda n0: rows_at((b * Hkv + h // (H // Hkv)) * D * nkp + n0, nkp)) if nkp else None
    acc, row_max, row_sum, q_s = attend(blk, cfg, q, k, v, rows_at(q_base, D), Nq - m0, lambda n0: rows_at(kv_base + n0 * D, D), None, Nk,
                                        plan, qd * kd * sc if fp8 else sc,
                                        lambda row, key: mods.keep(b, h, m0 + row, key, Nk, a, lim), mods.score_fn(b, h, lambda row: m0 + row, a, lim),
                                        bulk, ring, vt_rows, nkp, persist)
    return store_rows(blk, cfg, acc, row_max, row_sum, q_s, o, lambda r: q_base + r * D, lse, lambda r: (b * H + h) * Nq + m0 + r, Nq - m0, vd)
  if not (cfg.persistent and ring):
    args, grid, b, h, mb = launch(mods, args, B, H, nR, last_first=True)
    out = UOp.group(*tile(b, h, mb))
  else:
    # persistent: a block an SM (sms) loops over its tiles, its producer over theirs first, filling the ring ahead of the consumers;
    # then it leaves. Tiles alike: each takes the same positions of the ring (a loop whose trips are made of the tile loop's index is
    # ended twice by tinygrad 0.14's linearizer, which then cannot order it)
    assert sms > 0 and mods.tiles_alike, "a persistent forward's grid is the device's SMs, its tiles alike"
    grid, trips, at = persistent_launch(B, H, nR, True, sms)
    # Q in two slots, each tile's copied by the producer (Q's tensor map, the last arg) ahead of the consumers, who stage the tile's
    # output through its slot and then release it: the next tile's Q lands in the other while they work, not after their epilogue
    q_s, k_s, v_s = fwd_tiles(blk, cfg, q.dtype, v.dtype, D, ring)
    # the ring's barriers, then Q's slots' (full: landed, empty: read by every consumer thread); q named, read through its map only
    q_full, q_empty = 4 * ring, 4 * ring + 2
    bars = mbarriers(blk, (1,) * 2 * ring + (blk.threads,) * 2 * ring + (1, 1) + (blk.threads,) * 2, (maps.index(0), maps.index(16), qmaps.index(0)),
                     (flat(k).index(0), flat(v).index(0), flat(q).index(0)))
    tp = blk.range(blk.producing.where(trips, 0))
    _, _, plan, bulk = block_tile(*at(tp))
    phantom, _, n_pos = positions(plan)
    assert isinstance(n_pos, int)
    pp = blk.range(n_pos)
    kv_copy = lambda j, dst, n0, ok, i, when=None: bulk_kv_copy(blk, bulk, bars, j, dst, n0, ok, i, Nk, nkp, when)
    def fill(prev:UOp) -> UOp:
      """the producer's tile tp: its Q into slot tp % 2 once the consumers have released the tile there before, then its K and V"""
      b, h, mb = at(tp)
      free = wait_bulk(blk, q_s.nth(tp % 2).after(prev), bars.index(q_empty + tp % 2), (tp // 2 + 1) % 2, sync=False, when=tp >= 2)
      qc = bulk_copy_tile(blk, free, qmaps.index(0), mb * BM, b * H + h, bars.index(q_full + tp % 2))
      return fill_ring(blk, ring, bars, k_s, v_s, kv_copy, pp, lambda p: plan.tile(p) * BN, plan.total if phantom else None, qc, tp * n_pos).end(pp).end(tp)
    start = producer(blk, cfg, bars, fill)
    # the consumers: each tile's Q waited for, its KV loop and epilogue (staged through Q's slot, then released)
    tc = blk.range(trips)
    q_tile = wait_bulk(blk, q_s.nth(tc % 2), bars.index(q_full + tc % 2), tc // 2 % 2, start, sync=False)
    # their tiles' coordinates from the block's index as a register reads it after the producer's exit: with one tile a block (the
    # consumers' loop removed) tinygrad shared the arithmetic with the producer's Q copy and declared it in the producer's loop
    gr = blk.reg((1,), dtypes.int32)
    gi = gr.after(gr[0].store(grid[0].cast(dtypes.int32)), start)[0].cast(grid[0].dtype)
    stores = tile(*at(tc, gi), Persist(q_tile, k_s, v_s, bars, start, tc * n_pos))
    out = UOp.group(*stores, release(blk, bars, q_empty + tc % 2, *stores)).barrier().end(tc)
  # The cost is stated, and the sink tagged as already optimized so tinygrad keeps it: derived symbolically over the
  # data-dependent loop bounds it is a graph deep enough to overflow Python's recursion when printed into the program's key.
  cost = Estimates(ops=4 * B * H * Nq * Nk * D // (2 if mods.causal else 1), mem=(2 * B * H * Nq + 2 * B * Hkv * Nk) * D * q.dtype.itemsize)
  info = BoundedKernel(name=mods.name("fa_fwd", D), opts_to_apply=(), estimates=cost, min_blocks=cfg.blocks, consumers=blk.threads if ring else 0)
  return out.end(blk.warp, blk.lane).end(*grid).sink(arg=info).rtag(1)

def flash_tma_maps(tmpl:UOp, k:UOp, v:UOp, out:UOp, *, target:Target) -> UOp:
  """The forward's tensor maps (its last arg with tma): the templates tmpl (32 uint64: fa_uop.target.tensor_map_template of k's shape,
  then of v's) copied into out (32 uint64), K's pointed at k and V's at v. One thread; run before each forward, so a jitted replay on
  other buffers points them anew."""
  i = UOp.range(32, 0, AxisType.LOOP)
  maps = flat(out).after(flat(out).index(i).store(flat(tmpl).index(i)).end(i))
  point = lambda j, src: target.tma.point(maps.index(16 * j), flat(src).index(0))
  return UOp.sink(point(0, k), point(1, v), arg=BoundedKernel(name="fa_tma_maps", opts_to_apply=(), estimates=Estimates(ops=0, mem=512))).rtag(1)

def flash_vt(v:UOp, vt:UOp, *, target:Target) -> UOp:
  """V as the forward reads it where FwdConfig.reads_vt (8-bit wgmma takes B K-major only): vt (B, Hkv, D, Nkp) = Vᵀ of v (B, Hkv,
  Nk, D), zeros past Nk, each group of keys in the target's v_keys order. A block of 4 warps per 128 keys of a (batch, KV head): their
  rows copied to LDS, each thread gathering a group of keys of one head-dim row into a second tile, which leaves in 16-byte pieces
  (tinygrad's own permute of 8-bit elements moved 51 GB/s on the H100: 1.3 ms beside the forward's 3.1 at N=16384)."""
  B, Hkv, Nk, D = v.shape
  T, nkp, order = 128, vt.shape[3], target.key_order()
  assert order is not None and nkp % T == 0 and T % len(order) == 0 and D * T // len(order) % (4 * target.warp) == 0
  bh, t = UOp.range(B * Hkv, 0, AxisType.GLOBAL), UOp.range(nkp // T, 1, AxisType.GLOBAL)
  blk = Block(target, 4)
  rows, cols = smem(blk, T, D, v.dtype), smem(blk, D, T, v.dtype)
  rows = wait_tile(blk, rows, copy_tile(blk, rows, flat(v), rows_at((bh * Nk + t * T) * D, D), Nk - t * T))
  g = len(order)
  i = blk.range(D * T // g // blk.threads)
  piece = i * blk.threads + blk.tid
  d, k0 = piece // (T // g), piece % (T // g) * g
  moved = UOp.group(*[cols.at(d, k0 + a).store(rows.at(k0 + order[a], d)) for a in range(g)]).end(i)
  store = store_tile(blk, wait_tile(blk, cols.after(moved)), flat(vt), rows_at(bh * D * nkp + t * T, nkp), D)
  info = BoundedKernel(name=f"fa_vt_d{D}", opts_to_apply=(), estimates=Estimates(ops=0, mem=B * Hkv * (Nk + nkp) * D * v.dtype.itemsize))
  return store.end(blk.warp, blk.lane).end(bh, t).sink(arg=info).rtag(1)
