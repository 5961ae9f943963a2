"""(PART=2: all but the first two configs' key sweeps) Issue 33, where a short sequence's forward time goes (H100/H200): time vs keys at Nq=1024 (B=16 H=16 D=128, non-causal), fa_uop at
fixed configs and cuDNN, every time the median between CUDA events with the L2 flushed (fa_uop.timing.event_time; cuDNN: do_bench in
scripts/torch_peer.py), and the kernels one forward call runs (DEBUG=2 times).  python3 probe.py > probe.log"""
import subprocess, sys, os
from tinygrad import Tensor, dtypes
from fa_uop import flash_attention, flash_attention_backward, FwdConfig
from fa_uop.timing import event_time, kernel_times, gpu_time
B, H, NQ, D = 16, 16, 1024, 128
def fa(nk:int, cfg:str, causal:bool=False, nq:int=NQ) -> float:
  q = Tensor.randn(B, H, nq, D).cast(dtypes.half).contiguous().realize()
  k, v = [Tensor.randn(B, H, nk, D).cast(dtypes.half).contiguous().realize() for _ in range(2)]
  call = lambda: flash_attention(q, k, v, causal=causal, config=FwdConfig.parse(cfg)).realize()
  call()
  return event_time(call, 20)[0]
def cudnn(nk:int, causal:bool=False, nq:int=NQ) -> float:
  out = subprocess.run([sys.executable, "scripts/torch_peer.py", "torch_cudnn", "fwd", str(B), str(H), str(H), str(nq), str(nk), str(D),
                        "1" if causal else "0", "half"], capture_output=True, text=True).stdout.split()
  return float(out[-1])
tf = lambda nq, nk, s, causal=False: 4 * B * H * nq * nk * D / (2 if causal else 1) / s * 1e-12
PART = int(os.environ.get("PART", 1))
for cfg, nks in (("128x192x8tr2p", (192, 384, 768, 1152, 2304, 4608)), ("128x128x8tr2p", (128, 256, 512, 1024, 2048, 4096))) if PART == 1 else ():
  for nk in nks:
    s = fa(nk, cfg)
    print(f"fa_uop {cfg:14s} Nq={NQ} Nk={nk:5d} {s*1e6:8.1f} us {tf(NQ, nk, s):6.1f} TFLOPS", flush=True)
for nk in (128, 256, 512, 1024, 2048, 4096):
  s = cudnn(nk)
  print(f"cudnn                 Nq={NQ} Nk={nk:5d} {s*1e6:8.1f} us {tf(NQ, nk, s):6.1f} TFLOPS", flush=True)
for causal in (False, True):
  q = Tensor.randn(B, H, NQ, D).cast(dtypes.half).contiguous().realize()
  k, v = [Tensor.randn(B, H, NQ, D).cast(dtypes.half).contiguous().realize() for _ in range(2)]
  call = lambda: flash_attention(q, k, v, causal=causal).realize()
  call()
  print(f"kernels of the default call, causal={causal}:", {n: f"{t*1e6:.1f} us" for n, t in kernel_times(call, 10).items()}, flush=True)
  # bench.py's statistic so far (gpu_time: each kernel between events at DEBUG=2, no flush) beside event_time's, on the same call
  print(f"  the call: gpu_time {gpu_time(call, 20)[0]*1e6:.1f} us, event_time {event_time(call, 20)[0]*1e6:.1f} us", flush=True)
  do = Tensor.randn(B, H, NQ, D).cast(dtypes.half).contiguous().realize()
  o, lse = [t.realize() for t in flash_attention(q, k, v, causal=causal, return_lse=True)]
  bwd = lambda: Tensor.realize(*flash_attention_backward(q, k, v, o, lse, do, causal=causal))
  bwd()
  print(f"  backward kernels:", {n: f"{t*1e6:.1f} us" for n, t in kernel_times(bwd, 10).items()}, flush=True)
  print(f"  the backward: gpu_time {gpu_time(bwd, 20)[0]*1e6:.1f} us, event_time {event_time(bwd, 20)[0]*1e6:.1f} us", flush=True)
for cfg in ("64x64x4", "64x64x4x3", "128x128x8tr2p", "128x64x8tr2p", "128x192x8tr2p"):
  s = fa(NQ, cfg, True)
  print(f"fa_uop causal {cfg:14s} N={NQ} {s*1e6:8.1f} us {tf(NQ, NQ, s, True):6.1f} TFLOPS", flush=True)
s = cudnn(NQ, True)
print(f"cudnn causal N={NQ} {s*1e6:8.1f} us {tf(NQ, NQ, s, True):6.1f} TFLOPS", flush=True)
