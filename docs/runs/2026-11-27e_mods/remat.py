# monkeypatch (an experiment, not landed): AMD renderers recompute, after the last top-level loop, the prologue's thread-id arithmetic
# the epilogue uses, from a fresh lane id (so clang cannot CSE it with the prologue's and hold it across the loops): an opaque copy
# of each local id (an empty asm volatile), or with LANE=mbcnt the lane's mbcnt where lidx0 spans exactly one wave
import os
from tinygrad.uop.ops import Ops, UOp, GroupOp
from fa_uop import target as T
OK = GroupOp.ALU | {Ops.CAST, Ops.BITCAST, Ops.CONST, Ops.SPECIAL, Ops.INDEX, Ops.SHRINK}
MBCNT, WARP = os.environ.get("LANE") == "mbcnt", [32]
def fresh(u):
  if MBCNT:
    if u.arg != "lidx0" or not u.src[0].vmin == u.src[0].vmax == WARP[0]: return u
    return UOp(Ops.CUSTOM, u.dtype, (u,), arg="(int)__builtin_amdgcn_mbcnt_lo(~0u, 0u)" if WARP[0] == 32 else
               "(int)__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))")
  if not u.arg.startswith("lidx"): return u
  return UOp(Ops.CUSTOM, u.dtype, (u,), arg='({{ int _t = {0}; __asm__ volatile("" : "+v"(_t)); _t; }})')
def remat(uops):
  depth, first, last = 0, None, None
  for i, u in enumerate(uops):
    if u.op is Ops.RANGE:
      if depth == 0 and first is None: first = i
      depth += 1
    elif u.op is Ops.END:
      depth -= 1
      if depth == 0: last = i
  if first is None or last is None: return uops
  pro, m, made = set(uops[:first]), {}, []
  def clone(u):
    if u in m: return m[u]
    new = u
    if u in pro and u.op in OK:
      if u.op is Ops.SPECIAL: new = fresh(u)
      elif (srcs:=tuple(clone(s) for s in u.src)) != u.src: new = u.replace(src=srcs)
      if new is not u: made.append(new)
    m[u] = new
    return new
  tail = []
  for u in uops[last + 1:]:
    srcs = tuple(m[s] if s in m else clone(s) for s in u.src)
    m[u] = nu = u.replace(src=srcs) if srcs != u.src else u
    tail.append(nu)
  return uops[:last + 1] + made + tail
for cls in (T.AmdRenderer, T.AmdCCRenderer):
  def render(self, uops, _o=cls.render):
    WARP[0] = 32 if self.target.arch.startswith("gfx1") else 64
    return _o(self, remat(uops))
  cls.render = render
