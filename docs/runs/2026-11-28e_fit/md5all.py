# md5 of the renders (form 0: render's default) of many kernels on every target
import hashlib, sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from fa_uop import SM80, SM90A, CDNA3, CDNA4, RDNA3, RDNA4
from fa_uop.compile import render
import test_compile as tc
h = lambda s, a: hashlib.md5(render(s, a).encode()).hexdigest()[:8]
for t, a in ((SM80, "sm_80"), (SM90A, "sm_90"), (CDNA3, "gfx942"), (CDNA4, "gfx950"), (RDNA3, "gfx1100"), (RDNA4, "gfx1201")):
  for D in (64, 128, 240):
    print(a, D, h(tc.fwd_sink(t, D, True), a), *[h(s, a) for s in tc.bwd_sinks(t, D, False)], *[h(s, a) for s in tc.masked_sinks(t, D)[:3]],
          h(tc.decode_sinks(t, D, True, 8, 16)[0], a), flush=True)
