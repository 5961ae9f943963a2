# monkeypatch: the warp's local id (lidx1, lidx2 where lidx0 spans whole waves) as a wave-uniform value (readfirstlane: an SGPR)
import re
from fa_uop import target as T
def patch(src, warp):
  m = re.search(r"int lidx0 = __ockl_get_local_id\(0\); /\* (\d+) \*/", src)
  if not m or int(m.group(1)) % warp: return src
  return re.sub(r"int (lidx[12]) = __ockl_get_local_id\(([12])\);", r"int \1 = __builtin_amdgcn_readfirstlane(__ockl_get_local_id(\2));", src)
for cls in (T.AmdRenderer, T.AmdCCRenderer):
  def render(self, uops, _o=cls.render): return patch(_o(self, uops), 32 if self.target.arch.startswith("gfx1") else 64)
  cls.render = render
