"""Registers, spills and shared memory of the Hopper forward as nvcc builds it for sm_90a (ptxas -v), per config: causal and the
document mask at D=128, the shapes of issue 9's table. Usage: python scripts/hopper_regs.py 64x64x4 128x64x8 ..."""
import math, sys
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_fwd, FwdConfig
from fa_uop.mods import Mods
from fa_uop.compile import render, cuda_resources

def sink(cfg:FwdConfig, doc:bool, D=128, N=16384, H=16):
  q, kv, rows = ((1, H, N, D), dtypes.half), ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float)
  if not doc: return flash_fwd(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate([q, kv, kv, q, rows])], target=SM90A, cfg=cfg, causal=True)
  mods = Mods(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1)
  TR, TC = cfg.block_m, cfg.block_n
  bmap = [((1, 1, math.ceil(N / TR), 2), dtypes.int32), ((1, 1, math.ceil(N / TR), math.ceil(N / TC)), dtypes.int32), ((H * math.ceil(N / TR),), dtypes.int32)]
  shapes = [q, kv, kv, q, rows, ((1, N), dtypes.int32), *bmap]
  return flash_fwd(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)], target=SM90A, cfg=cfg, mods=mods)

def ptxas(src:str) -> str:
  r = cuda_resources(src, "sm_90a")
  return f"Used {r['registers']} registers, {r['spill_stores']} bytes spill stores, {r['stack']} bytes stack, {r['smem']} bytes smem"

if __name__ == "__main__":
  for c in sys.argv[1:]:
    cfg = FwdConfig(*map(int, c.split("x")))
    for doc in (False, True):
      src = render(sink(cfg, doc), "sm_90a")
      print(f"{c} {'document' if doc else 'causal'}: {ptxas(src)}; wgmma {src.count('wgmma.mma_async')}; dynamic smem {'fa_dsmem' in src}", flush=True)
