import hashlib, sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from fa_uop import SM80, SM90A, RDNA3, RDNA4, CDNA3
from fa_uop.compile import render
import test_compile as tc
h = lambda s, a: hashlib.md5(render(s, a).encode()).hexdigest()[:8]
for t, a in ((RDNA3, "gfx1100"), (SM80, "sm_80"), (SM90A, "sm_90a"), (CDNA3, "gfx942")):
  for D in (128, 144, 256):
    print(a, D, *[h(tc.bwd_sinks(t, D, c)[0], a) for c in (True, False)], h(tc.masked_sinks(t, D, only=("window",))[1], a), flush=True)
