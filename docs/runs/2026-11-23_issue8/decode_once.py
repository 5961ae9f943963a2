#!/usr/bin/env python3
"""Three decoding calls (fp16, D=128, 32 query heads over 8 KV heads, one new query) for a profiler to look at, on DEV=CUDA:
  python3 scripts/decode_once.py B NK SPLITS CONFIG             e.g. 1 131072 64 16x64x1
  DEBUG=2 python3 scripts/decode_once.py ... | grep fa_           per-kernel times (each counts its launch's host latency)
  ncu --kernel-name regex:fa_decode --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \\
      --section Occupancy --section MemoryWorkloadAnalysis python3 scripts/decode_once.py ...   (docs/perf.md, issue 8)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tinygrad import Tensor, dtypes, Device
from fa_uop import flash_attention_with_kvcache, FwdConfig

B, Nk, S = map(int, sys.argv[1:4])
cfg = FwdConfig(*map(int, sys.argv[4].split("x"))) if len(sys.argv) > 4 else None
q = Tensor.randn(B, 32, 1, 128).cast(dtypes.half).contiguous().realize()
k, v = [Tensor.randn(B, 8, Nk, 128).cast(dtypes.half).contiguous().realize() for _ in range(2)]
sl = Tensor.full((B,), Nk, dtype=dtypes.int32).contiguous().realize()
for _ in range(3): flash_attention_with_kvcache(q, k, v, sl, num_splits=S, config=cfg).realize()
Device[Device.DEFAULT].synchronize()
