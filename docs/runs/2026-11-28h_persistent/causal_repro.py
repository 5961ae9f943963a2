"""Why the persistent forward takes no causal mask (journal, 2026-11-28 thirtieth session): in tinygrad 0.14 a loop whose trips are
made of an outer loop's index, followed by more work inside that outer loop, does not build. From the repository root:
python3 docs/runs/2026-11-28h_persistent/causal_repro.py > docs/runs/2026-11-28h_persistent/causal_repro.log"""
import sys, traceback; sys.path.insert(0, ".")
from tinygrad import UOp, dtypes
from tinygrad.uop.ops import AxisType, KernelInfo
from fa_uop.compile import render
buf = UOp.placeholder((64,), dtypes.float, 0)
for name, trips in (("inner trips fixed", lambda t: 4), ("inner trips made of the outer index", lambda t: t + 1)):
  t = UOp.range(4, 0, AxisType.LOOP)                 # a persistent block's tiles
  i = UOp.range(trips(t), 1, AxisType.REDUCE)        # a tile's KV loop
  kv = buf.index(t * 16 + i).store(1.0).end(i)
  epilogue = buf.index(t * 16 + 15).store(2.0)       # the tile's epilogue, after its KV loop, inside the tile loop
  try:
    src = render(UOp.group(kv, epilogue).end(t).sink(arg=KernelInfo(name="k", opts_to_apply=())).rtag(1), "sm_80")
    print(f"{name}: rendered, {src.count('for (')} loops")
  except Exception as e: print(f"{name}: {type(e).__name__} in {traceback.extract_tb(e.__traceback__)[-1].name}")
