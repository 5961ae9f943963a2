# python cfgmods.py <repo>: every default config (forward, backward, candidates) per target, head dim, causal, lengths, mods tag
import sys, inspect; sys.path.insert(0, sys.argv[1])
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from fa_uop import default_fwd_config, default_bwd_configs, SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4
from fa_uop.config import candidates
new = "mods" in inspect.signature(default_bwd_configs).parameters
for t in (SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4, CDNA3.fp8 or CDNA3, SM90A.fp8 or SM90A):
  for D in range(16, 257, 16):
    for causal in (False, True):
      for m in ("", "w", "c", "s", "m", "wcsm"):
        tag = "_".join(x for x in ("causal" if causal else "", m) if x)
        bwd = default_bwd_configs(t, D, tag) if new else default_bwd_configs(t, D)
        cands = candidates(t, D, tag) if new else candidates(t, D)
        for n in (None, 1024, 16384):
          print(t.arch, D, causal, tag, n, default_fwd_config(t, D, causal, n, n, tag), *map(str, bwd), [str(c) for c in cands])
