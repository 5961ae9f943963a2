"""Context parallelism on two GPUs against one (issue 34's bar): B=1 H=16 D=128 causal fp16, the ring over DEV's first two GPUs in
the zigzag layout, forward and forward+backward (autograd), each call's median wall time with both devices synchronized (the same
statistic for one GPU: fa_uop.timing.wall_time), per-GPU memory after a step, and at N where one GPU holds it the ring's o and
gradients against one GPU's. python ring.py N [N ...]; DEV=CUDA"""
import subprocess, sys, numpy as np
from tinygrad import Tensor, Device, TinyJit, dtypes, GlobalCounters
from fa_uop import flash_attention, shard
from fa_uop.timing import wall_time

dev = Device.DEFAULT
devs = (dev, f"{dev.split(':')[0]}:1")
B, H, D = 1, 16, 128
for N in map(int, sys.argv[1:]):
  flops = 4 * B * H * N * N * D / 2   # causal: half the pairs
  xs = [Tensor.randn(B, H, N, D, dtype=dtypes.float32).cast(dtypes.half).contiguous().realize() for _ in range(4)]
  ring = [shard.zigzag(x, devs).realize() for x in xs]
  def fwd(q, k, v, layout): return flash_attention(q, k, v, causal=True, layout=layout).realize()
  def step(q, k, v, do, layout):
    o = flash_attention(q, k, v, causal=True, layout=layout)
    return Tensor.realize(o, *(o.float() * do).sum().gradient(q, k, v))
  rows = {}
  for name, ts, where, lay in (("one GPU", xs, (dev,), "contiguous"), ("two GPUs", ring, devs, "zigzag")):
    try:
      f, s = TinyJit(lambda q, k, v: fwd(q, k, v, lay)), TinyJit(lambda q, k, v, do: step(q, k, v, do, lay))
      tf = wall_time(lambda: f(*ts[:3]), 5, where)[0]
      tb = wall_time(lambda: s(*ts), 5, where)[0]
      rows[name] = (tf, tb)
      print(f"N={N} {name}: forward {tf*1e3:.2f} ms ({flops/tf*1e-12:.1f} TFLOPS), forward+backward {tb*1e3:.2f} ms "
            f"({3.5*flops/tb*1e-12:.1f} TFLOPS), GlobalCounters.mem_used {GlobalCounters.mem_used/2**30:.2f} GiB", flush=True)
      # each GPU's memory in use now (tinygrad keeps the step's buffers cached: about its peak)
      smi = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.used", "--format=csv,noheader"], capture_output=True, text=True).stdout
      print(f"N={N} {name}: nvidia-smi memory.used {' | '.join(smi.split(chr(10))[:2])}", flush=True)
    except Exception as e: print(f"N={N} {name}: {type(e).__name__}: {str(e)[:200]}", flush=True)
  if len(rows) == 2:
    print(f"N={N} two GPUs / one: forward {rows['one GPU'][0]/rows['two GPUs'][0]:.2f}x, forward+backward {rows['one GPU'][1]/rows['two GPUs'][1]:.2f}x", flush=True)
    # the ring's results against one GPU's (heads 0..1, in sequence order)
    q, k, v, do = xs
    for t in xs: t.requires_grad = True
    o1 = flash_attention(*xs[:3], causal=True); g1 = (o1.float() * do).sum().gradient(*xs[:3])
    o2 = flash_attention(*ring[:3], causal=True, layout="zigzag"); g2 = (o2.float() * ring[3]).sum().gradient(*ring[:3])
    for name, a, b in zip(("o", "dq", "dk", "dv"), (o1, *g1), (o2, *g2)):
      a, b = a[:, :2].float().numpy(), shard.unzigzag(b, device=dev)[:, :2].float().numpy()
      print(f"N={N} {name}: max |ring - one GPU| / max |one GPU| = {np.abs(a - b).max() / np.abs(a).max():.2e}", flush=True)
