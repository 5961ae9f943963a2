# No GPU: how ptxas schedules the fp8 ping-pong's softmax (D=128, non-causal, at 17ae8d3's source), as rendered and with the P·V
# statement's conversions moved by hand above the lazy rescale's branch and the turn's barrier (the barrier moved into the statement,
# after them). nvcc -cubin and nvdisasm (FA_UOP_NVDISASM; `pip install nvidia-cuda-nvdisasm`); prints the opcode runs from the wait
# for V to the last P·V wgmma. Run from the repository root.
import os, re, subprocess, tempfile
from tinygrad import UOp, dtypes
from fa_uop import SM90A, flash_fwd, FwdConfig
from fa_uop.compile import render
N, D, cfg = 16384, 128, FwdConfig.parse("128x128x8tr2p")
specs = [((1, 16, N, D), dtypes.fp8e4m3)] * 2 + [((1, 16, D, N), dtypes.fp8e4m3), ((1, 16, N, D), dtypes.bfloat16), ((1, 16, N), dtypes.float)]
specs += [((1, 16), dtypes.float)] * 3 + [((32,), dtypes.uint64)]
src = render(flash_fwd(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(specs)], target=SM90A, cfg=cfg, tma=True), "sm_90a")

def moved(src:str) -> str:
  L = src.split("\n")
  br = [i for i, l in enumerate(L) if " *= " in l][0] - 1   # the branch's statement loop: for, if, }
  bar = [i for i, l in enumerate(L) if 'bar.sync %0, 256' in l and i > br][0] - 1
  pv = [i for i, l in enumerate(L) if "cvt.rn.satfinite" in l and i > bar][0]
  k, j = L[pv].index('asm volatile("wgmma.fence'), L[pv].index("unsigned fa_wg")
  barrier = re.search(r'asm volatile\("bar.sync %0, 256;"[^;]*;', L[bar + 1]).group(0)
  return "\n".join(L[:br] + L[br + 3:bar] + ["    " + L[pv][j:k]] + L[br:br + 3] + L[bar + 3:pv] + [L[pv][:j] + barrier + " " + L[pv][k:]] + L[pv + 1:])

def runs(src:str) -> str:
  with tempfile.TemporaryDirectory() as d:
    open(f"{d}/k.cu", "w").write(src)
    subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-o", f"{d}/k.cubin", f"{d}/k.cu"], check=True, capture_output=True)
    sass = subprocess.run([os.environ.get("FA_UOP_NVDISASM", "nvdisasm"), "-c", f"{d}/k.cubin"], check=True, capture_output=True, text=True).stdout
  lines = sass.split("\n")
  lo = [i for i, l in enumerate(lines) if "TRYWAIT P" in l and "0x14010" in l][0]
  hi = [i for i, l in enumerate(lines) if "QGMMA" in l and ", R88" in l][-1]
  ops = [m.group(1) for l in lines[lo:hi + 1] if (m:=re.search(r"(MUFU\.EX2|F2FP|FADD|FFMA|FMUL|BAR\.SYNC|QGMMA|PRMT|FMNMX|BRA)", l))]
  out, prev, n = [], None, 0
  for op in ops + [None]:
    if op == prev: n += 1; continue
    if prev: out.append(f"{prev}x{n}")
    prev, n = op, 1
  return " ".join(out)
print("as rendered:", runs(src))
print("conversions above the branch and the barrier:", runs(moved(src)))
