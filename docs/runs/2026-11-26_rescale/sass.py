# render the fp8 forward (D=128, non-causal, bulk copies) for the configs named, write each kernel's source under $OUT (nvcc and
# cuobjdump then give its SASS on the GPU machine); FA_RESCALE as fa_uop.forward reads it
import os, sys
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_fwd, FwdConfig
from fa_uop.compile import render
D, N, f8 = int(os.environ.get("D", 128)), 4096, dtypes.fp8e4m3
for c in sys.argv[1:]:
  cfg = FwdConfig.parse(c)
  specs = [((1, 16, N, D), f8), ((1, 16, N, D), f8), ((1, 16, D, N), f8), ((1, 16, N, D), dtypes.bfloat16), ((1, 16, N), dtypes.float)] + \
    [((1, 16), dtypes.float)] * 3 + ([((32,), dtypes.uint64)] if cfg.tma else [])
  src = render(flash_fwd(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(specs)], target=SM90A, cfg=cfg, tma=cfg.tma), "sm_90a")
  open(f"{os.environ.get('OUT', '/tmp')}/fp8_{c}_d{D}.cu", "w").write(src)
