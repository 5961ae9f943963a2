#!/usr/bin/env python3
"""Developer tool for the GPU: time the forward kernel with fast paths switched off one at a time and with other tile configs,
each checked against tinygrad's SDPA in float32 on the first batch entry. Prints one line per run and a JSON line with JSON=1.
  VARIANTS=full,no_copy,no_ldsm,twin CONFIGS=64x64x4,128x64x8 DS=64,128 CAUSALS=0,1 DTYPES=half N=4096 python3 scripts/fwd_variants.py"""
import os, sys, functools, json, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DEV", "CUDA")
from dataclasses import replace
import numpy as np
from tinygrad import Tensor, Device, dtypes, Context
from tinygrad.helpers import getenv
from fa_uop import flash_fwd, FwdConfig, target_for
from fa_uop.timing import gpu_time

VARIANTS = {"full": lambda t: t, "no_copy": lambda t: replace(t, copy16=None, copy_wait=None),
            "no_ldsm": lambda t: replace(t, ldsm=None, ldsm_addr=None), "twin": lambda t: replace(t.portable(), shuffle=t.shuffle)}

def run(D:int, causal:bool, dtype, variant:str, cfg:FwdConfig, N:int, cnt:int) -> dict:
  H, B = getenv("H", 2048 // D), getenv("B", 16384 // N)
  q, k, v = [Tensor.randn(B, H, N, D, dtype=dtypes.float32).cast(dtype).contiguous().realize() for _ in range(3)]
  target = VARIANTS[variant](target_for(Device.DEFAULT))
  def call():
    o, lse = Tensor.empty(B, H, N, D, dtype=dtype), Tensor.empty(B, H, N, dtype=dtypes.float32)
    return Tensor.custom_kernel(q, k, v, o, lse, fxn=functools.partial(flash_fwd, target=target, cfg=cfg, causal=causal))[3].realize()
  st = time.perf_counter()
  with Context(CACHELEVEL=0): out = call()
  Device[Device.DEFAULT].synchronize()
  compile_s = time.perf_counter() - st
  sec, _ = gpu_time(call, cnt)
  ref = q[:1].float().scaled_dot_product_attention(k[:1].float(), v[:1].float(), is_causal=causal).numpy()
  err = float(np.abs(out[:1].float().numpy() - ref).max())
  flops = 4 * B * H * N * N * D / (2 if causal else 1)
  return dict(D=D, causal=causal, dtype=dtype.name, variant=variant, cfg=f"{cfg.block_m}x{cfg.block_n}x{cfg.warps}", N=N, ms=sec * 1e3,
              tflops=flops / sec * 1e-12, compile_s=compile_s, max_abs_err=err)

if __name__ == "__main__":
  N, cnt = getenv("N", 4096), getenv("CNT", 10)
  cfgs = [FwdConfig(*map(int, c.split("x"))) for c in getenv("CONFIGS", "64x64x4").split(",")]
  for dt in getenv("DTYPES", "half").split(","):
    for D in map(int, getenv("DS", "64,128").split(",")):
      for causal in map(int, getenv("CAUSALS", "0,1").split(",")):
        for variant in getenv("VARIANTS", "full").split(","):
          for cfg in cfgs:
            try: r = run(D, bool(causal), {"half": dtypes.half, "bfloat16": dtypes.bfloat16}[dt], variant, cfg, N, cnt)
            except Exception as e:
              print(f"D={D} causal={causal} {dt} {variant} {cfg}: FAILED {type(e).__name__}: {str(e).splitlines()[0][:200]}", flush=True)
              continue
            print(f"D={r['D']:3d} causal={causal} {dt:8s} {variant:8s} {r['cfg']:9s} {r['ms']:8.3f} ms {r['tflops']:7.1f} TFLOPS "
                  f"compile {r['compile_s']:5.1f} s  max err {r['max_abs_err']:.1e}" + ("  BAD" if r["max_abs_err"] > 2e-2 else ""), flush=True)
            if getenv("JSON", 0): print(json.dumps(r), flush=True)
