import sys; sys.path.insert(0, sys.argv[1])
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from fa_uop import default_fwd_config, SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4
from fa_uop.config import candidates, default_decode_config
for t in (SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4, CDNA3.fp8 or CDNA3, SM90A.fp8 or SM90A):
  for D in range(16, 257, 16):
    for causal in (False, True):
      for n in (None, 1024, 16384):
        print(t.arch, D, causal, n, default_fwd_config(t, D, causal, n, n), default_fwd_config(t, D, causal, n, n, "window"), [str(c) for c in candidates(t, D)])
