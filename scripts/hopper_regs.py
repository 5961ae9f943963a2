"""Registers, spills and shared memory of the Hopper kernels as nvcc builds them for sm_90a (ptxas -v; no GPU, nvcc on PATH), per config,
causal and the document mask (B=1 H=16 N=16384, D from the environment, default 128: issue 9's shapes):
  python3 scripts/hopper_regs.py 64x64x4 64x64x4x3 ...          the forward at each config
  D=64 python3 scripts/hopper_regs.py bwd 64x64x4 64x64x4x3 ... the backward's dK/dV and dQ kernels at each config (dQ's without a split)
  SASS=DIR ...                                                  and each kernel's SASS in DIR with its opcode counts (nvcc -cubin, then
                                                                nvdisasm from FA_UOP_NVDISASM or PATH: `pip install nvidia-cuda-nvdisasm`)"""
import math, os, re, shutil, subprocess, sys, tempfile
from dataclasses import replace
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_fwd, flash_bwd_dkdv, flash_bwd_dq, FwdConfig, BwdConfig
from fa_uop.mods import Mods
from fa_uop.compile import render, cuda_resources, _nvcc

D, N, H = int(os.environ.get("D", 128)), 16384, 16
DOC = dict(mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1)

def ph(shapes) -> list[UOp]: return [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
def doc_args(rows:int, cols:int) -> list:
  """the mask's document ids and a block map: rows x cols tiles (queries x keys for the forward and dQ, keys x queries for dK/dV)"""
  return [((1, N), dtypes.int32), ((1, 1, rows, 2), dtypes.int32), ((1, 1, rows, cols), dtypes.int32), ((H * rows,), dtypes.int32)]

def fwd_sink(cfg:FwdConfig, doc:bool) -> UOp:
  """the forward as flash_attention builds it: with bulk copies (and their tensor maps, the last argument) where the config says tma"""
  big, rows, maps = ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float), [((32,), dtypes.uint64)] * cfg.tma
  if not doc: return flash_fwd(*ph([big, big, big, big, rows, *maps]), target=SM90A, cfg=cfg, causal=True, tma=cfg.tma)
  args = doc_args(math.ceil(N / cfg.block_m), math.ceil(N / cfg.block_n))
  return flash_fwd(*ph([big, big, big, big, rows, *args, *maps]), target=SM90A, cfg=cfg, mods=Mods(causal=True, **DOC), tma=cfg.tma)

def bwd_sinks(cfg:BwdConfig, doc:bool):
  mods = Mods(causal=True, **DOC) if doc else Mods(causal=True)
  big, rows = ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float)
  for kern, nout in ((flash_bwd_dkdv, 2), (flash_bwd_dq, 1)):
    c = cfg if kern is flash_bwd_dkdv else replace(cfg, split=1)
    # a producer's ring (tr): its tensor maps the last argument
    shapes = [big] * 4 + [rows] * 2 + [big] * nout + (doc_args(N // cfg.block_m, N // cfg.block_n) if doc else []) + [((32,), dtypes.uint64)] * c.tma
    yield kern.__name__, kern(*ph(shapes), target=SM90A, cfg=c, mods=mods)

def ptxas(src:str) -> str:
  r = cuda_resources(src, "sm_90a")
  return f"Used {r['registers']} registers, {r['spill_stores']} bytes spill stores, {r['stack']} bytes stack, {r['smem']} bytes smem" + \
    (", wgmma SERIALIZED" if r["wgmma_serialized"] else "")

def sass(src:str, name:str) -> None:
  """write src's SASS for sm_90a to $SASS/name.sass, and print its commonest opcodes"""
  nvdisasm = os.environ.get("FA_UOP_NVDISASM") or shutil.which("nvdisasm") or sys.exit("SASS=...: no nvdisasm (FA_UOP_NVDISASM, or PATH)")
  with tempfile.TemporaryDirectory() as d:
    with open(f"{d}/k.cu", "w") as f: f.write(src)
    subprocess.run([_nvcc(), "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-o", f"{d}/k.cubin", f"{d}/k.cu"], check=True, capture_output=True)
    out = subprocess.run([nvdisasm, "-c", f"{d}/k.cubin"], check=True, capture_output=True, text=True).stdout
  with open(os.path.join(os.environ["SASS"], f"{name}.sass"), "w") as f: f.write(out)
  ops = [m.group(1).split(".")[0] for m in re.finditer(r"\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", out)]
  print("  SASS:", " ".join(f"{op} {ops.count(op)}" for op in sorted(set(ops), key=ops.count, reverse=True)[:12]), flush=True)

if __name__ == "__main__":
  bwd, configs = sys.argv[1:2] == ["bwd"], sys.argv[1:]
  for c in configs[1:] if bwd else configs:
    for doc in (False, True):
      case = "document" if doc else "causal"
      if bwd and doc and BwdConfig.parse(c).ring: continue   # a ring walks no block map's tiles
      if bwd:
        for name, sink in bwd_sinks(BwdConfig.parse(c), doc):
          src = render(sink, "sm_90a")
          print(f"D={D} {c} {name} {case}: {ptxas(src)}; wgmma {src.count('wgmma.mma_async')}", flush=True)
          if os.environ.get("SASS"): sass(src, f"{name}_d{D}_{c}_{case}")
      else:
        src = render(fwd_sink(FwdConfig.parse(c), doc), "sm_90a")
        print(f"D={D} {c} {case}: {ptxas(src)}; wgmma {src.count('wgmma.mma_async')}; dynamic smem {'fa_dsmem' in src}", flush=True)
        if os.environ.get("SASS"): sass(src, f"fwd_d{D}_{c}_{case}")
