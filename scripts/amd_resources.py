"""The AMD kernels as clang-22 builds them (no GPU needed): per target and kernel, VGPRs (CDNA: arch VGPRs and AGPRs together), AGPRs,
LDS, scratch, spilled VGPRs, the waves per SIMD the VGPRs and the LDS allow, and the instruction mix of the assembly (MFMA/WMMA, LDS
reads and writes, global loads, lane exchanges). Shapes: B=2 H=4 Hkv=2 N=1000, causal, fp16, the default configs; decoding one query
against 1000 keys, split 8 ways.
--every: every kernel fa_uop builds, at each head dim given (default: every one it accepts), built as test_compile builds them (its
sinks: GQA, tails): the forward, dK/dV and dQ causal and not, the bf16 forward, the delta kernel, decoding (4 rows split 8 ways; 4 and
64 rows paged), the combine, the cache writes (dense, paged), the masked kernels (a causal window, softcap, ALiBi and a document mask
through block maps; at MOD_DIMS each alone too), the fp8 forward and decoding (4 rows paged) where the target has an fp8 MMA, each tuner candidate's forward, and (once) the block map
kernels; in -j processes, then the rows that use scratch.
Run from the repository root: python3 scripts/amd_resources.py [--every [-j N]] [--targets gfx1100,...] [D ...]"""
import os, re, sys
sys.path.insert(0, os.getcwd())
from tinygrad import UOp, dtypes
from fa_uop import flash_fwd, flash_bwd_dkdv, flash_bwd_dq, flash_decode, default_fwd_config, default_bwd_configs, RDNA3, RDNA4, CDNA3, CDNA4
from fa_uop.config import default_decode_config
from fa_uop.compile import build, resources

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

MOD_DIMS = (64, 128, 256)   # the head dims --every builds each modification alone at (every one: all of them together)

def every(t, D:int, first:bool) -> dict:
  """name -> (a thunk building the sink, its config or None): every kernel fa_uop builds at head dim D on target t"""
  sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
  from test_compile import fwd_sink, bwd_sinks, decode_sinks, masked_sinks, masked_configs, masked_mods, fp8_fwd_sink, fp8_decode_sink, MODS
  from fa_uop import flash_bwd_delta, flash_kv_write
  from fa_uop.config import candidates
  cf, (ck, cq) = default_fwd_config(t, D, True), default_bwd_configs(t, D)
  jobs = {}
  for causal in (True, False):
    c = " causal" if causal else ""
    jobs |= {f"fwd{c}": (lambda c=causal: fwd_sink(t, D, c), cf), f"dkdv{c}": (lambda c=causal: bwd_sinks(t, D, c)[0], ck),
             f"dq{c}": (lambda c=causal: bwd_sinks(t, D, c)[1], cq)}
  jobs["fwd bf16"] = (lambda: fwd_sink(t, D, True, dtypes.bfloat16), cf)
  rows = ((2, 4, 1000, D), dtypes.half), ((2, 4, 1000), dtypes.float)
  jobs["delta"] = (lambda: flash_bwd_delta(*ps([rows[0], rows[0], rows[1]]), target=t), None)
  jobs["decode 4 rows split"] = (lambda: decode_sinks(t, D, True, 8, H=8)[0], default_decode_config(t, D, 4))
  jobs["decode 4 rows paged"] = (lambda: decode_sinks(t, D, False, 1, 16, H=8)[0], default_decode_config(t, D, 4))
  jobs["decode 64 rows paged"] = (lambda: decode_sinks(t, D, False, 1, 16, H=32, Hkv=2, Nq=4)[0], default_decode_config(t, D, 64))
  jobs["combine"] = (lambda: decode_sinks(t, D, True, 8, H=8)[1], None)
  cache, new = ((2, 2, 1024, D), dtypes.half), ((2, 2, 3, D), dtypes.half)
  jobs["kv write"] = (lambda: flash_kv_write(*ps([cache, cache, new, new, ((2,), dtypes.int32)]), None), None)
  pool = ((131, 2, 16, D), dtypes.half)
  jobs["kv write paged"] = (lambda: flash_kv_write(*ps([pool, pool, new, new, ((2,), dtypes.int32), ((2, 64), dtypes.int32)])), None)
  for i, (name, c) in enumerate(zip(("masked fwd", "masked dkdv", "masked dq"), masked_configs(t, D))): jobs[name] = (lambda i=i: masked_sinks(t, D)[i], c)
  for mod in MODS if D in MOD_DIMS else ():   # each modification alone (causal besides)
    for i, (name, c) in enumerate(zip((f"{mod} fwd", f"{mod} dkdv", f"{mod} dq"), masked_configs(t, D, (mod,)))):
      jobs[name] = (lambda i=i, m=mod: masked_sinks(t, D, only=(m,))[i], c)
  if first:
    for i, name in enumerate(("block map classify", "block map compact", "block map head_sort", "block map schedule")):
      jobs[name] = (lambda i=i: masked_sinks(t, 64)[3 + i], None)
  if t.fp8 is not None and D % t.fp8.mma[2] == 0:   # the fp8 MMA's K (32 on CDNA) must divide the head dim
    cf8 = default_fwd_config(t.fp8, D, True)
    jobs["fwd fp8"] = (lambda: fp8_fwd_sink(t, D), cf8)
    jobs["decode fp8 paged"] = (lambda: fp8_decode_sink(t, D), default_decode_config(t.fp8, D, 4))
    for c in [c for c in candidates(t.fp8, D) if c != cf8]: jobs[f"fp8 candidate {c}"] = (lambda c=c: fp8_fwd_sink(t, D, cfg=c), c)
  for c in candidates(t, D): jobs[f"candidate {c}"] = (lambda c=c: fwd_sink(t, D, True, cfg=c), c)
  # and those the tuner times under the masked kernels' modifications (their tile may shrink: Target.fwd_keys), but the default
  tag, cm = masked_mods().tag, masked_configs(t, D)[0]
  for c in [c for c in candidates(t, D, tag) if c != cm]: jobs[f"masked candidate {c}"] = (lambda c=c: masked_sinks(t, D, fwd_cfg=c)[0], c)
  return jobs

def row(job:tuple) -> tuple[str, dict]:
  arch, D, name, first, full = job
  make, cfg = (every(TARGETS[arch], D, first) if full else sinks(TARGETS[arch], D))[name]
  sink = make() if full else make
  asm = build(sink, arch)
  r, body = resources(asm), asm.split(".end_amdhsa_kernel")[0]
  n = lambda pat: len(re.findall(pat, body, re.M))
  w = '%d, %g' % waves(arch, r, cfg.warps) if cfg is not None else '%d, -' % waves(arch, r, 1)[0]
  return (f"| {arch} | {D} | {name} | {cfg or ''} | {r['vgpr']} | {r['agpr']} | {r['lds'] / 1024:g} | {r['scratch']} | {r['vgpr_spill']} | {w} | "
          f"{n(r'^\s+v_(mfma|wmma)')} | {n(r'^\s+ds_read|^\s+ds_load')} | {n(r'^\s+ds_write|^\s+ds_store')} | "
          f"{n(r'^\s+global_load|^\s+buffer_load')} | {n(r'^\s+ds_bpermute')} |"), r

if __name__ == "__main__":
  args = sys.argv[1:]
  full = "--every" in args
  procs = int(args[args.index("-j") + 1]) if "-j" in args else 1
  archs = args[args.index("--targets") + 1].split(",") if "--targets" in args else list(TARGETS)
  ds = [int(x) for i, x in enumerate(args) if x.isdigit() and (i == 0 or args[i - 1] != "-j")] or (list(range(16, 257, 16)) if full else [64, 128])
  jobs = [(arch, D, name, D == ds[0], full) for D in ds for arch in archs for name in (every(TARGETS[arch], D, D == ds[0]) if full else sinks(TARGETS[arch], D))]
  print("| target | D | kernel | config | VGPR | AGPR | LDS KB | scratch B | spilled VGPRs | waves/SIMD by VGPR, LDS | MMA | LDS reads | LDS writes | global loads | bpermute |")
  print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
  import multiprocessing
  spilled = []
  with multiprocessing.get_context("fork").Pool(procs) as pool:
    for job, (line, r) in zip(jobs, pool.imap(row, jobs)):
      print(line, flush=True)
      if r["scratch"] or r["vgpr_spill"]: spilled.append(f"{job[0]} D={job[1]} {job[2]}: {r['scratch']} B, {r['vgpr_spill']} VGPRs")
  print(f"\n{len(spilled)} of {len(jobs)} kernels use scratch" + "".join(f"\n- {s}" for s in spilled))
