# the forward of causal or the bench's document mask (B=1 H=16 N=16384 D=128, 64x32x4), run twice: for Nsight Compute (scripts/stalls.sh)
import os, sys
sys.path.insert(0, os.getcwd())
from tinygrad import Tensor, dtypes, Device
from fa_uop import flash_attention, FwdConfig
import bench
N, H, D = 16384, 16, 128
q, k, v = [Tensor.randn(1, H, N, D).cast(dtypes.half).contiguous().realize() for _ in range(3)]
doc = Tensor(bench.Case(True, mask="document").data(1, H, N, N)["doc"]).realize()
kw = dict(causal=True) if sys.argv[1] == "causal" else dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(doc,))
for _ in range(2): flash_attention(q, k, v, config=FwdConfig(64, 32, 4), **kw).realize()
Device[Device.DEFAULT].synchronize()
