"""Where a document mask's time goes on a GPU (fp16, B=1 H=16 N=16384 D=128; KERNEL=fwd (default) times the forward at each config
of CONFIGS, default 64x32x4, KERNEL=bwd the backward at each BWD_CONFIGS, default 64x64x4): causal beside a mask_mod that keeps
everything (causal's tiles through a block map), the bench's document mask (4 documents, random boundaries), the same documents
told by comparing positions with the boundaries (no loads in the mask), 4 tile-aligned documents of 4096, causal over 4 sequences of
4096 (B=4: the aligned documents' pairs without a mask) and a causal window of 4096; and (forward) full attention of the 16384 queries over 2048 to 16384 keys (the intercept: a block's cost outside its
loop). CASES (names, separated by ';') and NKS pick some; LATEST sets fa_uop.blockmap.LATEST (the schedule's); EVENTS=1 adds
fa_uop.timing.event_time's median (a TinyJit replay between two CUDA events, the L2 flushed, as bench.py times torch). Run from the repository root: python3 scripts/mask_variants.py"""
import sys, os
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, UOp, dtypes, Device
from fa_uop import flash_attention, flash_attention_backward, FwdConfig, BwdConfig
from fa_uop.timing import gpu_time, kernel_times, event_time
import bench
import fa_uop.blockmap
if "LATEST" in os.environ: fa_uop.blockmap.LATEST = float(os.environ["LATEST"])
N, H, D = int(os.environ.get("N", 16384)), int(os.environ.get("H", 16)), 128   # N and H smaller for a smoke test on the emulator
q, k, v = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(3)]
doc = Tensor(bench.Case(True, mask="document").data(1, H, N, N)["doc"]).realize()
cuts = [int(c) for c in np.flatnonzero(np.diff(doc.numpy()[0])) + 1]   # the first position of each document after the first
aligned = Tensor((np.arange(N) // (N // 4))[None].astype(np.int32)).realize()
cases = {"causal": dict(causal=True),
         "true mask_mod (causal's tiles via the map)": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: kj >= 0, mod_args=(doc,)),
         "document": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(doc,)),
         "document, boundaries as constants (no loads)": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: sum(((qi >= c).cast(dtypes.int32) for c in cuts),
                                                                                                            UOp.const(0, dtypes.int32)).eq(sum(((kj >= c).cast(dtypes.int32) for c in cuts), UOp.const(0, dtypes.int32))), mod_args=(doc,)),
         "document, tile-aligned 4x4096": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(aligned,)),
         "causal, 4 sequences of 4096": dict(causal=True),
         "window 4096": dict(causal=True, window=(N // 4, None))}
split = lambda t: t.reshape(H, 4, N // 4, D).permute(1, 0, 2, 3).contiguous().realize()
BWD = os.environ.get("KERNEL", "fwd") == "bwd"
for c in os.environ.get("BWD_CONFIGS" if BWD else "CONFIGS", "64x64x4" if BWD else "64x32x4").split(","):
  # BWD_CONFIGS entries: one config for both backward kernels, or dK/dV's and dQ's joined by '+'
  cfg = tuple(BwdConfig(*map(int, x.split("x"))) for x in (c.split("+") * 2)[:2]) if BWD else FwdConfig(*map(int, c.split("x")))
  for name, kw in cases.items():
    if "CASES" in os.environ and name not in os.environ["CASES"].split(";"): continue
    qq, kk, vv = (split(t) for t in (q, k, v)) if "sequences" in name else (q, k, v)
    if BWD:
      o, lse = [t.realize() for t in flash_attention(qq, kk, vv, return_lse=True, **kw)]
      do = Tensor.randn(*qq.shape).cast(dtypes.half).contiguous().realize()
      f = lambda: (gs:=flash_attention_backward(qq, kk, vv, o, lse, do, configs=cfg, **kw), Tensor.realize(*gs))[0]
    else: f = lambda: flash_attention(qq, kk, vv, config=cfg, **kw).realize()
    f()
    parts = "  ".join(f"{k} {t*1e3:.3f}" for k, t in kernel_times(f, 5).items()) if BWD else ""   # the delta reduction, dK/dV, dQ
    ev = f"  events {event_time(f, 20)[0]*1e3:.3f} ms" if "EVENTS" in os.environ else ""   # as bench.py's peers are timed
    print(f"{c} {name:45s} {gpu_time(f, 20)[0]*1e3:8.3f} ms{ev}  {parts}")
  if BWD: continue
  for nk in [int(x) for x in os.environ.get("NKS", "2048,4096,8192,16384").split(",") if x]:
    kn, vn = k[:, :, :nk].contiguous().realize(), v[:, :, :nk].contiguous().realize()
    f = lambda: flash_attention(q, kn, vn, config=cfg).realize()
    f()
    print(f"{c} full, {nk} keys {'':32s} {gpu_time(f, 20)[0]*1e3:8.3f} ms")
