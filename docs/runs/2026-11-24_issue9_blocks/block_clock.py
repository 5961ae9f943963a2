"""Where a kernel block's time goes on a GPU, block by block: a copy of the kernels built with each block's SM and its start and end
(clock64, before its first copy and after its output's stores) written into its outputs. KERNEL=fwd (default): the forward, into its
first logsumexp rows in place of the logsumexp; KERNEL=bwd: dK/dV and dQ, into the first row of the block's dV and dQ tile (after its
stores and a barrier; 16-bit pieces). Per kernel (causal, the document mask and, forward, full attention over 2048 keys; fp16, B=1
H=16 N=16384 D=128, CONFIG (forward, default 128x128x8) or BWD_CONFIG (default 64x32x4)): a least-squares fit of a block's cycles to
its full and partial tiles, the gaps between the blocks an SM runs and the SMs' idle tails. Run from the repository root on a CUDA
GPU: python3 scripts/block_clock.py"""
import sys, os
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, UOp, dtypes
from tinygrad.uop.ops import Ops
import fa_uop.forward as fwd, fa_uop.backward as bwd
from fa_uop import flash_attention, flash_attention_backward, FwdConfig, BwdConfig
from fa_uop.tiles import flat
from fa_uop.timing import gpu_time
import bench

T0: dict[int, UOp] = {}   # each kernel build's start clock, by its Block

def timed_copy(copy_tile):
  """copy_tile, the first call of each kernel build reading the clock first (its rows depend on it, so it is placed before)"""
  def f(blk, dst, src, row, rows_valid=None, variant=0, run=None):
    if id(blk) not in T0:
      T0[id(blk)] = t0 = UOp(Ops.CUSTOM, dtypes.int64, (blk.lane,), arg="clock64()")
      rows_valid = (dst.rows if rows_valid is None else rows_valid) - (t0 < 0).cast(dtypes.int32)
    return copy_tile(blk, dst, src, row, rows_valid, variant, run)
  return f

def stamps(blk, after:UOp) -> list[UOp]:
  """[start, end, SM] of the block, the end read behind `after` (a value loaded after the block's stores)"""
  t1 = UOp(Ops.CUSTOM, dtypes.int64, (after,), arg="(clock64() + 0*(long long)(float)({0}))")
  # (nvrtc takes no statement expressions: the SM id is read into a variable by a statement of its own, as tiles' ldmatrix does)
  rd = UOp(Ops.CUSTOM, dtypes.void, (T0[id(blk)],), arg='unsigned fa_smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(fa_smid));')
  return [T0[id(blk)], t1, UOp(Ops.CUSTOMI, dtypes.int64, (rd, UOp.const(0, dtypes.int)), arg="(long long)fa_smid")]

def pieces(x:UOp, bits:int) -> list[UOp]:
  """the 64-bit x as 64/bits values of a float type of that width holding its bits, low first"""
  ty, conv = {32: (dtypes.float, "__int_as_float((int)"), 16: (dtypes.half, "__ushort_as_half((unsigned short)")}[bits]
  return [UOp(Ops.CUSTOM, ty, (x,), arg=f"{conv}(({{0}}) >> {bits * i}))") for i in range(64 // bits)]

def timed_fwd_store(blk, cfg, acc, row_max, row_sum, stage, o, o_row, lse, lse_row, nq):
  stores = STORE_ROWS(blk, cfg, acc, row_max, row_sum, stage, o, o_row, None, lse_row, nq)
  vals = [p for x in stamps(blk, flat(o).after(*stores).index(o_row(0)).load()) for p in pieces(x, 32)]
  first = blk.warp.eq(0) & blk.lane.eq(0)
  return stores + [flat(lse).index(lse_row(j).valid(first)).store(x) for j, x in enumerate(vals)]

def timed_bwd_store(blk, t, s, rows0, dst, row, rows_valid):
  """the staged store, then (each kernel's last store: dV's, dQ's) the stamps in 16-bit pieces over the first row, after a barrier"""
  store = STORE_ACC(blk, t, s, rows0, dst, row, rows_valid)
  bar = store.barrier()
  vals = [p for x in stamps(blk, dst.after(bar).index(row(0)).load()) for p in pieces(x, 16)]
  first = blk.warp.eq(0) & blk.lane.eq(0)
  return UOp.group(*[dst.after(bar).index((row(0) + j).valid(first)).store(x) for j, x in enumerate(vals)])

def unstamp(rows:np.ndarray, bits:int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """(start, end, SM) per block from its first row's values (..., ≥ 3·64/bits) as stamps() and pieces() wrote them"""
  u = rows.copy().view(np.uint32 if bits == 32 else np.uint16).astype(np.int64)
  n = 64 // bits
  vals = [sum(u[..., i * n + j] << (bits * j) for j in range(n)) for i in range(3)]
  return vals[0], vals[1], vals[2]

def tiles(doc:np.ndarray, R:int, C:int, keys:int|None, rows_keys:bool=False) -> np.ndarray:
  """(row blocks, 2): full and partial tiles of each block of R rows (queries, or keys with rows_keys) against tiles of C columns,
  under causal and the documents doc; keys: full attention over that many keys"""
  out = []
  for rb in range(len(doc) // R):
    r = np.arange(rb * R, (rb + 1) * R)
    def kept(c0):
      if keys is not None: return R * C
      c = np.arange(c0, c0 + C)
      qi, kj = (c[None], r[:, None]) if rows_keys else (r[:, None], c[None])
      return ((doc[qi] == doc[kj]) & (kj <= qi)).sum()
    k = np.array([kept(c0) for c0 in range(0, keys or len(doc), C)])
    out.append(((k == R * C).sum(), ((k > 0) & (k < R * C)).sum()))
  return np.array(out)

def report(name:str, ms:float, t0:np.ndarray, t1:np.ndarray, sm:np.ndarray, nt:np.ndarray) -> None:
  dur = (t1 - t0).ravel()
  full, part = np.broadcast_to(nt[None, :, 0], t0.shape).ravel(), np.broadcast_to(nt[None, :, 1], t0.shape).ravel()
  X = np.stack([np.ones_like(dur), full, part], 1).astype(float)
  (a, b, c), *_ = np.linalg.lstsq(X, dur.astype(float), rcond=None)
  gaps, busy, spans = [], [], []
  for s in np.unique(sm):
    i = np.argsort(t0[sm == s])
    s0, s1 = t0[sm == s][i], t1[sm == s][i]
    gaps += list(s0[1:] - s1[:-1]); busy.append((s1 - s0).sum()); spans.append(s1[-1] - s0[0])
  span = max(spans)
  print(f"{name}: {ms:.3f} ms, {len(np.unique(sm))} SMs, span {span} cycles ({span / ms / 1e6:.2f} GHz if the span is the kernel)")
  print(f"  block cycles = {a:.0f} + {b:.0f}·full + {c:.0f}·partial tiles (residual rms {np.sqrt(np.mean((X @ [a, b, c] - dur) ** 2)):.0f}); "
        f"tiles {full.sum()} full, {part.sum()} partial; a block's fixed part {a / b:.2f} full tiles")
  print(f"  gaps between an SM's blocks: median {np.median(gaps):.0f}, mean {np.mean(gaps):.0f} cycles; SMs busy {sum(busy) / (span * len(busy)):.3f} of the span;"
        f" per SM busy min {min(busy) / span:.3f} max {max(busy) / span:.3f}")
  print(f"  overlap: blocks at once on an SM, mean {sum(dur) / sum(spans):.2f}")

STORE_ROWS, STORE_ACC = fwd.store_rows, bwd.store_acc
if __name__ == "__main__":
  N, H, D = 16384, 16, 128
  q, k, v, do = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(4)]
  docs = bench.Case(True, mask="document").data(1, H, N, N)["doc"]
  doc_kw = dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(Tensor(docs).realize(),))
  causal = np.zeros(N, int)
  if os.environ.get("KERNEL", "fwd") == "fwd":
    fwd.copy_tile, fwd.store_rows = timed_copy(fwd.copy_tile), timed_fwd_store
    cfg = FwdConfig(*map(int, os.environ.get("CONFIG", "128x128x8").split("x")))
    k2, v2 = k[:, :, :2048].contiguous().realize(), v[:, :, :2048].contiguous().realize()
    cases = {"causal": (dict(causal=True), (k, v), tiles(causal, cfg.block_m, cfg.block_n, None)),
             "document": (doc_kw, (k, v), tiles(docs[0], cfg.block_m, cfg.block_n, None)),
             "full 2048 keys": ({}, (k2, v2), tiles(causal, cfg.block_m, cfg.block_n, 2048))}
    for name, (kw, (kk, vv), nt) in cases.items():
      f = lambda: flash_attention(q, kk, vv, config=cfg, return_lse=True, **kw)[1].realize()
      f()
      ms = gpu_time(f, 10)[0] * 1e3
      report(name, ms, *unstamp(f().numpy().reshape(H, N // cfg.block_m, cfg.block_m)[:, :, :6], 32), nt)
  else:
    bwd.copy_tile, bwd.store_acc = timed_copy(bwd.copy_tile), timed_bwd_store
    cs = [BwdConfig(*map(int, c.split("x"))) for c in os.environ.get("BWD_CONFIG", "64x32x4").split(",")]
    c_kv, c_q = cs[0], cs[-1]
    for name, kw, dm in (("causal", dict(causal=True), causal), ("document", doc_kw, docs[0])):
      o, lse = [t.realize() for t in flash_attention(q, k, v, return_lse=True, **kw)]
      f = lambda: (gs:=flash_attention_backward(q, k, v, o, lse, do, configs=(c_kv, c_q), **kw), Tensor.realize(*gs))[0]
      f()
      ms = gpu_time(f, 10)[0] * 1e3   # both kernels (and delta)
      dq, _, dv = [g.numpy() for g in f()]
      report(f"{name} dK/dV (both kernels {ms:.3f} ms)", ms, *unstamp(dv.reshape(H, N // c_kv.block_m, c_kv.block_m, D)[:, :, 0, :12], 16),
             tiles(dm, c_kv.block_m, c_kv.block_n, None, rows_keys=True))
      report(f"{name} dQ", ms, *unstamp(dq.reshape(H, N // c_q.block_m, c_q.block_m, D)[:, :, 0, :12], 16), tiles(dm, c_q.block_m, c_q.block_n, None))
