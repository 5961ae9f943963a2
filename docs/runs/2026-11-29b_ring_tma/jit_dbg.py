"""the ring under TinyJit on two GPUs: each call jitted against eager on the same inputs (max |diff| / max |eager| of o and the gradients);
a graph node CUDA refuses printed with its launch (docs/journal.md 2026-11-29, thirty-ninth session)"""
import ctypes, tinygrad.runtime.graph.cuda as G, tinygrad.runtime.ops_cuda as C
names = {}
_init = C.CUDAProgram.__init__
def init(self, dev, name, *a, **k):
  _init(self, dev, name, *a, **k); names[ctypes.cast(self.prg, ctypes.c_void_p).value] = (name, dev.device)
C.CUDAProgram.__init__ = init
_add = G.cuda.cuGraphAddKernelNode
def add(node, graph, deps, n, params):
  st = _add(node, graph, deps, n, params)
  if st:
    p = params._obj
    dl = [ctypes.cast(deps[i], ctypes.c_void_p).value for i in range(n)] if n else []
    print("refused node:", names.get(ctypes.cast(p.func, ctypes.c_void_p).value), "grid", (p.gridDimX, p.gridDimY, p.gridDimZ), "block",
          (p.blockDimX, p.blockDimY, p.blockDimZ), "smem", p.sharedMemBytes, "deps", n, "distinct", len(set(dl)), "status", st, flush=True)
  return st
G.cuda.cuGraphAddKernelNode = add
import sys, numpy as np, traceback
from tinygrad import Tensor, Device, TinyJit, dtypes
from fa_uop import flash_attention, shard
devs=("CUDA","CUDA:1")
def run(B,H,Hkv,N,D,causal,grad):
  r=np.random.default_rng(0)
  def mk(): return [shard.zigzag(Tensor(r.standard_normal(s).astype(np.float16)).to("CUDA").contiguous().realize(), devs).realize() for s in ((B,H,N,D),(B,Hkv,N,D),(B,Hkv,N,D),(B,H,N,D))]
  def step(q,k,v,do):
    for t in (q,k,v): t.requires_grad=grad
    o=flash_attention(q,k,v,causal=causal,layout="zigzag")
    return [x.realize() for x in (o, *((o.float()*do).sum().gradient(q,k,v) if grad else ()))]
  j=TinyJit(step)
  try:
    for i in range(4):
      xs=mk(); e=[shard.unzigzag(x).numpy().astype(np.float64) for x in step(*xs)]; g=[shard.unzigzag(x).numpy().astype(np.float64) for x in j(*xs)]
      print(B,H,Hkv,N,D,causal,grad,"call",i,["%.2e"%(np.abs(a-b).max()/np.abs(a).max()) for a,b in zip(e,g)], flush=True)
  except Exception as ex: print(B,H,Hkv,N,D,causal,grad,"EXC", type(ex).__name__, str(ex)[:300]); traceback.print_exc(limit=-4)
for args in ((1,2,1,128,128,True,True),(1,2,1,128,64,True,True),(1,2,1,128,64,False,True),(2,8,4,1024,128,False,True)):
  run(*args)
