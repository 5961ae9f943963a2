import hashlib, sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from fa_uop import SM80, SM90A, CDNA3, CDNA4
from fa_uop.compile import render
import test_compile as tc
h = lambda s, a: hashlib.md5(render(s, a).encode()).hexdigest()[:8]
for t, a in ((SM80, "sm_80"), (SM90A, "sm_90"), (CDNA3, "gfx942"), (CDNA4, "gfx950")):
  for D in (64, 128):
    print(a, D, *[h(s, a) for s in tc.masked_sinks(t, D)[:3]], *[h(s, a) for s in tc.masked_sinks(t, D, only=("window",))[1:3]], flush=True)
