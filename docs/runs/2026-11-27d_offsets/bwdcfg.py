import sys; sys.path.insert(0, sys.argv[1])
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from fa_uop import default_bwd_configs, SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4
for t in (SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4):
  for D in range(16, 257, 16): print(t.arch, D, *map(str, default_bwd_configs(t, D)))
