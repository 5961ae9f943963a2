import hashlib, sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from tinygrad import dtypes
from fa_uop import SM80, SM90A, RDNA3, RDNA4, CDNA3
from fa_uop.config import FwdConfig, BwdConfig
from fa_uop.compile import render
import test_compile as tc
h = lambda s, a: hashlib.md5(render(s, a).encode()).hexdigest()
for t, a in ((RDNA3, "gfx1100"), (RDNA4, "gfx1201"), (SM80, "sm_80"), (SM90A, "sm_90a"), (CDNA3, "gfx942")):
  for D in (48, 64, 128, 176, 208):
    for c in (True, False):
      print(a, D, c, "fwd", h(tc.fwd_sink(t, D, c), a), "fwd split", h(tc.fwd_sink(t, D, c, cfg=FwdConfig(32, 32, 4, split=2)), a),
            *[h(s, a) for s in tc.bwd_sinks(t, D, c)], *[h(s, a) for s in tc.bwd_sinks(t, D, c, cfgs=(BwdConfig(16, 32, 2, split=2),) * 2)], flush=True)
  print(a, "masked", *[h(s, a) for s in tc.masked_sinks(t, 64)[:3]], flush=True)
  print(a, "decode", *[h(s, a) for s in tc.decode_sinks(t, 64, True, 8, H=8)], flush=True)
