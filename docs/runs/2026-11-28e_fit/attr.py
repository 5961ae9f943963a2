# python attr.py arch file.hip ATTR... -> vgpr/spill for each attribute string added to the kernel
import sys, re, subprocess, tempfile; sys.path.insert(0, '.')
from fa_uop.compile import _with_device_libs
from concurrent.futures import ThreadPoolExecutor
arch, f, attrs = sys.argv[1], sys.argv[2], sys.argv[3:]
src = open(f).read()
def one(a):
  s = src.replace('void __attribute__((amdgpu_flat_work_group_size', f'void {a} __attribute__((amdgpu_flat_work_group_size', 1)
  with tempfile.TemporaryDirectory() as d:
    open(f"{d}/k.hip", "w").write(_with_device_libs(s))
    r = subprocess.run(["clang-22", "-x", "hip", "--cuda-device-only", f"--offload-arch={arch}", "-nogpulib", "-nogpuinc", "-O3", "-S", "-o", f"{d}/o.s", f"{d}/k.hip"], capture_output=True, text=True)
    if r.returncode: return f"{a}: ERR {r.stderr[-300:]}"
    o = open(f"{d}/o.s").read()
  g = lambda k: (m.group(1) if (m:=re.search(rf"\.{k}:\s+(\d+)", o)) else '?')
  return f"{f.split('/')[-1]} {a}: vgpr {g('vgpr_count')} spill {g('vgpr_spill_count')}"
with ThreadPoolExecutor(2) as ex:
  for l in ex.map(one, attrs): print(l, flush=True)
