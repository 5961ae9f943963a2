#!/usr/bin/env python3
"""Turn bench.py JSON lines (JSON=1 output) into the markdown table docs/perf.md keeps: one row per shape, peers beside fa_uop."""
import json, sys
from collections import OrderedDict

def main(paths:list[str]) -> None:
  rows: OrderedDict = OrderedDict()
  for p in paths:
    for line in open(p):
      if not line.startswith("{"): continue
      r = json.loads(line)
      key = (r["B"], r["H"], r["Hkv"], r["N"], r["Nk"], r["D"], r["causal"], r["dtype"])
      rows.setdefault(key, {})[r["impl"]] = r
  peers = [p for p in ("tinygrad", "torch_flash", "torch_cudnn") if any(p in v for v in rows.values())]
  print("| B | H | Hkv | Nq | Nk | D | causal | dtype | fa_uop TFLOPS | fa_uop ms | compile s | max abs err | rel err | ok | "
        + " | ".join(f"{p} TFLOPS" for p in peers) + " |")
  print("|" + "---|" * (14 + len(peers)))
  for (B, H, Hkv, N, Nk, D, causal, dt), v in rows.items():
    f = v.get("fa_uop", {})
    fmt = lambda x, s: "–" if x is None else format(x, s)
    print(f"| {B} | {H} | {Hkv} | {N} | {Nk} | {D} | {causal} | {dt} | {fmt(f.get('tflops'), '.1f')} | {fmt(f.get('ms'), '.3f')} | "
          f"{fmt(f.get('compile_s'), '.1f')} | {fmt(f.get('max_abs_err'), '.1e')} | {fmt(f.get('rel_err'), '.1e')} | {f.get('ok', '–')} | "
          + " | ".join(fmt(v[p]["tflops"] if p in v else None, ".1f") for p in peers) + " |")

if __name__ == "__main__": main(sys.argv[1:])
