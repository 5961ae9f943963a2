"""Render and compile kernels for a target without its GPU: the generated HIP or CUDA source, and the real compilers' output."""
from __future__ import annotations
import ctypes, functools, glob, importlib.util, os, re, shutil, subprocess, tempfile
from tinygrad import UOp
from tinygrad.codegen import full_rewrite_to_sink, line_rewrite, pm_linearize_cleanups
from tinygrad.codegen.late.linearizer import linearize
from tinygrad.helpers import Target as TgTarget
from tinygrad.dtype import AddrSpace
from tinygrad.renderer import Renderer
from tinygrad.renderer.cstyle import NVCCRenderer
from tinygrad.uop.ops import Ops
from fa_uop.target import DynamicSmem, FastMath, MinBlocks, UniformWarp, AmdCCRenderer

class _HopperNVCCRenderer(UniformWarp, MinBlocks, FastMath, DynamicSmem, NVCCRenderer): pass

def renderer(arch:str) -> Renderer:
  # sm_90a renders as sm_90 (tinygrad 0.14's renderer cannot parse the 'a') with the Hopper target's shared memory past 48 KB
  if arch == "sm_90a": return _HopperNVCCRenderer(TgTarget("CUDA", arch="sm_90"))
  if arch.startswith("sm_"): return NVCCRenderer(TgTarget("CUDA", arch=arch))
  r = AmdCCRenderer(TgTarget("AMD", arch=arch))
  r.fit = False   # render's fit measures with clang-22; hipcc, this renderer's compiler, is not here
  return r

@functools.lru_cache(maxsize=64)   # render and the hazard check take the same kernel, and the rewrite is most of their time
def linear(sink:UOp, arch:str) -> list[UOp]:
  """the kernel as tinygrad linearizes it for arch ('gfx1100', 'sm_90', ...): the program order the GPU runs (a sink tagged as
  optimized, as the kernels are, skips the optimizer's passes there too: with them its loops were flattened otherwise, a near twin of what runs)"""
  return line_rewrite(linearize(full_rewrite_to_sink(sink, renderer(arch), optimize=sink.tag is None)), pm_linearize_cleanups)

def render(sink:UOp, arch:str, fit:bool=False) -> str:
  """the source tinygrad generates for a kernel sink on arch; with fit, on AMD the form clang builds without scratch (AmdFit), as the
  device's renderer picks it with the device's compiler"""
  r = renderer(arch)
  if arch.startswith("gfx"): r.fit, r.scratch = fit, lambda src: resources(compile_source(src, arch))["scratch"]  # type: ignore[attr-defined]
  return r.render(linear(sink, arch))

def build(sink:UOp, arch:str) -> str:
  """a kernel sink built for arch as the GPU builds it (its AMD form fitted: render's fit): compile_source's text"""
  return compile_source(render(sink, arch, fit=True), arch)

def _lds(u:UOp) -> list[UOp]:
  """the LDS buffers u touches: through its first source, or any source of an inline instruction (wgmma reads two tiles)"""
  out = []
  for x in (u.src if u.op is Ops.CUSTOM else u.src[:1]) or (u,):
    while x.op not in (Ops.BUFFER, Ops.PARAM) and x.src: x = x.src[0]
    if x.op is Ops.BUFFER and x.addrspace is AddrSpace.LOCAL and x not in out: out.append(x)
  return out

def _access(u:UOp) -> str|None:
  """how a linearized uop touches LDS: r(ead), w(rite), a(sync write, not yet committed), g (async write committed to a group),
  C(ommit the async writes so far), W(ait for the committed groups), B (wait for the bulk copies into the tile it names), or None"""
  if u.op is Ops.LOAD: return "r"
  if u.op is Ops.STORE: return "w"
  if u.op is Ops.CUSTOM and isinstance(u.arg, str):
    if "cp.async.cg" in u.arg: return "g" if "cp.async.commit_group" in u.arg else "a"
    if "cp.async.bulk.tensor" in u.arg: return "g"   # complete on an mbarrier, which the wait names
    if "mbarrier.try_wait" in u.arg: return "B"
    if "cp.async.commit_group" in u.arg: return "C"
    if "cp.async.wait_group" in u.arg: return "W"
    if "ldmatrix" in u.arg or "wgmma.mma_async" in u.arg or "ld.shared" in u.arg: return "r"
  return None

def lds_hazards(lst:list[UOp]) -> list[str]:
  """Shared-memory accesses of different threads that no barrier separates, in program order: a read of an LDS buffer after a
  write to it (RAW), or a write after a read (WAR); async copies count as written only once a wait covers them, and a read
  before that is a hazard barrier or not; so is a read of LDS nothing wrote before. Loop bodies are walked twice so hazards across iterations show, and a loop may run
  zero times. The emulator runs a block in lockstep and cannot see these races; this finds them statically. It reads one program for
  every thread: a warp-specialised kernel (a producer warpgroup, slots released on mbarriers) is outside it, and compute-sanitizer's racecheck
  checks those on the GPU (scripts/sanitize.sh)."""
  out: list[str] = []
  written: set[UOp] = set()
  landed = lambda v: (v - {"g"}) | ({"w"} if "g" in v else set())
  ends = {u.src[1]: i for i, u in enumerate(lst) if u.op is Ops.END}
  def walk(lo:int, hi:int, pend:dict) -> dict:
    i = lo
    while i < hi:
      u = lst[i]
      if u.op is Ops.BARRIER: pend = {b: v & {"a", "g"} for b, v in pend.items()}
      elif u.op is Ops.RANGE and u in ends:
        body = walk(i + 1, ends[u], dict(pend))
        body = walk(i + 1, ends[u], body)
        pend = {b: pend.get(b, set()) | body.get(b, set()) for b in set(pend) | set(body)}
        i = ends[u]
      elif (kind:=_access(u)) == "C": pend = {b: (v - {"a"}) | ({"g"} if "a" in v else set()) for b, v in pend.items()}
      # a wait turns committed async writes into plain ones: cp.async's covers every tile, an mbarrier's only its own tile's bulk copies
      elif kind in ("W", "B"): pend = {b: landed(v) if kind == "W" or b in _lds(u) else v for b, v in pend.items()}
      elif kind is not None:
        for b in _lds(u):
          if kind == "r" and b not in written: out.append(f"read of LDS slot {b.arg.slot} that nothing wrote before, at uop {i}")
          if kind != "r": written.add(b)
          seen = pend.get(b, set())
          if kind == "r" and seen & {"w", "a", "g"}:
            out.append(f"{'RAW' if 'w' in seen else 'read before its async copy is committed and waited for'} on LDS slot {b.arg.slot} at uop {i}")
          if kind in "wag" and "r" in seen: out.append(f"WAR on LDS slot {b.arg.slot} at uop {i}")
          pend = {**pend, b: seen | {kind}}
      i += 1
    return pend
  walk(0, len(lst), {})
  return sorted(set(out))

def amd_clang() -> str|None:
  """the clang that builds HIP for every AMD target here: LLVM 20 or newer knows gfx950 (Debian's clang-22)"""
  return shutil.which("clang-22")

def resources(asm:str) -> dict[str, int]:
  """what an AMDGPU kernel's assembly says it uses: VGPRs (on CDNA arch VGPRs and AGPRs together), AGPRs, SGPRs, LDS bytes, scratch
  bytes per lane and VGPRs spilled"""
  keys = {"vgpr": "vgpr_count", "agpr": "agpr_count", "sgpr": "sgpr_count", "lds": "group_segment_fixed_size", "scratch": "private_segment_fixed_size",
          "vgpr_spill": "vgpr_spill_count"}
  return {k: int(m.group(1)) if (m:=re.search(rf"\.{v}:\s*(\d+)", asm)) else 0 for k, v in keys.items()}

# tinygrad's AMD runtime compiles with ROCm's device libraries (comgr), which inline these; without ROCm here they would stay calls,
# and a call's ABI makes LLVM spill the live VGPRs around it. So the checks define them as the instructions the libraries lower them to
_DEVICE_LIBS = {"__ocml_exp2_f32": "return __builtin_amdgcn_exp2f(x);", "__ocml_log2_f32": "return __builtin_amdgcn_logf(x);",
  "__ocml_sqrt_f32": "return __builtin_sqrtf(x);", "__ocml_trunc_f32": "return __builtin_truncf(x);",
  "__ocml_exp2_f16": "return (_Float16)__builtin_amdgcn_exp2f((float)x);", "__ocml_log2_f16": "return (_Float16)__builtin_amdgcn_logf((float)x);",
  "__ocml_sqrt_f16": "return (_Float16)__builtin_sqrtf((float)x);",
  "__ockl_get_group_id": "return x == 0 ? __builtin_amdgcn_workgroup_id_x() : x == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();",
  "__ockl_get_local_id": "return x == 0 ? __builtin_amdgcn_workitem_id_x() : x == 1 ? __builtin_amdgcn_workitem_id_y() : __builtin_amdgcn_workitem_id_z();",
  "__ockl_get_local_size": "return x == 0 ? __builtin_amdgcn_workgroup_size_x() : x == 1 ? __builtin_amdgcn_workgroup_size_y() : __builtin_amdgcn_workgroup_size_z();"}

def _with_device_libs(src:str) -> str:
  def define(m:re.Match) -> str:
    ret, name, arg = m.group(1), m.group(2), m.group(3)
    if name not in _DEVICE_LIBS: raise ValueError(f"no stand-in for the device library function {name}")
    return f'static inline __attribute__((device, always_inline)) {ret} {name}({arg} x) {{ {_DEVICE_LIBS[name]} }}'
  return re.sub(r'extern "C" __attribute__\(\(device[^)]*\)\) (\w+) (__oc[km]l_\w+)\(([\w ]+)\);', define, src)

def _nvcc() -> str: return os.environ.get("FA_UOP_NVCC") or "nvcc"

def cuda_resources(src:str, arch:str) -> dict[str, int]:
  """what ptxas says a CUDA kernel uses on arch (nvcc -cubin -Xptxas -v): registers a thread, bytes of spill stores, of stack and of
  static shared memory, and whether it serialized wgmma (1: it waits for each product at once, for whatever reason it gives)"""
  with tempfile.TemporaryDirectory() as d:
    with open(f"{d}/k.cu", "w") as f: f.write(src)
    gen = f"-gencode=arch=compute_{arch[3:]},code={arch}"
    r = subprocess.run([_nvcc(), gen, "-cubin", "-Xptxas", "-v", "-o", f"{d}/k.cubin", f"{d}/k.cu"],
                       check=True, capture_output=True, text=True)
  pats = {"registers": r"Used (\d+) registers", "spill_stores": r"(\d+) bytes spill stores", "stack": r"(\d+) bytes stack frame", "smem": r"(\d+) bytes smem"}
  out = {k: int(m.group(1)) if (m:=re.search(v, r.stderr)) else 0 for k, v in pats.items()}
  nvrtc(src, arch)   # and it builds on the GPU too
  # every reason ptxas gives (C7511/C7512: too few registers for the wgmma pipeline, C7514: a register of a product in flight touched, ..)
  return {**out, "wgmma_serialized": int("wgmma.mma_async instructions are serialized" in r.stderr)}

@functools.lru_cache(maxsize=64)   # compile_source and cuda_resources of one kernel build it once (a failure is not cached)
def nvrtc(src:str, arch:str) -> bool:
  """build src for arch with NVRTC, the compiler tinygrad builds CUDA kernels with on the GPU: nvcc takes C that NVRTC refuses (GNU
  statement expressions), so a kernel nvcc builds may not build there. Raises tinygrad's CompileError on failure; False where no
  libnvrtc loads (NVRTC_PATH, a CUDA toolkit's, or PyPI's nvidia-cuda-nvrtc, which the test extras install)"""
  from tinygrad.runtime.autogen import nvrtc as lib
  if lib.dll.nm not in lib.dll._loaded_:   # PyPI's, where tinygrad does not look: loaded into the library object its functions call
    spec = importlib.util.find_spec("nvidia")
    dirs = (spec.submodule_search_locations or []) if spec is not None else []
    libs = sorted(p for d in dirs for p in glob.glob(os.path.join(d, "cu*", "lib", "libnvrtc.so.*")))
    if not libs: return False
    ctypes.CDLL.__init__(lib.dll, libs[-1])
    lib.dll._loaded_.add(lib.dll.nm)
  from tinygrad.runtime.support.compiler_cuda import NVRTCCompiler
  NVRTCCompiler(arch).compile(src)
  return True

@functools.lru_cache(maxsize=16)   # AmdFit's measure and the caller's build compile one source once
def compile_source(src:str, arch:str) -> str:
  """Compile with the real toolchain and return the text to inspect: gfx* with clang -> AMDGPU assembly, sm_* with nvcc -> PTX (and
  with NVRTC, where it loads, as the GPU will). Raises CalledProcessError (CompileError: NVRTC's) with the compiler's messages on failure."""
  with tempfile.TemporaryDirectory() as d:
    if arch.startswith("gfx"):
      clang = os.environ.get("FA_UOP_CLANG") or amd_clang() or "clang"
      cmd = [clang, "-x", "hip", "--cuda-device-only", f"--offload-arch={arch}", "-nogpulib", "-nogpuinc", "-O3", "-S", "-o", f"{d}/out.s", f"{d}/k.hip"]
      fn, out = f"{d}/k.hip", f"{d}/out.s"
    else:
      # an arch-specific target (sm_90a: wgmma) needs the -gencode form; nvcc 13.0's -arch=sm_90a also runs a plain sm_90 pass
      gen = [f"-gencode=arch=compute_{arch[3:]},code=compute_{arch[3:]}"] if arch.endswith("a") else [f"-arch={arch}"]
      cmd = [_nvcc(), *gen, "-ptx", "-o", f"{d}/out.ptx", f"{d}/k.cu"]
      fn, out = f"{d}/k.cu", f"{d}/out.ptx"
    with open(fn, "w") as f: f.write(_with_device_libs(src) if arch.startswith("gfx") else src)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    if not arch.startswith("gfx"): nvrtc(src, arch)
    with open(out) as f: return f.read()
