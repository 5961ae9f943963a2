"""the ring (zigzag, causal, B=1 H=16 D=128, two GPUs) eagerly: python ring_profile.py N [prof] (named profile.py, it shadowed the
standard library's profile, which cProfile imports: run from a copy); with DEBUG=2 each kernel's time
(ring_dbg.log, N=131072), with prof a cProfile of three eager training steps (prof.log, N=8192: the schedule cache missed each call).
Run at 3e021cd, before the thirty-ninth session's fixes (docs/journal.md)"""
import sys, cProfile, pstats, time
from tinygrad import Tensor, Device, dtypes
from fa_uop import flash_attention, shard
devs=("CUDA","CUDA:1"); B,H,N,D=1,16,int(sys.argv[1]),128
xs=[shard.zigzag(Tensor.randn(B,H,N,D,dtype=dtypes.half).contiguous().realize(),devs).realize() for _ in range(4)]
for x in xs: x.requires_grad=True
def fb():
  o=flash_attention(*xs[:3], causal=True, layout="zigzag"); Tensor.realize(o, *(o.float()*xs[3]).sum().gradient(*xs[:3]))
for i in range(3):
  print("---- fwd call", i, flush=True); t=time.perf_counter(); flash_attention(*xs[:3], causal=True, layout="zigzag").realize(); Device["CUDA"].synchronize(); Device["CUDA:1"].synchronize(); print("wall", time.perf_counter()-t)
for i in range(2):
  print("---- fb call", i, flush=True); fb()
if len(sys.argv)>2:
  cProfile.run("for _ in range(3): fb()", "/tmp/prof"); pstats.Stats("/tmp/prof").sort_stats("cumulative").print_stats(40)
