# python ab.py "arch:D:name" ... -> spilled VGPRs as rendered, and with every global access a 32-bit unsigned byte offset (u32.py)
import sys, os, re, subprocess; sys.path.insert(0, 'scripts'); sys.path.insert(0, '.')
import amd_resources as ar
from fa_uop.compile import render, compile_source, resources
from multiprocessing import Pool
def u32(src):
  out, i = [], 0
  for m in re.finditer(r"\((data\d+_\d+)\+", src):
    if m.start() < i: continue
    j, depth = m.end(), 1
    while depth: depth += {"(": 1, ")": -1}.get(src[j], 0); j += 1
    out.append(src[i:m.start()] + f"AT({m.group(1)},{src[m.end():j-1]})"); i = j
  src = "".join(out) + src[i:]
  return src.replace('extern "C" __attribute__((global))', '#define AT(p, i) ((__typeof__(p))((char*)(p) + (unsigned)((i)*sizeof(*(p)))))\nextern "C" __attribute__((global))', 1)
def one(spec):
  arch, D, name = spec.split(":"); D = int(D)
  make, cfg = ar.every(ar.TARGETS[arch], D, False)[name]
  src = render(make(), arch)
  def f(s):
    r = resources(compile_source(s, arch))
    return r["vgpr_spill"] if r["scratch"] else f"0 ({r['vgpr']})"
  return f"{spec} {cfg}: {f(src)} -> {f(u32(src))}"
if __name__ == "__main__":
  with Pool(int(os.environ.get("J", 2))) as p:
    for line in p.imap(one, sys.argv[1:]): print(line, flush=True)
