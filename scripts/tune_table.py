"""Makes fa_uop/tuned.py, the table of the tuner's picks that the forward uses by default: on a GPU, runs the tuner (every candidate
config timed) on each shape of a grid and writes the table for this device's target with the commit, the device and the command.
  DEV=CUDA python3 scripts/tune_table.py [OUT_DIR]   (the grid: the FA2 paper's 12 sweep shapes and D=256's 6 (B·N = 16k, H·D = 2048);
  DS=256: those head dims only; GRID=quick: 2 shapes)
Writes OUT_DIR/tuned.py (copy it over fa_uop/tuned.py, merging other targets' rows) and OUT_DIR/tune_ms.json (every candidate's time)."""
import json, os, subprocess, sys, tempfile, time
os.environ["FA_UOP_TUNE"] = "1"
os.environ["FA_UOP_CACHE"] = cache = os.path.join(tempfile.mkdtemp(), "tune.json")   # an empty cache: every class timed here
import numpy as np
from tinygrad import Device, Tensor, dtypes
from fa_uop import target_for
from fa_uop.api import fwd_config_for
from fa_uop.config import shape_class

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
grid = [(16384 // N, 2048 // D, N, D, causal) for D in map(int, os.environ.get("DS", "64,128,256").split(",")) for causal in (False, True)
        for N in (1024, 4096, 16384)]
if os.environ.get("GRID") == "quick": grid = grid[:2]
target, table = target_for(Device.DEFAULT), {}
for B, H, N, D, causal in grid:
  q, k, v = (Tensor.empty(B, H, N, D, dtype=dtypes.half).contiguous().realize() for _ in range(3))
  st = time.perf_counter()
  cfg = fwd_config_for(q, k, v, causal=causal)
  table[shape_class(D, N, N, causal)] = str(cfg)
  print(f"B={B} H={H} N={N} D={D} causal={causal}: {cfg} ({time.perf_counter() - st:.1f} s)", flush=True)
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
rows = "".join(f'  "{c}": "{cfg}",\n' for c, cfg in sorted(table.items()))
doc = open(os.path.join(os.path.dirname(__file__), "..", "fa_uop", "tuned.py")).read().split("TABLE")[0].split("\n# ")[0].rstrip("\n")
with open(os.path.join(out, "tuned.py"), "w") as f:
  f.write(f'{doc}\n# {target.arch}: DEV={Device.DEFAULT}, the kernels of {commit}, {time.strftime("%Y-%m-%d")}: '
          f'DEV={Device.DEFAULT} python3 scripts/tune_table.py (every candidate\'s time: tune_ms.json beside it)\n'
          f'TABLE: dict[str, dict[str, str]] = {{"{target.arch}": {{\n{rows}}}}}\n')
with open(os.path.join(out, "tune_ms.json"), "w") as f: json.dump(json.load(open(cache)), f, indent=1, sort_keys=True)
print(open(os.path.join(out, "tuned.py")).read())
