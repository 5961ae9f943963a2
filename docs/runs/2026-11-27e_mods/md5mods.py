import hashlib, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests")
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from fa_uop import SM90A, SM80
from fa_uop.compile import render
import test_compile as tc
for t, arch in ((SM80, "sm_80"), (SM90A, "sm_90a")):
  for D in (64, 128):
    for only in (("window",), ("softcap",), ("score_mod",), ("mask_mod",), tuple(tc.MODS)):
      for name, s in zip(("fwd", "dkdv", "dq"), tc.masked_sinks(t, D, only=only)[:3]):
        print(arch, D, ",".join(only), name, hashlib.md5(render(s, arch).encode()).hexdigest(), flush=True)
