"""One forward at a small shape with a given config (argv[1], e.g. 64x64x4tr2), checked against float64: for compute-sanitizer's tools on
the warp-specialised and bulk-copy kernels (scripts/ws_sanitize.sh). Causal, GQA, tails on both sides; the ring wraps several times."""
import sys
import numpy as np
from tinygrad import Tensor, dtypes
from fa_uop import flash_attention, FwdConfig
from fa_uop.reference import attention_ref

cfg, r = FwdConfig.parse(sys.argv[1]), np.random.default_rng(0)
q, k, v = (Tensor(r.standard_normal(s).astype(np.float32)).cast(dtypes.half).contiguous().realize() for s in ((1, 2, 200, 128), (1, 1, 500, 128), (1, 1, 500, 128)))
for causal in (True, False):
  o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, config=cfg)
  ref_o, ref_lse = attention_ref(*(t.float().numpy() for t in (q, k, v)), causal)
  err = np.abs(o.float().numpy() - ref_o).max()
  print(f"{cfg} causal={causal}: max abs err {err:.2e} lse err {np.abs(lse.numpy() - ref_lse).max():.2e} {'ok' if err < 2e-2 else 'BAD'}")
