"""Render and compile kernels for a target without its GPU: the generated HIP or CUDA source, and the real compilers' output."""
from __future__ import annotations
import os, shutil, subprocess, tempfile
from tinygrad import UOp
from tinygrad.codegen import full_rewrite_to_sink, line_rewrite, pm_linearize_cleanups
from tinygrad.codegen.late.linearizer import linearize
from tinygrad.helpers import Target as TgTarget
from tinygrad.renderer.cstyle import HIPCCRenderer, NVCCRenderer

def render(sink:UOp, arch:str) -> str:
  """the source tinygrad generates for a kernel sink on arch ('gfx1100', 'sm_90', ...)"""
  ren = NVCCRenderer(TgTarget("CUDA", arch=arch)) if arch.startswith("sm_") else HIPCCRenderer(TgTarget("AMD", arch=arch))
  return ren.render(line_rewrite(linearize(full_rewrite_to_sink(sink, ren)), pm_linearize_cleanups))

def compile_source(src:str, arch:str) -> str:
  """Compile with the real toolchain and return the text to inspect: gfx* with clang -> AMDGPU assembly, sm_* with nvcc -> PTX.
  Raises CalledProcessError with the compiler's messages on failure."""
  with tempfile.TemporaryDirectory() as d:
    if arch.startswith("gfx"):
      clang = os.environ.get("FA_UOP_CLANG") or shutil.which("clang-15") or "clang"
      cmd = [clang, "-x", "hip", "--cuda-device-only", f"--offload-arch={arch}", "-nogpulib", "-nogpuinc", "-O3", "-S", "-o", f"{d}/out.s", f"{d}/k.hip"]
      fn, out = f"{d}/k.hip", f"{d}/out.s"
    else:
      cmd = [os.environ.get("FA_UOP_NVCC") or "nvcc", f"-arch={arch}", "-ptx", "-o", f"{d}/out.ptx", f"{d}/k.cu"]
      fn, out = f"{d}/k.cu", f"{d}/out.ptx"
    with open(fn, "w") as f: f.write(src)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(out) as f: return f.read()
