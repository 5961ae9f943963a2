import sys, os; sys.path.insert(0,'scripts'); sys.path.insert(0,'.')
from amd_resources import ps, TARGETS
from tinygrad import dtypes
from fa_uop import flash_bwd_dq
from fa_uop.config import BwdConfig
from fa_uop.compile import render, compile_source, resources
arch, D, c, causal = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
NQ = int(os.environ.get("NQ", os.environ.get("N", 1000))); NK = int(os.environ.get("NK", os.environ.get("N", 1000))); N = NQ
q, kv, rows = ((2, 4, NQ, D), dtypes.half), ((2, 2, NK, D), dtypes.half), ((2, 4, NQ), dtypes.float)
s = flash_bwd_dq(*ps([q, kv, kv, q, rows, rows, q]), target=TARGETS[arch], cfg=BwdConfig.parse(c), causal=causal)
src = render(s, arch); tag = os.environ.get("TAG", "x"); open(f"/tmp/me/dq_{tag}.hip", "w").write(src)
asm = compile_source(src, arch); open(f"/tmp/me/dq_{tag}.s", "w").write(asm)
print(arch, D, c, causal, N, resources(asm), flush=True)
