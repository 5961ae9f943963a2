# python nvres.py <repo>: ptxas's resources (sm_90a, sm_80) of the kernels that take the forward's unstaged epilogue: fp8 forwards and decoding
import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests")
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from tinygrad import UOp, dtypes
from fa_uop import SM90A, SM80, flash_fwd, default_fwd_config
from fa_uop.compile import render, cuda_resources
import test_compile as tc
ps = lambda shapes: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
for t, arch in ((SM90A, "sm_90a"), (SM80, "sm_80")):
  for D in (64, 128, 256):
    if t.fp8 is not None:
      dt, c8 = t.fp8.in_dtypes[0], default_fwd_config(t.fp8, D, True, 4096, 4096)
      sh = [((2, 4, 4096, D), dt), ((2, 2, 4096, D), dt), ((2, 2, D, 4096) if c8.reads_vt(t.fp8, D) else (2, 2, 4096, D), dt), ((2, 4, 4096, D), dtypes.bfloat16), ((2, 4, 4096), dtypes.float)] + [((2, 2), dtypes.float)] * 3
      print(arch, D, "fp8", c8, cuda_resources(render(flash_fwd(*ps(sh), target=t, cfg=c8, causal=True), arch), arch), flush=True)
    for name, s in (("decode split", tc.decode_sinks(t, D, True, 8, H=8)[0]), ("decode paged", tc.decode_sinks(t, D, False, 1, 16, H=32, Hkv=2, Nq=4)[0])):
      print(arch, D, name, cuda_resources(render(s, arch), arch), flush=True)
