# registers, local memory and blocks an SM (the CUDA driver's occupancy calculator) of each fa_uop kernel as the driver loads it
# (nvrtc's PTX, the driver's ptxas), for the backward of scripts/profile_bwd.py's case (causal, true, doc). Usage: python3 scripts/kernel_regs.py doc
import ctypes, os, runpy, sys
from tinygrad.runtime import ops_cuda
from tinygrad.runtime.autogen import cuda
init, seen = ops_cuda.CUDAProgram.__init__, set()
def patched(self, *args, **kw):
  init(self, *args, **kw)
  if self.name.startswith("fa_") and self.name not in seen:
    seen.add(self.name)
    regs, local, blocks = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    cuda.cuFuncGetAttribute(ctypes.byref(regs), cuda.CU_FUNC_ATTRIBUTE_NUM_REGS, self.prg)
    cuda.cuFuncGetAttribute(ctypes.byref(local), cuda.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, self.prg)
    cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(blocks), self.prg, 128, self.smem)
    print(f"{self.name}: {regs.value} registers, {local.value} bytes local, {blocks.value} blocks an SM at 128 threads and {self.smem} bytes of dynamic LDS", flush=True)
ops_cuda.CUDAProgram.__init__ = patched
runpy.run_path(os.path.join(os.path.dirname(__file__), "profile_bwd.py"), run_name="__main__")
