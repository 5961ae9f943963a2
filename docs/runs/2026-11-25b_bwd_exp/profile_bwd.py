# the backward of causal, causal through a block map (a mask_mod keeping everything) or the bench's document mask (B=1 H=16 N=16384
# D=128, the default configs), run twice: for Nsight Compute (scripts/bwd_profile.sh). Usage: python3 scripts/profile_bwd.py causal|true|doc
import os, sys
sys.path.insert(0, os.getcwd())
from tinygrad import Tensor, dtypes, Device
from fa_uop import flash_attention, flash_attention_backward
import bench
N, H, D = 16384, 16, 128
q, k, v, do = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(4)]
doc = Tensor(bench.Case(True, mask="document").data(1, H, N, N)["doc"]).realize()
kw = {"causal": dict(causal=True), "true": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: kj >= 0, mod_args=(doc,)),
      "doc": dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(doc,))}[sys.argv[1]]
o, lse = [t.realize() for t in flash_attention(q, k, v, return_lse=True, **kw)]
for _ in range(2): Tensor.realize(*flash_attention_backward(q, k, v, o, lse, do, **kw))
Device[Device.DEFAULT].synchronize()
