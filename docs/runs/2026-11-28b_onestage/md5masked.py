# [T=sm_80,gfx942] python3 md5masked.py [D ...] (from a repository root) -> md5 of the masked kernels (all mods, and each alone) per target and head dim
import hashlib, os, sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from fa_uop import SM80, SM90A, RDNA3, RDNA4, CDNA3
from fa_uop.compile import render
import test_compile as tc
h = lambda s, a: hashlib.md5(render(s, a).encode()).hexdigest()[:8]
for t, a in ((RDNA3, "gfx1100"), (RDNA4, "gfx1201"), (SM80, "sm_80"), (SM90A, "sm_90a"), (CDNA3, "gfx942")):
  if os.environ.get("T") and a not in os.environ["T"].split(","): continue
  for D in map(int, sys.argv[1:] or (64, 128, 144, 256)):
    for only in (tuple(tc.MODS), *((m,) for m in tc.MODS)):
      print(a, D, "+".join(only), *[h(s, a) for s in tc.masked_sinks(t, D, only=only)[:3]], flush=True)
