# python mcfg.py arch D fwd|dkdv|dq CFG [only,...] -> resources of masked_sinks' kernel at config CFG
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
import test_compile as tc
from fa_uop.config import FwdConfig, BwdConfig
from fa_uop.compile import render, compile_source, resources
import amd_resources as ar
arch, D, kind, cfg = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
only = tuple(sys.argv[5].split(",")) if len(sys.argv) > 5 else tuple(tc.MODS)
t = ar.TARGETS[arch]
f0, b0 = tc.default_fwd_config, tc.default_bwd_configs
if kind == "fwd": tc.default_fwd_config = lambda *a, **k: FwdConfig.parse(cfg)
elif kind == "dkdv": tc.default_bwd_configs = lambda *a, **k: (BwdConfig.parse(cfg), b0(*a, **k)[1])
else: tc.default_bwd_configs = lambda *a, **k: (b0(*a, **k)[0], BwdConfig.parse(cfg))
sink = tc.masked_sinks(t, D, only=only)[("fwd", "dkdv", "dq").index(kind)]
r = resources(compile_source(render(sink, arch), arch))
print(arch, D, kind, cfg, ",".join(only), r["vgpr"], "VGPRs", r["vgpr_spill"], "spilled")
