# the forward and backward of causal and of the document mask timed per kernel at DEBUG=2 (gpu_time) and between events with the GPU kept busy (event_time)
import os, sys
sys.path.insert(0, os.getcwd())
from tinygrad import Tensor, dtypes, Device
from fa_uop import flash_attention, flash_attention_backward, FwdConfig
from fa_uop.timing import gpu_time, event_time
import bench
N, H, D = 16384, 16, 128
q, k, v, do = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(4)]
for mask in (None, "document"):
  case = bench.Case(True, mask=mask)
  data = case.data(1, H, N, N); kw = case.kwargs(data); pairs = case.pairs(data, 1, N, N)
  o, lse = [t.realize() for t in flash_attention(q, k, v, return_lse=True, config=FwdConfig(64, 32, 4), **kw)]
  fwd = lambda: flash_attention(q, k, v, config=FwdConfig(64, 32, 4), **kw).realize()
  bwd = lambda: Tensor.realize(*flash_attention_backward(q, k, v, o, lse, do, **kw))
  for name, f, fl in (("fwd", fwd, 4), ("bwd", bwd, 10)):
    f(); f()
    for tn, t in (("gpu_time", lambda: gpu_time(f, 20)[0]), ("event_time", lambda: event_time(f, 20)[0]), ("gpu_time", lambda: gpu_time(f, 20)[0])):
      s = t()
      print(f"{mask or 'causal':9s} {name} {tn:10s} {s*1e3:8.3f} ms {fl*D*H*pairs/s*1e-12:7.1f} TFLOPS", flush=True)
