# compute-sanitizer on fp16 D=64's 224-key pick (scripts/sanitize_once.py's config families are D=128, where 224 keys exceed the LDS):
#   for t in memcheck racecheck synccheck; do compute-sanitizer --tool $t --error-exitcode 9 python3 s64.py; done   (DEV=CUDA FA_UOP_TUNE=0)
import numpy as np
from tinygrad import Tensor, dtypes
from fa_uop import flash_attention, FwdConfig
from fa_uop.reference import attention_ref
r = np.random.default_rng(0)
rand = lambda *s: Tensor(r.standard_normal(s).astype(np.float32)).cast(dtypes.half).contiguous().realize()
q, k, v = rand(1, 2, 200, 64), rand(1, 1, 500, 64), rand(1, 1, 500, 64)
host = lambda t: t.cast(dtypes.float32).numpy().astype(np.float64)
for causal in (False, True):
  o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, config=FwdConfig.parse("128x224x8tr2p"))
  ro, rl = attention_ref(host(q), host(k), host(v), causal)
  e = max(np.abs(host(o) - ro).max(), np.abs(lse.numpy() - rl).max()); print(f"D=64 128x224x8tr2p causal={causal}: max abs err {e:.2e}", "ok" if e < 2e-2 else "BAD")
