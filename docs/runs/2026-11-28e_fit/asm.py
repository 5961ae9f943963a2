# python asm.py arch D name -> writes /tmp/me/<arch>_<D>_<name>.s and .hip
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.')
import amd_resources as ar
from fa_uop.compile import render, compile_source
arch, D, name = sys.argv[1], int(sys.argv[2]), sys.argv[3].replace("+", " ")
make, cfg = ar.every(ar.TARGETS[arch], D, False)[name]
src = render(make(), arch)
asm = compile_source(src, arch)
base = f"/tmp/me/{arch}_{D}_{sys.argv[3]}"
open(base + ".hip", "w").write(src); open(base + ".s", "w").write(asm)
print(base)
