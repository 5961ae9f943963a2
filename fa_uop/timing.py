"""Device-side timing of tinygrad work, for the bench and the tuner."""
from __future__ import annotations
import contextlib, io, math, time
from typing import Callable
from tinygrad import Device, Context, GlobalCounters

def gpu_time(fn:Callable[[], object], cnt:int, device:str|None=None) -> tuple[float, float]:
  """(best device time of the kernels fn runs, mean wall time per call) over cnt calls. tinygrad fills GlobalCounters.time_sum_s
  with event times only at DEBUG>=2, whose per-kernel lines are swallowed here."""
  dev = device or Device.DEFAULT
  best, walls = math.inf, []
  for _ in range(cnt):
    GlobalCounters.reset()
    with Context(DEBUG=2), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
      st = time.perf_counter()
      fn()
      Device[dev].synchronize()
      walls.append(time.perf_counter() - st)
    best = min(best, GlobalCounters.time_sum_s)
  return best, sum(walls) / len(walls)
