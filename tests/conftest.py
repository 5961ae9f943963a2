import functools, os, shutil
# copying a multi-device tensor to numpy goes through tinygrad's CPU device, which compiles with $CC, clang's flags: a clang (.ci/run
# installs clang-22; the GPU machine sets CC to a gcc, which refuses --target, and has clang-16)
if "clang" not in os.environ.get("CC", "") and (cc:=next(filter(shutil.which, ("clang-22", *(f"clang-{v}" for v in range(30, 13, -1)))), None)):
  os.environ["CC"] = cc
# under xdist tinygrad gives each worker a compile pool of cores/workers processes (one on CI's two cores), which adds only its
# start and the kernels' pickling: compile in the worker itself
if "PYTEST_XDIST_WORKER_COUNT" in os.environ: os.environ.setdefault("PARALLEL", "0")
import numpy as np, pytest
from tinygrad import Tensor, Context, dtypes
from tinygrad.device import canonicalize_device
import fa_uop.api
from fa_uop import flash_fwd, target_for, FwdConfig, shard

# the emulated targets; FA_UOP_TARGETS=gfx942,... runs the tests on those only, each with what the default suite runs on sm_80
# (the newer AMD targets run a subset by default: the tests marked all_targets)
_ONLY = os.environ.get("FA_UOP_TARGETS")
EMULATED = tuple(_ONLY.split(",")) if _ONLY else ("gfx1100", "sm_80", "gfx942", "gfx950", "gfx1201")
NEWER = () if _ONLY else ("gfx942", "gfx950", "gfx1201")

def slow(*values):
  """a parameter set that runs only with FA_UOP_SLOW=1: the default suite keeps each feature covered within CI's time"""
  return pytest.param(*values, marks=pytest.mark.slow)

# @slow_on("gfx1100"[, keep=lambda params: ...]): on that emulated target the test (but the parameter sets keep accepts) runs
# only with FA_UOP_SLOW=1; the feature is covered by default on the other target, and the kernels it builds on both by other tests
slow_on = pytest.mark.slow_on

# @all_targets[(keep=lambda params: ...)]: the test (the parameter sets keep accepts) runs on the newer AMD targets by default too;
# together these cover every feature on each of them, the rest of the grid runs there with FA_UOP_SLOW=1
all_targets = pytest.mark.all_targets

def _slow_here(it) -> bool:
  if "slow" in it.keywords: return True
  spec = getattr(it, "callspec", None)
  emu = (spec.params.get("emu") or spec.params.get("dev")) if spec is not None else None   # dev: test_jit's emulator or GPU
  if emu in NEWER:
    on = it.get_closest_marker("all_targets")
    return on is None or not on.kwargs.get("keep", lambda p: True)(spec.params)
  on = it.get_closest_marker("slow_on")
  if on is None or emu not in on.args: return False
  return not on.kwargs.get("keep", lambda p: False)(spec.params)

def pytest_collection_modifyitems(config, items):
  """deselected, not skipped, so the summary's skips are only tests that could not run here: the slow grid unless FA_UOP_SLOW=1, and
  the tests marked gpu unless DEV names a GPU or -m picks them"""
  slow = os.environ.get("FA_UOP_SLOW", "0") != "1"
  gpu = os.environ.get("DEV", "").split(":")[0] in ("CUDA", "NV", "AMD") or config.option.markexpr
  keep = [not ((slow and _slow_here(it)) or (not gpu and "gpu" in it.keywords)) for it in items]
  if not all(keep):
    config.hook.pytest_deselected(items=[it for it, k in zip(items, keep) if not k])
    items[:] = [it for it, k in zip(items, keep) if k]

@pytest.fixture(params=EMULATED)
def emu(request):
  """run the test on tinygrad's emulator of one target; the PYTHON device picks its renderer from DEV at each compile"""
  with Context(DEV=f"PYTHON::{request.param}"): yield request.param

def devices(arch:str, n:int=2) -> tuple[str, ...]:
  """n emulated devices of one target, for Tensor.shard, named as tinygrad names them (the first without its ':0')"""
  return tuple(canonicalize_device(f"PYTHON::{arch}:{i}") for i in range(n))

@pytest.fixture
def no_kernel(monkeypatch):
  """every bad input must be refused before a kernel graph is built"""
  def boom(*a, **kw): raise AssertionError("a kernel was built for bad input")
  for name in ("flash_fwd", "flash_bwd_dkdv", "flash_bwd_dq", "flash_decode", "flash_combine"): monkeypatch.setattr(fa_uop.api, name, boom)
  fa_uop.api._decode_builders.cache_clear()

@pytest.fixture
def poisoned(monkeypatch):
  """the API's outputs (fa_uop.shard.empty: single-device, replicated or sharded) filled with NaN before its kernels run, so an
  element they leave unwritten fails the test"""
  def empty(ref, shape, dtype):
    return shard.alike(ref, shape, lambda s, d: nans(s, dtype, d))
  monkeypatch.setattr(shard, "empty", empty)

@pytest.fixture
def rng(request):
  """fresh random inputs every run; the seed is in the test's id on failure through the assertion messages"""
  seed = int.from_bytes(os.urandom(4), "little")
  return np.random.default_rng(seed), seed

# numpy's dtypes of tinygrad's: a tensor in one is copied to and from the device as it is; a cast would be one more emulated kernel,
# each compiled and run in a few hundred ms on the emulator, several a test
_NP = {dtypes.half: np.float16, dtypes.float32: np.float32}

def host(t:Tensor) -> np.ndarray:
  """t's values as float64 numpy (bf16 through a cast to float32 on its device: numpy has no bf16)"""
  return (t if t.dtype in _NP else t.float()).numpy().astype(np.float64)

def device_tensor(a:np.ndarray, dtype, device="PYTHON") -> Tensor:
  """a rounded to dtype, a realized tensor on device: fp16 and fp32 rounded by numpy (round to nearest even, as the devices cast), bf16 by
  a cast on the device"""
  if dtype in _NP: return Tensor(np.ascontiguousarray(a.astype(_NP[dtype])), device=device).contiguous().realize()
  return Tensor(a.astype(np.float32), device=device).cast(dtype).contiguous().realize()

def nans(shape, dtype=dtypes.float32, device="PYTHON") -> Tensor:
  """a realized tensor of NaN, for outputs poisoned before a kernel writes them (an element left unwritten fails the test)"""
  return device_tensor(np.full(shape, np.nan), dtype, device)

def qkv(rng, B, H, Hkv, Nq, Nk, D, dtype, device="PYTHON"):
  """random normal inputs as (numpy float64 of the rounded values, tinygrad tensors on the device, the emulator by default)"""
  ts = [device_tensor(rng.standard_normal(s), dtype, device) for s in ((B, H, Nq, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  return [host(t) for t in ts], ts

def run_fwd(q, k, v, causal=False, scale=None, cfg:FwdConfig|None=None):
  """the forward kernel through Tensor.custom_kernel with its outputs poisoned with NaN, so an unwritten element fails"""
  B, H, Nq, D = q.shape
  o = nans((B, H, Nq, D), q.dtype, q.device)
  lse = nans((B, H, Nq), dtypes.float32, q.device)
  target = target_for(q.device)
  fxn = functools.partial(flash_fwd, target=target, cfg=cfg or FwdConfig(32, 32, 2), causal=causal, scale=scale)
  outs = Tensor.custom_kernel(q, k, v, o, lse, fxn=fxn)
  Tensor.realize(outs[3], outs[4])
  return host(outs[3]), host(outs[4])

# tolerances against the float64 reference on the rounded inputs: P is rounded to the input dtype before P·V (8 mantissa bits for bf16)
TOL = {dtypes.half: dict(rel=2e-3, abs=8e-3, lse=5e-4), dtypes.bfloat16: dict(rel=1.5e-2, abs=6e-2, lse=5e-4)}

def assert_close(o, lse, ref_o, ref_lse, dtype, msg=""):
  t = TOL[dtype]
  assert np.isfinite(o).all() and np.isfinite(lse).all(), f"unwritten or non-finite outputs {msg}"
  rel = np.linalg.norm(o - ref_o) / np.linalg.norm(ref_o)
  assert rel <= t["rel"], f"rel err {rel:.2e} > {t['rel']} {msg}"
  assert np.abs(o - ref_o).max() <= t["abs"], f"max abs err {np.abs(o - ref_o).max():.2e} > {t['abs']} {msg}"
  assert np.abs(lse - ref_lse).max() <= t["lse"], f"lse err {np.abs(lse - ref_lse).max():.2e} > {t['lse']} {msg}"

def unread_buffers(*ts:Tensor) -> list[str]:
  """the kernels realizing ts that are handed a buffer they never read or write (tinygrad 0.14's CUDA graph, TinyJit's, passes a kernel
  every buffer of its call while the renderer drops an unused one from the signature, and the launch fails: invalid argument); then
  ts are realized"""
  from tinygrad.uop.ops import Ops
  from tinygrad.engine.realize import get_call_arg_uops, run_linear, compile_linear
  out, (lin, var_vals) = [], Tensor.linear_with_vars(*ts)
  # the compiled programs' buffers: a load the compiler folds away (an index clamped to one element) drops a buffer a kernel's UOps read
  for call in (lin:=compile_linear(lin)).src:
    if call.src[0].op is not Ops.PROGRAM: continue
    used, given = len(call.src[0].arg.globals), len(get_call_arg_uops(call))
    if used != given: out.append(f"{call.src[0].arg.name}: {used} of {given}")
  run_linear(lin, var_vals)
  return out
