# python cfgs.py > out: every target's default configs (forward causal and not, under each test mods tag; dK/dV and dQ; decoding of
# 1-64 rows) and the tuner's candidates at D=16-256, one line each, to diff before and after a change of rules
import sys; sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
from fa_uop import RDNA3, RDNA4, CDNA3, CDNA4, SM80, SM90A
from fa_uop.config import default_fwd_config, default_bwd_configs, default_decode_config, candidates
from test_compile import masked_mods, MODS
tags = ["", "causal", masked_mods().tag, *[masked_mods((m,)).tag for m in MODS]]
for t in (RDNA3, RDNA4, CDNA3, CDNA4, SM80, SM90A):
  for tt in (t, t.fp8) if t.fp8 else (t,):
    for d in range(16, 257, 16):
      try:
        print(tt.arch, tt.in_dtypes[0], d, [str(default_fwd_config(tt, d, c, mods=g)) for c in (False, True) for g in tags],
              [tuple(map(str, default_bwd_configs(tt, d, g))) for g in tags], [str(default_decode_config(tt, d, r)) for r in (1, 4, 16, 32, 64)],
              [str(c) for c in candidates(tt, d)], [str(c) for g in tags[2:] for c in candidates(tt, d, g)])
      except Exception as e: print(tt.arch, d, "error", type(e).__name__, e)
