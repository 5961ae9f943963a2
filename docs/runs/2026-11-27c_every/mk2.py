# masked dK/dV at the default config with one modification at a time: python mk2.py arch D kind which
import sys, os, math; sys.path.insert(0, 'tests'); sys.path.insert(0, '.')
from tinygrad import UOp, dtypes
import test_compile as tc
from fa_uop.mods import Mods
from fa_uop import flash_bwd_dkdv, flash_fwd, flash_bwd_dq, default_bwd_configs, default_fwd_config
from fa_uop.compile import render, compile_source, resources
arch, D, kind, which = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t = tc.TARGETS[arch]; N, H, Hkv = 320, 4, 2
full = dict(causal=True, window=(100, None), softcap=30.0, score_mod=lambda s, b, h, qi, kj, sl, d: s + sl[h] * (kj - qi).cast(dtypes.float),
            mask_mod=lambda b, h, qi, kj, sl, d: d[b, qi].eq(d[b, kj]))
keep = {"window": ("causal", "window"), "softcap": ("causal", "softcap"), "alibi": ("causal", "score_mod"), "doc": ("causal", "mask_mod"), "all": tuple(full)}[which]
mods = Mods(**{k: v for k, v in full.items() if k in keep}, n_args=2)
q, kv, rows = ((2, H, N, D), dtypes.half), ((2, Hkv, N, D), dtypes.half), ((2, H, N), dtypes.float)
args = [((H,), dtypes.float), ((2, N), dtypes.int32)]
bm = mods.masks_more
bmap = lambda TR, TC, hx=H: [((2, 1, math.ceil(N / TR), 2), dtypes.int32), ((2, 1, math.ceil(N / TR), math.ceil(N / TC)), dtypes.int32), ((2 * hx * math.ceil(N / TR),), dtypes.int32)] if bm else []
ps = lambda shapes: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
c_fwd, (c_kv, c_q) = default_fwd_config(t, D, True), default_bwd_configs(t, D)
if os.environ.get("CFG"): c_kv = type(c_kv).parse(os.environ["CFG"])
s = flash_bwd_dkdv(*ps([q, kv, kv, q, rows, rows, kv, kv, *args, *bmap(c_kv.block_m, c_kv.block_n, Hkv)]), target=t, cfg=c_kv, mods=mods)
src = render(s, arch); open(f"/tmp/me/mk2_{which}.hip", "w").write(src)
asm = compile_source(src, arch); open(f"/tmp/me/mk2_{which}.s", "w").write(asm)
print(arch, D, which, c_kv, resources(asm), flush=True)
