"""the ring under TinyJit on two GPUs: each call jitted against eager on the same inputs (max |diff| / max |eager| of o and the gradients);
a graph node CUDA refuses printed with its launch and whether the current context is its device's; RETRY=1 adds it again in its
device's context (the hypothesis: tinygrad's CUDAGraph adds kernel nodes in whatever context is current; it does not hold:
2026-11-29b_ring_tma/gpu2b.log); PROBE=1 prints the function's smem limit, the dependencies' types, adds the node alone, and sets the
graph's argument buffer and buffers beside the eager launch's: the graph handed the kernel buffers its program does not read
(probe.log; fixed in b0bace2) (docs/journal.md 2026-11-29, thirty-ninth session)"""
import ctypes, os, tinygrad.runtime.graph.cuda as G, tinygrad.runtime.ops_cuda as C
RETRY, PROBE = os.environ.get("RETRY") == "1", os.environ.get("PROBE") == "1"
names = {}
_init = C.CUDAProgram.__init__
def init(self, dev, obj, *a, **k):
  _init(self, dev, obj, *a, **k); names[ctypes.cast(self.prg, ctypes.c_void_p).value] = (obj.name, dev)
C.CUDAProgram.__init__ = init
eager = {}
_call = C.CUDAProgram.__call__
def call(self, *args, global_size=(1,1,1), local_size=(1,1,1), vals=(), **kw):   # each program's eager launch, to set beside a refused node
  eager[ctypes.cast(self.prg, ctypes.c_void_p).value] = (tuple(global_size), tuple(local_size), self.smem, len(args), tuple(vals), self.signature)
  return _call(self, *args, global_size=global_size, local_size=local_size, vals=vals, **kw)
C.CUDAProgram.__call__ = call
_add = G.cuda.cuGraphAddKernelNode
def add(node, graph, deps, n, params):
  st = _add(node, graph, deps, n, params)
  if st:
    p = params._obj
    name, dev = names.get(ctypes.cast(p.func, ctypes.c_void_p).value, ("?", None)); refused.add(name)
    cur = C.cuda.CUcontext(); C.cuda.cuCtxGetCurrent(ctypes.byref(cur))
    print("refused node:", name, "on", getattr(dev, "device", "?"), "current context is its device's:", dev is not None and ctypes.cast(cur, ctypes.c_void_p).value == ctypes.cast(dev.context, ctypes.c_void_p).value,
          "grid", (p.gridDimX, p.gridDimY, p.gridDimZ), "block", (p.blockDimX, p.blockDimY, p.blockDimZ), "smem", p.sharedMemBytes, "deps", n, "status", st, flush=True)
    if PROBE:   # the function's own limit on dynamic shared memory, each dependency's type, and the node alone in this graph and in a new one
      a = ctypes.c_int(); C.cuda.cuFuncGetAttribute(ctypes.byref(a), 8, p.func)
      dl = [deps[i] for i in range(n)]; ty = []
      for d in dl: t = ctypes.c_uint(); G.cuda.cuGraphNodeGetType(d, ctypes.byref(t)); ty.append(t.value)
      print("  max dynamic smem attribute", a.value, "dep types", ty, flush=True)
      ex = ctypes.cast(p.extra, ctypes.POINTER(ctypes.c_void_p)); size = ctypes.cast(ex[3], ctypes.POINTER(ctypes.c_size_t))[0]
      print("  graph's argument buffer", size, "bytes; its eager launch (grid, block, smem, buffers, vars, signature):", eager.get(ctypes.cast(p.func, ctypes.c_void_p).value), flush=True)
      if dev is not None: C.check(C.cuda.cuCtxSetCurrent(dev.context))
      print("  alone in this graph:", _add(node, graph, None, 0, params), flush=True)
      g2 = G.cuda.CUgraph(); G.cuda.cuGraphCreate(ctypes.byref(g2), 0); n2 = G.cuda.CUgraphNode()
      print("  alone in a new graph:", _add(ctypes.byref(n2), g2, None, 0, params), flush=True)
    if RETRY and dev is not None:   # the hypothesis: a kernel node is added in the current context, which must be its function's
      C.check(C.cuda.cuCtxSetCurrent(dev.context)); st = _add(node, graph, deps, n, params); print("  again in its device's context:", st, flush=True)
  return st
G.cuda.cuGraphAddKernelNode = add
refused = set()
_ginit = G.CUDAGraph.__init__
def ginit(self, *a, **k):   # the buffers the graph hands a refused kernel
  try: _ginit(self, *a, **k)
  except Exception:
    for (dev_idx, ast, bufs, dv), rt in zip(self.calls, self.runtimes):
      if getattr(rt, "name", None) in refused: print("  graph hands", rt.name, "on", dev_idx, [(b.size, b.dtype.name) for b in bufs], "vars", dv, flush=True)
    raise
G.CUDAGraph.__init__ = ginit
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
for args in ((1,2,1,128,128,True,True),(2,8,4,1024,128,False,True)):
  run(*args)
