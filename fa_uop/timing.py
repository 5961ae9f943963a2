"""Device-side timing of tinygrad work, for the bench and the tuner."""
from __future__ import annotations
import contextlib, io, re, statistics, time
from typing import Callable
from tinygrad import Device, Context, GlobalCounters, Tensor

_FLUSH: dict[tuple[str, int], Tensor] = {}

def flush_l2(device:str, mb:int=256) -> None:
  """overwrite mb MB on the device, more than any L2, so the next run reads its inputs from memory (as triton's do_bench does);
  nothing on the emulator, which has no cache and would take minutes"""
  if device.startswith("PYTHON"): return
  if (device, mb) not in _FLUSH: _FLUSH[(device, mb)] = Tensor.zeros(mb << 18, device=device).contiguous().realize()
  _FLUSH[(device, mb)].assign(_FLUSH[(device, mb)] + 1).realize()

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

def kernel_times(fn:Callable[[], object], cnt:int, device:str|None=None) -> dict[str, float]:
  """the median device time of each kernel fn runs (by name, summed where one runs more than once a call) over cnt calls: what a
  call's time splits into, from the lines tinygrad prints at DEBUG=2"""
  dev, runs = device or Device.DEFAULT, []
  for _ in range(cnt):
    Device[dev].synchronize()
    with Context(DEBUG=2), contextlib.redirect_stdout(out:=io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
      fn()
      Device[dev].synchronize()
    times: dict[str, float] = {}
    for name, t, unit in re.findall(r"\*\*\* \S+\s+\d+ (\S+).*? tm\s+([\d.]+)(us|ms|s)/", re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())):
      times[name] = times.get(name, 0.0) + float(t) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
    runs.append(times)
  return {k: statistics.median(r.get(k, 0.0) for r in runs) for k in runs[0]}

def wall_time(fn:Callable[[], object], cnt:int, devices:tuple[str, ...]) -> tuple[float, float]:
  """(median, mean) wall time of a call with all of devices synchronized before and after: for work spread over several devices,
  which per-kernel timing (gpu_time, DEBUG=2) would run one device after the other; it includes the host's launch time. fn is
  called three times first: a TinyJit's run, capture and first replay"""
  for _ in range(3): fn()
  walls = []
  for _ in range(cnt):
    for d in devices: Device[d].synchronize()
    st = time.perf_counter()
    fn()
    for d in devices: Device[d].synchronize()
    walls.append(time.perf_counter() - st)
  return statistics.median(walls), sum(walls) / len(walls)

def event_time(fn:Callable[[], object], cnt:int, device:str|None=None) -> tuple[float, float]:
  """(median, mean wall) time of fn's kernels between two CUDA events, fn captured by TinyJit (its replay launches them all
  at once), the L2 flushed before each run and the GPU kept busy until fn's launches are queued: as triton's do_bench times
  torch, so no host launch time is counted. Per-kernel timing (gpu_time) counts each launch's host latency, tens of
  microseconds, which is most of a decoding call. CUDA only; elsewhere gpu_time."""
  dev = device or Device.DEFAULT
  if not dev.startswith("CUDA"): return gpu_time(fn, cnt, dev, flush=True)
  import ctypes
  from tinygrad import TinyJit
  from tinygrad.runtime.autogen import cuda
  jit = TinyJit(fn)
  for _ in range(3): jit()                   # capture, then one replay
  ctx = Device[dev].context
  evs = []
  for _ in range(2):
    cuda.cuCtxSetCurrent(ctx)
    cuda.cuEventCreate(ctypes.byref(ev:=cuda.CUevent()), 0)
    evs.append(ev)
  times, walls = [], []
  for _ in range(cnt):
    Device[dev].synchronize()
    flush_l2(dev, 1024)                        # about 0.7 ms of work ahead of fn's launches (the replay's host time is far less)
    st = time.perf_counter()
    cuda.cuCtxSetCurrent(ctx)
    cuda.cuEventRecord(evs[0], None)
    jit()
    cuda.cuCtxSetCurrent(ctx)
    cuda.cuEventRecord(evs[1], None)
    cuda.cuEventSynchronize(evs[1])
    walls.append(time.perf_counter() - st)
    cuda.cuEventElapsedTime(ctypes.byref(ms:=ctypes.c_float()), evs[0], evs[1])
    times.append(ms.value * 1e-3)
  for ev in evs: cuda.cuEventDestroy_v2(ev)
  return statistics.median(times), sum(walls) / len(walls)
