"""Where a forward block's time goes on a GPU, block by block: a copy of the forward built with each block's SM and its start and
end (clock64, before its first copy and after its output's stores) written into its first logsumexp rows in place of the
logsumexp. Per kernel (causal, the document mask, full attention over 2048 keys; fp16, B=1 H=16 N=16384 D=128, CONFIG, default
128x128x8): a least-squares fit of a block's cycles to its full and partial tiles, the gaps between blocks on an SM and the SMs'
idle tails. Run from the repository root on a CUDA GPU: python3 scripts/block_clock.py"""
import sys, os
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, UOp, dtypes
from tinygrad.uop.ops import Ops
import fa_uop.forward as fwd
from fa_uop import flash_attention, FwdConfig
from fa_uop.tiles import flat
from fa_uop.timing import gpu_time
import bench

T0: list[UOp] = []
copy_tile, store_rows = fwd.copy_tile, fwd.store_rows

def timed_copy(blk, dst, src, row, rows_valid=None, variant=0, run=None):
  if not T0:   # attend's first copy (K's first tile): the clock is read before it, which its rows depend on
    T0.append(t0 := UOp(Ops.CUSTOM, dtypes.int64, (blk.lane,), arg="clock64()"))
    rows_valid = (dst.rows if rows_valid is None else rows_valid) - (t0 < 0).cast(dtypes.int32)
  return copy_tile(blk, dst, src, row, rows_valid, variant, run)

def timed_store(blk, cfg, acc, row_max, row_sum, stage, o, o_row, lse, lse_row, nq):
  stores = store_rows(blk, cfg, acc, row_max, row_sum, stage, o, o_row, None, lse_row, nq)
  t0 = T0.pop()
  t1 = UOp(Ops.CUSTOM, dtypes.int64, (flat(o).after(*stores).index(o_row(0)).load(),), arg="(clock64() + 0*(long long)(float)({0}))")
  # (nvrtc takes no statement expressions: the SM id is read into a variable by a statement of its own, as tiles' ldmatrix does)
  rd = UOp(Ops.CUSTOM, dtypes.void, (t0,), arg='unsigned fa_smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(fa_smid));')
  sm = UOp(Ops.CUSTOMI, dtypes.int64, (rd, UOp.const(0, dtypes.int)), arg="(long long)fa_smid")
  bits = lambda x, hi: UOp(Ops.CUSTOM, dtypes.float, (x,), arg=f"__int_as_float((int)(({{0}}) >> {32 if hi else 0}))")
  first = blk.warp.eq(0) & blk.lane.eq(0)
  return stores + [flat(lse).index(lse_row(j).valid(first)).store(bits(x, hi))
                   for j, (x, hi) in enumerate([(t0, False), (t0, True), (t1, False), (t1, True), (sm, False)])]

fwd.copy_tile, fwd.store_rows = timed_copy, timed_store

def tiles(doc:np.ndarray, BM:int, BN:int, keys:int) -> np.ndarray:
  """(row blocks, 2): full and partial tiles of each row block under causal and the documents doc (None: full attention)"""
  out = []
  for mb in range(len(doc) // BM):
    r = np.arange(mb * BM, (mb + 1) * BM)
    kept = np.array([(((doc[r][:, None] == doc[n0:n0 + BN][None]) & (np.arange(n0, n0 + BN)[None] <= r[:, None])).sum() if keys is None
                      else BM * BN) for n0 in range(0, keys or len(doc), BN)])
    out.append(((kept == BM * BN).sum(), ((kept > 0) & (kept < BM * BN)).sum()))
  return np.array(out)

N, H, D = 16384, 16, 128
cfg = FwdConfig(*map(int, os.environ.get("CONFIG", "128x128x8").split("x")))
q, k, v = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(3)]
docs = bench.Case(True, mask="document").data(1, H, N, N)["doc"]
doc = Tensor(docs).realize()
k2, v2 = k[:, :, :2048].contiguous().realize(), v[:, :, :2048].contiguous().realize()
cases = {"causal": (dict(causal=True), tiles(np.zeros(N, int), cfg.block_m, cfg.block_n, None)),
         "document": (dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(doc,)), tiles(docs[0], cfg.block_m, cfg.block_n, None)),
         "full 2048 keys": (dict(kv=(k2, v2)), tiles(np.zeros(N, int), cfg.block_m, cfg.block_n, 2048))}
for name, (kw, nt) in cases.items():
  kk, vv = kw.pop("kv", (k, v))
  f = lambda: flash_attention(q, kk, vv, config=cfg, return_lse=True, **kw)[1].realize()
  f()
  ms = gpu_time(f, 10)[0] * 1e3
  lse = f().numpy().reshape(H, N // cfg.block_m, cfg.block_m)[:, :, :5].copy().view(np.uint32).astype(np.int64)
  t0, t1, sm = lse[..., 0] | (lse[..., 1] << 32), lse[..., 2] | (lse[..., 3] << 32), lse[..., 4]
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
