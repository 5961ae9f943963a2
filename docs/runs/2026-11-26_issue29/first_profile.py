"""Where a first call's time goes (one fresh process per mode, empty tuning cache): tinygrad's compile pool or fa_uop's graph.
  DEV=CUDA python3 first_profile.py MODE B H N D causal   MODE: cold (as a user's first call), warm (tinygrad's worker pool already
  started by a 2-kernel realize), serial (PARALLEL=0: no pool), profile (cold under cProfile, top entries)"""
import os, sys, tempfile, time
os.environ.setdefault("FA_UOP_CACHE", os.path.join(tempfile.mkdtemp(), "tune.json"))
mode, (B, H, N, D, causal) = sys.argv[1], map(int, sys.argv[2:7])
if mode == "serial": os.environ["PARALLEL"] = "0"
import numpy as np
from tinygrad import Device, Tensor, dtypes
from fa_uop import flash_attention
from fa_uop.api import fwd_config_for
r = np.random.default_rng(0)
q, k, v = (Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).cast(dtypes.half).contiguous().realize() for _ in range(3))
if mode == "warm":   # two new kernels in one realize: tinygrad starts its compile pool
  (q.float().sum(2) + k.float().max(3).sum()).realize()
Device[Device.DEFAULT].synchronize()
st = time.perf_counter()
if mode == "profile":
  import cProfile, pstats
  pr = cProfile.Profile(); pr.enable()
o = flash_attention(q, k, v, causal=bool(causal))
built = time.perf_counter() - st
o.realize(); Device[Device.DEFAULT].synchronize()
tot = time.perf_counter() - st
import fa_uop
print(f"{os.path.relpath(fa_uop.__file__)} {mode} B={B} H={H} N={N} D={D} causal={causal} {fwd_config_for(q, k, v, causal=bool(causal))}: first call {tot:.2f} s "
      f"(graph {built:.2f} s)", flush=True)
if mode == "profile":
  pr.disable(); pstats.Stats(pr).sort_stats("cumulative").print_stats(35)
