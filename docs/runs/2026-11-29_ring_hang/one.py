# one backward call at a shape and config pair, as the ring GPU test's check_kernels makes it (fp16, fresh inputs); prints max |grad|
import sys, numpy as np
from tinygrad import Tensor, dtypes
from fa_uop import BwdConfig, flash_attention, flash_attention_backward
kv, dq, B, H, Hkv, Nq, Nk, D, causal = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:9]), sys.argv[9] == "1"
cf = tuple(BwdConfig.parse(c) for c in (kv, dq))
r = np.random.default_rng(0)
rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize()
q, k, v, do = rand(B, H, Nq, D), rand(B, Hkv, Nk, D), rand(B, Hkv, Nk, D), rand(B, H, Nq, D)
o, lse = (x.realize() for x in flash_attention(q, k, v, causal=causal, return_lse=True))
g = flash_attention_backward(q, k, v, o, lse, do, causal=causal, configs=cf)
print(*[f"{np.abs(x.float().numpy()).max():.3g}" for x in g])
