# The fp8 forward at D=128 (non-causal, N=16384) as nvcc builds it for sm_90a: its SASS and opcode counts (scripts/hopper_regs.sass), per
# config: FA_UOP_NVDISASM=.../nvdisasm python3 docs/runs/2026-11-27_wide/fp8_sass.py 128x224x8tr2p (writes $SASS, default /tmp/me/sass)
import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
os.environ.setdefault("SASS", "/tmp/me/sass")
os.makedirs(os.environ["SASS"], exist_ok=True)
from hopper_regs import sass
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_fwd, FwdConfig
from fa_uop.compile import render
for c in sys.argv[1:]:
  cfg = FwdConfig.parse(c); dt, N, H, D = dtypes.fp8e4m3, 16384, 16, 128
  nkp = -(-(-(-N // cfg.block_n) * cfg.block_n) // 128) * 128
  shapes = [((1, H, N, D), dt), ((1, H, N, D), dt), ((1, H, D, nkp), dt), ((1, H, N, D), dtypes.half), ((1, H, N), dtypes.float)] + [((1, H), dtypes.float)] * 3
  shapes += [((32,), dtypes.uint64)] * cfg.tma
  sink = flash_fwd(*[UOp.placeholder(sh, d, i) for i, (sh, d) in enumerate(shapes)], target=SM90A, cfg=cfg, causal=False, tma=cfg.tma)
  src = render(sink, "sm_90a"); open(f"/tmp/me/sass/{c}.cu", "w").write(src)
  sass(src, f"fp8_{c}")
