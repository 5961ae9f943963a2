"""A static model of a kernel's steady state, read from its ISA (clang-22's AMDGPU assembly, nvcc's PTX for sm_90a): the main loop's
instructions per wave (warp) and one iteration, costed on each pipe of a CU (SM) with every resident block running that loop:
  MMA   the products' FLOPs at the rated dense peak a SIMD (SMSP) issues
  VALU  other vector instructions a cycle each (CDNA's wave64: four), exponentials at the transcendental rate (MUFU on the H100)
  LDS   bytes read and written (ds_*; ld/st.shared, ldmatrix and wgmma's shared-memory operands) at 128 bytes a clock a CU (SM)
  L2    global bytes (loads, stores; the bulk tensor copies' K and V tiles, which the PTX does not size) at 64 bytes a clock a CU (SM)
The iteration takes the longest pipe where two or more waves share a SIMD to hide the others (RDNA's WMMA runs on its VALU: their sum),
else the pipes' sum. Predicted TFLOPS = the blocks' MMA FLOPs a round / that time x clock x CUs. It ignores the prologue, epilogue and
masked stages (long non-causal sequences), bank conflicts, the instruction cache and clocks under load: the H100 rows, beside their
measurements (docs/performance.md, 67b6dc8's run; the kernels are unchanged since), are its error bar on the AMD rows.
Run from the repository root (clang-22 and nvcc on PATH; no GPU): python3 scripts/kernel_model.py"""
import math, os, re, sys
sys.path.insert(0, os.getcwd()); sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
from dataclasses import dataclass
from tinygrad import dtypes
from fa_uop import SM90A, flash_fwd, flash_bwd_dkdv, flash_bwd_dq, FwdConfig, default_fwd_config, default_bwd_configs
from fa_uop.compile import build, resources
from amd_resources import TARGETS, LDS_CU, ps, waves

@dataclass(frozen=True)
class Chip:
  name: str
  units: int          # CUs (RDNA: WGPs, whose 4 SIMDs and 128 KB of LDS a block's waves share), SMs
  ghz: float
  mma: int            # dense fp16 MMA FLOPs a clock a SIMD (SMSP): the rated peak / (units x 4 x clock)
  valu: int           # clocks a vector instruction takes a wave
  trans: int          # clocks an exponential takes a wave
  lds: int            # LDS (shared memory) bytes a clock a unit
  l2: int = 64        # global bytes a clock a unit
  mma_on_valu: bool = False

# rated peaks: MI300X 1307 TFLOPS fp16 dense at 2.1 GHz, MI355X 2.5 PFLOPS at 2.4 GHz, RX 7900 XTX 123 TFLOPS at 2.5 GHz, RX 9070 XT
# 195 TFLOPS at 2.97 GHz, H100 SXM 989 TFLOPS at 1.83 GHz (MUFU 16 a clock an SM: FlashAttention-3's 3.9 TFLOPS of exponentials)
CHIPS = {"gfx942": Chip("MI300X", 304, 2.1, 512, 4, 16, 128), "gfx950": Chip("MI355X", 256, 2.4, 1024, 4, 16, 128),
         "gfx1100": Chip("RX 7900 XTX", 48, 2.5, 256, 1, 4, 256, 128, True), "gfx1201": Chip("RX 9070 XT", 32, 2.97, 512, 1, 4, 256, 128, True),
         "sm_90a": Chip("H100 SXM", 132, 1.83, 1024, 1, 8, 128)}

# the H100's measured forward at 67b6dc8 (docs/performance.md, "192 and 224 keys a step": docs/runs/2026-11-27_wide/final_h100.log)
H100 = [(128, 16384, 1, 16, "128x192x8tr2p", 670.0), (128, 4096, 4, 16, "128x192x8tr2p", 605.0), (64, 16384, 1, 32, "128x224x8tr2p", 500.0)]
FLYDSL = "FlyDSL's FMHA (seed 004): 636.8 TFLOPS non-causal, 692.3 causal, bf16 B=16 S=8192 H=64 D=128 on an MI355X"

def amd_loop(asm:str) -> list[str]:
  """the instructions of the innermost loop holding the most MMAs (clang annotates each block with its loop's header and depth)"""
  blocks, lab, cur = {}, None, None
  for line in asm.split(".end_amdhsa_kernel")[0].splitlines():
    if (m:=re.match(r"^(?:\.L(BB\d+_\d+)|; %bb\.\d+):", line)): lab, cur = m.group(1), None
    if (m:=re.search(r"Loop Header: Depth=(\d+)", line)) and lab: cur = (lab, int(m.group(1)))
    elif (m:=re.search(r"in Loop: Header=(BB\d+_\d+) Depth=(\d+)", line)): cur = (m.group(1), int(m.group(2)))
    if cur and line.startswith("\t"): blocks.setdefault(cur, []).append(line.strip())
  n_mma = lambda ls: sum(bool(re.match(r"v_(mfma|wmma)", x)) for x in ls)
  return blocks[max(blocks, key=lambda k: (n_mma(blocks[k]), k[1]))] if blocks else []

def amd_counts(loop:list[str]) -> dict:
  c = dict(flops=0, valu=0, trans=0, lds=0, glob=0)
  for x in loop:
    op = x.split()[0]
    if (m:=re.match(r"v_(?:mfma|wmma)_\w*?(\d+)x(\d+)x(\d+)", op)): c["flops"] += 2 * int(m.group(1)) * int(m.group(2)) * int(m.group(3))
    elif op.startswith("v_exp"): c["trans"] += 1
    elif op.startswith("v_"): c["valu"] += 1
    elif op.startswith("ds_"): c["lds"] += _bytes(op)
    elif op.startswith(("global_", "buffer_")): c["glob"] += _bytes(op)
  return c

def _bytes(op:str) -> int:
  """bytes a lane moves: b128/dwordx4 16, b64 8, b96 12, u16/d16/b16 2, u8/b8 1, else 4 (bpermute, b32)"""
  for pat, n in (("b128|dwordx4|x4", 16), ("b96|dwordx3", 12), ("b64|dwordx2|2addr_b32", 8), ("u16|d16|b16|short", 2), ("u8|i8|b8|byte", 1)):
    if re.search(pat, op): return n
  return 4

def ptx_loop(ptx:str) -> list[str]:
  """the smallest loop (a backward branch to a label) holding the most MMAs"""
  lines = ptx.splitlines()
  labels = {m.group(1): i for i, l in enumerate(lines) if (m:=re.match(r"^(\$L__BB\d+_\d+):", l))}
  loops = [(labels[m.group(1)], i) for i, l in enumerate(lines) if (m:=re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", l)) and labels.get(m.group(1), i) < i]
  n_mma = lambda a, b: sum("wgmma.mma_async" in l or "mma.sync" in l for l in lines[a:b])
  a, b = max(loops, key=lambda ab: (n_mma(*ab), -(ab[1] - ab[0])))
  return [l.strip() for l in lines[a:b]]

def ptx_counts(loop:list[str], tile_bytes:int, warps:int) -> dict:
  """per warp: wgmma FLOPs (a warpgroup's product over its 4 warps) and its shared-memory operands, ex2, other arithmetic"""
  c = dict(flops=0, valu=0, trans=0, lds=0, glob=tile_bytes / warps)
  for l in loop:
    if (m:=re.search(r"wgmma\.mma_async\.sync\.aligned\.m(\d+)n(\d+)k(\d+)\.\w+\.(\w+)", l)):
      M, N, K = map(int, m.groups()[:3])
      elem = 1 if "e4m3" in l or "e5m2" in l else 2
      c["flops"] += 2 * M * N * K / 4
      a_smem = re.search(r"\}\s*,\s*%rd\d+\s*,\s*%rd\d+", l) is not None   # A and B both descriptors
      c["lds"] += (N * K + (M * K if a_smem else 0)) * elem / 4
    elif (m:=re.search(r"\bmma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)", l)): c["flops"] += 2 * math.prod(map(int, m.groups()))
    elif re.match(r"ex2\.", l): c["trans"] += 1
    elif (m:=re.match(r"(ld|st)\.shared\.(?:v(\d)\.)?[a-z](\d+)", l)): c["lds"] += 32 * int(m.group(2) or 1) * int(m.group(3)) // 8
    elif (m:=re.match(r"ldmatrix\.sync\.aligned\.m8n8\.x(\d)", l)): c["lds"] += 32 * 16 * int(m.group(1)) // 2
    elif (m:=re.match(r"(ld|st)\.global\.(?:v(\d)\.)?[a-z](\d+)", l)): c["glob"] += 32 * int(m.group(2) or 1) * int(m.group(3)) // 8
    elif re.match(r"(add|sub|mul|fma|max|min|mov|cvt|selp|setp|and|or|xor|shl|shr|neg|abs|rcp)\.", l): c["valu"] += 1
  return c

def predict(chip:Chip, c:dict, waves_block:int, blocks:int, lanes:int) -> tuple[float, str]:
  """TFLOPS the loop sustains with `blocks` resident a unit, and the pipe that bounds it"""
  w = blocks * waves_block / 4                                      # waves a SIMD (SMSP)
  t_mma, t_valu = w * c["flops"] / chip.mma, w * (c["valu"] * chip.valu + c["trans"] * chip.trans)
  t_lds, t_l2 = blocks * waves_block * c["lds"] * lanes / chip.lds, blocks * waves_block * c["glob"] * lanes / chip.l2   # AMD: a lane's bytes
  t_simd = t_mma + t_valu if chip.mma_on_valu or w < 2 else max(t_mma, t_valu)
  pipes = {"MMA" if t_mma >= t_valu or chip.mma_on_valu else "VALU": t_simd, "LDS": t_lds, "L2": t_l2}
  t = max(pipes.values()) if w >= 2 else sum(pipes.values())
  return blocks * waves_block * c["flops"] / t * chip.ghz * 1e9 * chip.units / 1e12, max(pipes, key=pipes.get) if w >= 2 else "sum"

def amd_rows(D:int=128, B:int=16, N:int=8192, H:int=64):
  q, rows = ((B, H, N, D), dtypes.half), ((B, H, N), dtypes.float)
  for arch, t in TARGETS.items():
    chip, (ck, cq), cf = CHIPS[arch], default_bwd_configs(t, D), default_fwd_config(t, D, False, N, N)
    for name, sink, cfg in (("forward", flash_fwd(*ps([q, q, q, q, rows]), target=t, cfg=cf), cf),
                            ("dK/dV", flash_bwd_dkdv(*ps([q, q, q, q, rows, rows, q, q]), target=t, cfg=ck), ck),
                            ("dQ", flash_bwd_dq(*ps([q, q, q, q, rows, rows, q]), target=t, cfg=cq), cq)):
      asm = build(sink, arch)
      r, c = resources(asm), amd_counts(amd_loop(asm))
      blocks = max(1, min(waves(arch, r, cfg.warps)[0] * 4 // cfg.warps, LDS_CU[arch] // max(r["lds"], 1)))   # by VGPRs, by LDS
      tf, bound = predict(chip, c, cfg.warps, blocks, t.warp)
      yield arch, chip, name, cfg, blocks, c, t.warp, tf, bound

def h100_rows():
  chip = CHIPS["sm_90a"]
  for D, N, B, H, c, measured in H100:
    cfg = FwdConfig.parse(c)
    big, rows, maps = ((B, H, N, D), dtypes.half), ((B, H, N), dtypes.float), [((32,), dtypes.uint64)] * cfg.tma
    ptx = build(flash_fwd(*ps([big, big, big, big, rows, *maps]), target=SM90A, cfg=cfg, tma=cfg.tma), "sm_90a")
    consumers = cfg.warps                                             # the producer warpgroup's loop moves no data through the SM's pipes
    cnt = ptx_counts(ptx_loop(ptx), 2 * cfg.block_n * D * 2, consumers)
    tf, bound = predict(chip, cnt, consumers, 1, 1)
    yield D, N, B, H, cfg, cnt, tf, bound, measured

if __name__ == "__main__":
  print("| GPU | D | N | B×H | config | MMA MFLOP / VALU / exp / LDS KB / L2 KB a warp-iteration | bound | predicted | measured | predicted ÷ measured |")
  print("|---|---|---|---|---|---|---|---|---|---|")
  ratios = []
  for D, N, B, H, cfg, c, tf, bound, meas in h100_rows():
    ratios.append(tf / meas)
    print(f"| H100 | {D} | {N} | {B}×{H} | {cfg} | {c['flops'] / 1e6:.2f} / {c['valu']} / {c['trans']} / {c['lds'] / 1024:.1f} / {c['glob'] / 1024:.1f} | "
          f"{bound} | {tf:.0f} | {meas:.0f} | {tf / meas:.2f} |", flush=True)
  lo, hi = min(ratios), max(ratios)
  print(f"\nH100: predicted / measured {lo:.2f}-{hi:.2f}; the AMD rows below, divided by that, give their range ({FLYDSL})\n")
  print("| GPU | kernel | config | blocks a CU | MMA MFLOP / VALU / exp / LDS KB / L2 KB a wave-iteration | bound | predicted | ÷ H100's ratio |")
  print("|---|---|---|---|---|---|---|---|")
  for arch, chip, name, cfg, blocks, c, lanes, tf, bound in amd_rows():
    print(f"| {chip.name} ({arch}) | {name} | {cfg} | {blocks} | {c['flops'] / 1e6:.2f} / {c['valu']} / {c['trans']} / "
          f"{c['lds'] * lanes / 1024:.1f} / {c['glob'] * lanes / 1024:.1f} | {bound} | {tf:.0f} | "
          f"{tf / hi:.0f}-{tf / lo:.0f} |", flush=True)
