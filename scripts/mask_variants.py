"""Where a document mask's forward time goes on a GPU (fp16, B=1 H=16 N=16384 D=128, 64x32x4): causal beside a mask_mod that keeps
everything (causal's tiles through a block map), the bench's document mask (4 documents, random boundaries), the same documents
told by comparing positions with the boundaries (no loads in the mask), 4 tile-aligned documents of 4096 and a causal window of 4096. Run from the repository root: python3 scripts/mask_variants.py"""
import sys, os
sys.path.insert(0, os.getcwd())
import numpy as np
from tinygrad import Tensor, UOp, dtypes, Device
from fa_uop import flash_attention, FwdConfig
from fa_uop.timing import gpu_time
import bench
N, H, D = 16384, 16, 128
q, k, v = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(3)]
cfg = FwdConfig(64, 32, 4)
doc = Tensor(bench.Case(True, mask="document").data(1, H, N, N)["doc"]).realize()
cuts = [int(c) for c in np.flatnonzero(np.diff(doc.numpy()[0])) + 1]   # the first position of each document after the first
aligned = Tensor((np.arange(N) // 4096)[None].astype(np.int32)).realize()
cases = {"causal": dict(causal=True),
         "true mask_mod (causal's tiles via the map)": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: kj >= 0, mod_args=(doc,)),
         "document": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(doc,)),
         "document, boundaries as constants (no loads)": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: sum(((qi >= c).cast(dtypes.int32) for c in cuts),
                                                                                                            UOp.const(0, dtypes.int32)).eq(sum(((kj >= c).cast(dtypes.int32) for c in cuts), UOp.const(0, dtypes.int32))), mod_args=(doc,)),
         "document, tile-aligned 4x4096": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(aligned,)),
         "window 4096": dict(causal=True, window=(4096, None))}
for name, kw in cases.items():
  f = lambda: flash_attention(q, k, v, config=cfg, **kw).realize()
  f()
  t = gpu_time(f, 20)[0]
  print(f"{name:45s} {t*1e3:8.3f} ms")
