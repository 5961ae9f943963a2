# python md5fwd.py <repo> [archs]: md5 of the forward-side kernels (forward causal and not, bf16, masked, each candidate, decoding split and
# paged) at every head dim, on the NVIDIA targets (or the AMD ones named)
import hashlib, os, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests")
import fa_uop; assert fa_uop.__file__.startswith(sys.argv[1])
from tinygrad import dtypes
from fa_uop import SM90A, SM80, RDNA3, RDNA4, CDNA3, CDNA4
from fa_uop.config import candidates
from fa_uop.compile import render
import test_compile as tc
T = {"sm_80": SM80, "sm_90a": SM90A, "gfx1100": RDNA3, "gfx1201": RDNA4, "gfx942": CDNA3, "gfx950": CDNA4}
for arch in (sys.argv[2].split(",") if len(sys.argv) > 2 else ("sm_80", "sm_90a")):
  t = T[arch]
  for D in ([int(x) for x in os.environ["DS"].split(",")] if os.environ.get("DS") else range(16, 257, 16)):
    h = lambda s: hashlib.md5(render(s, arch).encode()).hexdigest()
    ks = {"fwd causal": lambda: tc.fwd_sink(t, D, True), "fwd": lambda: tc.fwd_sink(t, D, False), "fwd bf16": lambda: tc.fwd_sink(t, D, True, dtypes.bfloat16),
          "decode split": lambda: tc.decode_sinks(t, D, True, 8, H=8)[0], "decode paged": lambda: tc.decode_sinks(t, D, False, 1, 16, H=32, Hkv=2, Nq=4)[0]}
    if D in (64, 128): ks["masked fwd"] = lambda: tc.masked_sinks(t, D)[0]
    for c in candidates(t, D): ks[f"candidate {c}"] = lambda c=c: tc.fwd_sink(t, D, True, cfg=c)
    for name, mk in ks.items(): print(arch, D, name, h(mk()), flush=True)
