#!/usr/bin/env python3
"""Time fa_uop's attention forward next to its peers and check it against tinygrad's own SDPA in float32.

Env: B, H, HKV (default H), N, NK (default N), D, CAUSAL, DTYPE (half|bfloat16), CNT (timed runs), VERIFY (default 1), JSON=1,
PEERS (comma list from tinygrad,torch_flash,torch_cudnn; default: tinygrad, plus torch's where torch sees a GPU).
With no GPU present it runs a small shape on tinygrad's emulator (DEV=PYTHON::sm_80). Exits non-zero if the check fails."""
import os, shutil, sys
if "DEV" not in os.environ:  # pick the device before tinygrad reads DEV
  os.environ["DEV"] = "CUDA" if shutil.which("nvidia-smi") else "AMD" if os.path.exists("/dev/kfd") else "PYTHON::sm_80"
import contextlib, io, json, math, time
import numpy as np
from tinygrad import Tensor, Device, dtypes, GlobalCounters, Context
from tinygrad.helpers import getenv
from fa_uop import flash_attention

DEV = Device.DEFAULT
EMULATED = DEV.startswith("PYTHON")
DEFAULTS = dict(B=1, H=2, HKV=1, N=64, D=64, CNT=1) if EMULATED else dict(B=4, H=16, N=4096, D=128, CNT=20)

def conf(name:str) -> int: return getenv(name, DEFAULTS.get(name, 0))

def gpu_time(fn, cnt:int) -> tuple[float, float]:
  """best device time (tinygrad fills GlobalCounters.time_sum_s with event times only at DEBUG>=2) and mean wall time per call"""
  best, walls = math.inf, []
  for _ in range(cnt):
    GlobalCounters.reset()
    with Context(DEBUG=2), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
      st = time.perf_counter()
      fn()
      Device[DEV].synchronize()
      walls.append(time.perf_counter() - st)
    best = min(best, GlobalCounters.time_sum_s)
  return best, sum(walls) / len(walls)

def torch_peer(backend:str, shape, causal:bool, dtype_name:str, cnt:int) -> float|None:
  """median CUDA-event time of torch's SDPA with one backend, or None where torch or its GPU is missing"""
  try:
    import torch
    from torch.nn.attention import sdpa_kernel, SDPBackend
    if not torch.cuda.is_available(): return None
  except ImportError: return None
  B, H, Hkv, N, Nk, D = shape
  dt = torch.float16 if dtype_name == "half" else torch.bfloat16
  q, k, v = torch.randn(B, H, N, D, device="cuda", dtype=dt), torch.randn(B, Hkv, Nk, D, device="cuda", dtype=dt), torch.randn(B, Hkv, Nk, D, device="cuda", dtype=dt)
  be = {"torch_flash": SDPBackend.FLASH_ATTENTION, "torch_cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
  def run(): return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=Hkv != H)
  try:
    with sdpa_kernel([be]):
      for _ in range(3): run()
      times = []
      for _ in range(max(cnt, 10)):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); run(); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e-3)
  except RuntimeError as err:  # a backend that does not take this shape
    print(f"{backend}: {str(err).splitlines()[0]}", file=sys.stderr)
    return None
  return float(np.median(times))

def main() -> int:
  B, H, N, D = conf("B"), conf("H"), conf("N"), conf("D")
  Hkv, Nk, cnt = getenv("HKV", DEFAULTS.get("HKV", H)), getenv("NK", N), conf("CNT")
  causal, dtype_name, verify = bool(getenv("CAUSAL", 0)), getenv("DTYPE", "half"), getenv("VERIFY", 1)
  dtype = {"half": dtypes.half, "bfloat16": dtypes.bfloat16}[dtype_name]
  flops = 4 * B * H * N * Nk * D / (2 if causal else 1)
  print(f"{DEV}: B={B} H={H} Hkv={Hkv} N={N} Nk={Nk} D={D} causal={causal} {dtype_name}, {cnt} timed runs")

  q, k, v = [Tensor.randn(*s, dtype=dtypes.float32).cast(dtype).contiguous().realize() for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  st = time.perf_counter()
  with Context(CACHELEVEL=0): out = flash_attention(q, k, v, causal=causal).realize()
  Device[DEV].synchronize()
  compile_s = time.perf_counter() - st
  sec, wall = gpu_time(lambda: flash_attention(q, k, v, causal=causal).realize(), cnt)
  res = dict(impl="fa_uop", dev=DEV, B=B, H=H, Hkv=Hkv, N=N, Nk=Nk, D=D, causal=causal, dtype=dtype_name, ms=sec * 1e3,
             tflops=flops / sec * 1e-12, compile_s=compile_s, max_abs_err=None, rel_err=None, ok=True)
  print(f"fa_uop       {sec*1e3:9.3f} ms GPU {flops/sec*1e-12:8.2f} TFLOPS | {wall*1e3:9.3f} ms wall/call | first call (build+compile) {compile_s:.2f} s")

  peers = getenv("PEERS", "tinygrad" if EMULATED else "tinygrad,torch_flash,torch_cudnn").split(",")
  rows = []
  for peer in filter(None, peers):
    if peer == "tinygrad":
      gqa = dict(enable_gqa=True) if Hkv != H else {}
      psec, _ = gpu_time(lambda: q.scaled_dot_product_attention(k, v, is_causal=causal, **gqa).realize(), max(1, min(cnt, 5)))
    else: psec = torch_peer(peer, (B, H, Hkv, N, Nk, D), causal, dtype_name, cnt)
    if psec is None: continue
    print(f"{peer:12s} {psec*1e3:9.3f} ms GPU {flops/psec*1e-12:8.2f} TFLOPS | fa_uop is {psec/sec:.2f}x")
    rows.append(dict(res, impl=peer, ms=psec * 1e3, tflops=flops / psec * 1e-12, compile_s=None, ok=None))

  if verify:
    gqa = dict(enable_gqa=True) if Hkv != H else {}
    nb = B if B * H * N * Nk * 4 <= 8 << 30 else 1  # the float32 reference holds the N×Nk scores: check the first batch entry of huge shapes
    ref = q[:nb].float().scaled_dot_product_attention(k[:nb].float(), v[:nb].float(), is_causal=causal, **gqa).numpy().astype(np.float64)
    got = out[:nb].float().numpy().astype(np.float64)
    max_abs, rel = float(np.abs(got - ref).max()), float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    # bf16 rounds P to 8 bits of mantissa before P·V; the max abs bound is what catches a race that spoils a few rows
    rel_tol, abs_tol = (1e-2, 5e-2) if dtype == dtypes.bfloat16 else (4e-3, 1e-2)
    res.update(max_abs_err=max_abs, rel_err=rel, ok=bool(np.isfinite(got).all() and rel <= rel_tol and max_abs <= abs_tol))
    print(f"verify vs tinygrad SDPA in float32 (batch entries checked: {nb}): max abs err {max_abs:.3e} (tolerance {abs_tol:.0e}), "
          f"rel err {rel:.3e} (tolerance {rel_tol:.0e}): {'ok' if res['ok'] else 'FAILED'}")
  if getenv("JSON", 0):
    for r in rows: print(json.dumps(r))
    print(json.dumps(res))
  return 0 if res["ok"] else 1

if __name__ == "__main__": sys.exit(main())
