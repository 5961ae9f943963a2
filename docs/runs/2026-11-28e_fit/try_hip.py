# python try_hip.py file.hip arch -> VGPRs/spill of the hip source, and with the warp index uniform two ways
import sys, re; sys.path.insert(0, '.')
from fa_uop.compile import compile_source
src, arch = open(sys.argv[1]).read(), sys.argv[2]
def res(s):
  a = compile_source(s, arch)
  g = lambda k: re.search(rf"\.{k}:\s+(\d+)", a)
  return f"vgpr {g('vgpr_count').group(1)} spill {g('vgpr_spill_count').group(1) if g('vgpr_spill_count') else '?'} sgpr {g('sgpr_count').group(1)} sgpr_spill {g('sgpr_spill_count').group(1) if g('sgpr_spill_count') else '?'}"
print("as is     ", res(src))
rfl = re.sub(r"int lidx(\d) = __ockl_get_local_id\((\d)\);", lambda m: f"int lidx{m[1]} = {'__builtin_amdgcn_readfirstlane' if m[2] != '0' else ''}((int)__ockl_get_local_id({m[2]}));", src)
print("rfl       ", res(rfl))
loc = [int(x) for x in re.findall(r"int lidx\d = __ockl_get_local_id\(\d\); /\* (\d+) \*/", src)] + [1, 1]
req = src.replace('__attribute__((amdgpu_flat_work_group_size(', f'__attribute__((reqd_work_group_size({loc[0]}, {loc[1]}, {loc[2]}))) __attribute__((amdgpu_flat_work_group_size(', 1)
print("reqd      ", res(req))
