# python ev.py arch:D:name ... -> resources of amd_resources.every's kernels at the working tree
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.')
import amd_resources as ar
for spec in sys.argv[1:]:
  arch, D, name = spec.split(":"); D = int(D)
  line, r = ar.row((arch, D, name, False, True))
  print(arch, D, name, {k: r[k] for k in ("vgpr", "agpr", "lds", "scratch", "vgpr_spill")}, flush=True)
