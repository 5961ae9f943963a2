"""Registers and spills of the Hopper backward (dK/dV and dQ) as nvcc builds it for sm_90a (ptxas -v), per config, causal and the
document mask at D=128 (issue 9's shapes). Usage: python scripts/hopper_bwd_regs.py 64x32x4 64x64x4 ..."""
import sys
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_bwd_dkdv, flash_bwd_dq, BwdConfig
from fa_uop.mods import Mods
from fa_uop.compile import render
from hopper_regs import ptxas

def sinks(cfg:BwdConfig, doc:bool, H=16, N=16384, D=128):
  mods = Mods(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1) if doc else Mods(causal=True)
  big, rows = ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float)
  for kern, nout, keys in ((flash_bwd_dkdv, 2, False), (flash_bwd_dq, 1, True)):
    shapes = [big] * 4 + [rows] * 2 + [big] * nout
    if doc:   # the mask's document ids and a block map: keys x queries for dK/dV, queries x keys for dQ
      nR, nC = N // cfg.block_m, N // cfg.block_n
      shapes += [((1, N), dtypes.int32), ((1, 1, nR, 2), dtypes.int32), ((1, 1, nR, nC), dtypes.int32), ((H * nR,), dtypes.int32)]
    yield kern.__name__, kern(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)], target=SM90A, cfg=cfg, mods=mods)

if __name__ == "__main__":
  for c in sys.argv[1:]:
    for doc in (False, True):
      for name, sink in sinks(BwdConfig(*map(int, c.split("x"))), doc):
        src = render(sink, "sm_90a")
        print(f"{c} {name} {'document' if doc else 'causal'}: {ptxas(src)}; wgmma {src.count('wgmma.mma_async')}", flush=True)
