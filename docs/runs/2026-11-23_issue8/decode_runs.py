#!/usr/bin/env python3
"""The decode issue's H100 runs in one process: the issue's three shapes (fp16, D=128, 32 query heads over 8 KV heads, one new
query), FA2 and cuDNN beside fa_uop's automatic choice (verified), then fa_uop alone with each tile in CONFIGS and split count in
SPLITS (0: automatic), dense and with PAGES; rows as JSON lines under OUT and a table last. Run from the repository root."""
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench
from tinygrad.helpers import getenv
from fa_uop import FwdConfig

SHAPES = [tuple(map(int, s.split(":"))) for s in getenv("SHAPES", "8:4096,8:32768,1:131072").split(",")]
CONFIGS = [FwdConfig(*map(int, c.split("x"))) for c in getenv("CONFIGS", "").split(",") if c]
SPLITS = [int(s) for s in getenv("SPLITS", "0").split(",") if s]
PAGES = [int(s) for s in getenv("PAGES", "0").split(",") if s]

def main() -> int:
  out, cnt = getenv("OUT", "out"), getenv("CNT", 30)
  os.makedirs(out, exist_ok=True)
  rows = []
  for B, Nk in SHAPES:
    rows += bench.measure_decode(B, 32, 8, 1, Nk, 128, False, 0, "half", cnt, True, [p for p in getenv("PEERS", "torch_flash,torch_cudnn").split(",") if p])
    for cfg in CONFIGS:
      for page in PAGES:
        for s in SPLITS: rows += bench.measure_decode(B, 32, 8, 1, Nk, 128, False, page, "half", cnt, False, [], splits=s, cfg=cfg)
  with open(f"{out}/decode_runs.jsonl", "w") as f: f.writelines(json.dumps(r) + "\n" for r in rows)
  print("\n| B | Nk | impl | config | page | splits | us | GB/s | ok |\n|---|---|---|---|---|---|---|---|---|")
  for r in rows: print(f"| {r['B']} | {r['Nk']} | {r['impl']} | {r['config'] or '-'} | {r['page'] or '-'} | {r['splits'] or '-'} | {r['ms']*1e3:.1f} | {r['gbps']:.0f} | {r['ok']} |")
  return 0 if all(r["ok"] is not False for r in rows) else 1

if __name__ == "__main__": sys.exit(main())
