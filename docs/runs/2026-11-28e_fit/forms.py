# python forms.py arch D kernel-name form,form ...: VGPRs / spilled / scratch of one --every kernel in each given AMD form ('-': as is)
import sys, os; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.'); sys.path.insert(0, 'tests')
import amd_resources as ar
from fa_uop.compile import renderer, linear, compile_source, resources
arch, D, name = sys.argv[1], int(sys.argv[2]), sys.argv[3].replace("+", " ")
sink = ar.every(ar.TARGETS[arch], D, False)[name][0]()
for f in sys.argv[4:]:
  form = tuple(x for x in f.split(",") if x and x != "-")
  r = resources(compile_source(renderer(arch).render_as(linear(sink, arch), form), arch))
  print(arch, D, name, form, f"{r['vgpr']} VGPRs, {r['vgpr_spill']} spilled, scratch {r['scratch']}", flush=True)
