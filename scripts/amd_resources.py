"""The AMD kernels as clang-22 builds them (no GPU needed): per target and kernel, VGPRs (CDNA: arch VGPRs and AGPRs together), AGPRs,
LDS, scratch, spilled VGPRs, the waves per SIMD the VGPRs and the LDS allow, and the instruction mix of the assembly (MFMA/WMMA, LDS
reads and writes, global loads, lane exchanges). Shapes: B=2 H=4 Hkv=2 N=1000, causal, fp16, the default configs; decoding one query
against 1000 keys, split 8 ways.
Run from the repository root: python3 scripts/amd_resources.py [D ...]"""
import os, re, sys
sys.path.insert(0, os.getcwd())
from tinygrad import UOp, dtypes
from fa_uop import flash_fwd, flash_bwd_dkdv, flash_bwd_dq, flash_decode, default_fwd_config, default_bwd_configs, RDNA3, RDNA4, CDNA3, CDNA4
from fa_uop.config import default_decode_config
from fa_uop.compile import render, compile_source, resources

TARGETS = {"gfx1100": RDNA3, "gfx1201": RDNA4, "gfx942": CDNA3, "gfx950": CDNA4}
# per SIMD: VGPRs of a lane and the waves it can hold; per CU (RDNA: per WGP of 2 CUs, which a block's waves share) the LDS
VGPR_FILE = {"gfx1100": (1536, 16, 16), "gfx1201": (1536, 16, 16), "gfx942": (512, 8, 8), "gfx950": (512, 8, 8)}  # (VGPRs, max waves, granule)
LDS_CU = {"gfx1100": 131072, "gfx1201": 131072, "gfx942": 65536, "gfx950": 163840}
SIMDS = {"gfx1100": 4, "gfx1201": 4, "gfx942": 4, "gfx950": 4}   # SIMDs a block's waves spread over (RDNA: a WGP's 4)

def ps(shapes): return [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]

def sinks(t, D):
  q, kv, rows = ((2, 4, 1000, D), dtypes.half), ((2, 2, 1000, D), dtypes.half), ((2, 4, 1000), dtypes.float)
  cf, (ck, cq), cd = default_fwd_config(t, D, True), default_bwd_configs(t, D), default_decode_config(t, D, 2)
  # decoding: one new query a sequence (2 query heads a KV head packed), a cache of 1000 keys, split 8 ways
  dec = [((2, 4, 1, D), dtypes.half), ((2, 2, 1000, D), dtypes.half), ((2, 2, 1000, D), dtypes.half), ((2,), dtypes.int32),
         ((2, 4, 1, 8, D), dtypes.float), ((2, 4, 1, 8), dtypes.float)]
  return {"fwd": (flash_fwd(*ps([q, kv, kv, q, rows]), target=t, cfg=cf, causal=True), cf),
          "dkdv": (flash_bwd_dkdv(*ps([q, kv, kv, q, rows, rows, kv, kv]), target=t, cfg=ck, causal=True), ck),
          "dq": (flash_bwd_dq(*ps([q, kv, kv, q, rows, rows, q]), target=t, cfg=cq, causal=True), cq),
          "decode": (flash_decode(*(p:=ps(dec))[:4], None, *p[4:], target=t, cfg=cd, causal=True), cd)}

def waves(arch:str, r:dict, warps:int) -> tuple[int, float]:
  """waves per SIMD allowed by the VGPRs, and by the LDS (blocks per CU or WGP times the block's waves per SIMD)"""
  file, cap, gran = VGPR_FILE[arch]
  by_vgpr = min(cap, file // (-(-max(r["vgpr"], 1) // gran) * gran))
  by_lds = (LDS_CU[arch] // max(r["lds"], 1)) * warps / SIMDS[arch]   # a one-warp block's waves spread over the SIMDs: a fraction
  return by_vgpr, by_lds

if __name__ == "__main__":
  print("| target | D | kernel | config | VGPR | AGPR | LDS KB | scratch B | spilled VGPRs | waves/SIMD by VGPR, LDS | MMA | LDS reads | LDS writes | global loads | bpermute |")
  print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
  for D in [int(x) for x in sys.argv[1:]] or [64, 128]:
    for arch, t in TARGETS.items():
      for name, (sink, cfg) in sinks(t, D).items():
        asm = compile_source(render(sink, arch), arch)
        r, body = resources(asm), asm.split(".end_amdhsa_kernel")[0]
        n = lambda pat: len(re.findall(pat, body, re.M))
        print(f"| {arch} | {D} | {name} | {cfg} | {r['vgpr']} | {r['agpr']} | {r['lds'] / 1024:g} | {r['scratch']} | {r['vgpr_spill']} | "
              f"{'%d, %g' % waves(arch, r, cfg.warps)} | {n(r'^\s+v_(mfma|wmma)')} | {n(r'^\s+ds_read|^\s+ds_load')} | {n(r'^\s+ds_write|^\s+ds_store')} | "
              f"{n(r'^\s+global_load|^\s+buffer_load')} | {n(r'^\s+ds_bpermute')} |", flush=True)
