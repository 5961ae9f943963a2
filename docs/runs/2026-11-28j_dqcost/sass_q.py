"""sm_90a SASS of the dK/dV kernel, D=128 N=16384 non-causal: python3 sass_q.py CONFIG OUT.sass (DQ_KNOB with knobs2.patch applied;
nvdisasm from `pip install nvidia-cuda-nvdisasm`, FA_UOP_NVDISASM names it)"""
import os, re, sys, subprocess, tempfile
sys.path.insert(0, os.getcwd())
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_bwd_dkdv, BwdConfig
from fa_uop.mods import Mods
from fa_uop.compile import render, _nvcc
D, N, H = 128, 16384, 16
big, rows, acc = ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float), ((1, H, N, D), dtypes.float)
c = sys.argv[1]; cfg = BwdConfig.parse(c)
shapes = [big]*4 + [rows]*2 + [big]*2 + ([acc] if cfg.dq else [])
src = render(flash_bwd_dkdv(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)], target=SM90A, cfg=cfg, mods=Mods(causal=False)), "sm_90a")
nvd = os.environ.get("FA_UOP_NVDISASM", "nvdisasm")
with tempfile.TemporaryDirectory() as d:
  open(f"{d}/k.cu", "w").write(src)
  subprocess.run([_nvcc(), "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-o", f"{d}/k.cubin", f"{d}/k.cu"], check=True, capture_output=True)
  out = subprocess.run([nvd, "-c", f"{d}/k.cubin"], check=True, capture_output=True, text=True).stdout
open(sys.argv[2], "w").write(out)
