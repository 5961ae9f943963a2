# python md5bwd.py <repo>: md5 of the NVIDIA backward kernels (dK/dV, dQ; causal and not) at every head dim, and the masked ones at 64/128
import hashlib, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests")
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from fa_uop import SM90A, SM80
from fa_uop.compile import render
import test_compile as tc
for t, arch in ((SM80, "sm_80"), (SM90A, "sm_90a")):
  for D in range(16, 257, 16):
    for causal in (False, True):
      for name, s in zip(("dkdv", "dq"), tc.bwd_sinks(t, D, causal)): print(arch, D, causal, name, hashlib.md5(render(s, arch).encode()).hexdigest(), flush=True)
  for D in (64, 128):
    for name, s in zip(("fwd", "dkdv", "dq"), tc.masked_sinks(t, D)[:3]): print(arch, D, "masked", name, hashlib.md5(render(s, arch).encode()).hexdigest(), flush=True)
