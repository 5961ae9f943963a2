# python dump.py arch D name out -> out.hip, out.s of amd_resources.every's kernel
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.')
import amd_resources as ar
from fa_uop.compile import render, compile_source, resources
arch, D, name, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
make, cfg = ar.every(ar.TARGETS[arch], D, False)[name]
src = render(make(), arch); open(out + ".hip", "w").write(src)
asm = compile_source(src, arch); open(out + ".s", "w").write(asm)
r = resources(asm); print(cfg, {k: r[k] for k in ("vgpr", "agpr", "lds", "scratch", "vgpr_spill")})
