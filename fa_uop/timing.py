"""Device-side timing of tinygrad work, for the bench and the tuner."""
from __future__ import annotations
import contextlib, io, statistics, time
from typing import Callable
from tinygrad import Device, Context, GlobalCounters, Tensor

_FLUSH: dict[str, Tensor] = {}

def flush_l2(device:str) -> None:
  """overwrite 256 MB on the device, more than any L2, so the next run reads its inputs from memory (as triton's do_bench does);
  nothing on the emulator, which has no cache and would take minutes"""
  if device.startswith("PYTHON"): return
  if device not in _FLUSH: _FLUSH[device] = Tensor.zeros(64 << 20, device=device).contiguous().realize()
  _FLUSH[device].assign(_FLUSH[device] + 1).realize()

def gpu_time(fn:Callable[[], object], cnt:int, device:str|None=None, flush:bool=False) -> tuple[float, float]:
  """(median device time of the kernels fn runs, mean wall time per call) over cnt calls; flush: the L2 is flushed before each.
  tinygrad fills GlobalCounters.time_sum_s with event times only at DEBUG>=2, whose per-kernel lines are swallowed here."""
  dev = device or Device.DEFAULT
  times, walls = [], []
  for _ in range(cnt):
    if flush: flush_l2(dev)
    Device[dev].synchronize()
    GlobalCounters.reset()
    with Context(DEBUG=2), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
      st = time.perf_counter()
      fn()
      Device[dev].synchronize()
      walls.append(time.perf_counter() - st)
    times.append(GlobalCounters.time_sum_s)
  return statistics.median(times), sum(walls) / len(walls)
