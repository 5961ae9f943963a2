"""Hopper's warpgroup MMA as the tile layer issues it (tiles.wgmma_tile): S = Q·Kᵀ of 64 query rows against n keys, both LDS tiles
in 128-byte swizzle atoms. The emulator runs the twin (mma.sync fragments of the same layout), nvcc builds the wgmma source for
sm_90a, and on an H100 or H200 (DEV=CUDA, marker gpu) it runs through tinygrad with the compiler switched to sm_90a."""
import functools, math, re, shutil
import numpy as np, pytest
from tinygrad import Tensor, Device, Context, dtypes
from tinygrad.uop.ops import KernelInfo
from fa_uop import SM90A
from fa_uop.target import hopper
from fa_uop.tiles import Block, smem, copy_tile, wait_tile, acc_tile, wgmma_tile, tile_coords, rows_at, flat
from fa_uop.compile import build, render, compile_source, cuda_resources, linear, lds_hazards
from conftest import host, nans, slow

def qk_sink(q, k, s, *, target):
  """one block of 4 warps: s (64, n) float32 = q (64, D) · k (n, D)ᵀ"""
  D, n = q.shape[-1], k.shape[0]
  blk = Block(target, 4)
  q_s, k_s = smem(blk, 64, D, q.dtype, atom=64), smem(blk, n, D, q.dtype, atom=64)
  q_s = wait_tile(blk, q_s, copy_tile(blk, q_s, flat(q), rows_at(0, D)), copy_tile(blk, k_s, flat(k), rows_at(0, D), variant=1))
  acc = acc_tile(blk, 1, n // target.mma[1])
  acc = acc.after(wgmma_tile(blk, acc, q_s, k_s.after(q_s.buf)))
  mi, ni, e = blk.range(1), blk.range(n // target.mma[1]), blk.range(target.c.nelems)
  r, c = tile_coords(blk, mi, ni, e)
  store = flat(s).index((blk.warp * 16 + r) * n + c).store(acc[mi, ni, e]).end(mi, ni, e)
  return store.end(blk.warp, blk.lane).sink(arg=KernelInfo(name=f"fa_wgmma_qk_{n}_d{D}", opts_to_apply=()))

def run_qk(rng, n, D, dtype, target, device):
  q, k = (rng.standard_normal(sh).astype(np.float32) for sh in ((64, D), (n, D)))
  qt, kt = (Tensor(x, device=device).cast(dtype).contiguous().realize() for x in (q, k))
  s = nans((64, n), dtypes.float32, device)
  out = Tensor.custom_kernel(qt, kt, s, fxn=functools.partial(qk_sink, target=target))[2].realize().numpy()
  qr, kr = (host(t) for t in (qt, kt))
  ref = qr @ kr.T
  assert np.isfinite(out).all(), "unwritten elements"
  assert np.abs(out - ref).max() <= 1e-3 * np.abs(ref).max(), f"max abs err {np.abs(out - ref).max():.2e} (max |ref| {np.abs(ref).max():.1f})"

# D=128: two atoms per row; n=32 and 64: wgmma's N
SHAPES = [(32, 128, dtypes.half), (64, 64, dtypes.bfloat16)]

@pytest.mark.parametrize("n,D,dtype", SHAPES, ids=str)
def test_twin_on_the_emulator(n, D, dtype):
  """the twin on the same LDS layout (swizzle atoms) and warp rows as wgmma, on the emulated sm_80"""
  run_qk(np.random.default_rng(), n, D, dtype, SM90A.portable(), "PYTHON::sm_80")

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("n,D,dtype", SHAPES, ids=str)
def test_builds_for_sm_90a(n, D, dtype):
  """nvcc assembles the wgmma source for sm_90a, which has the MMA, its fence and the async-proxy fence of the copies, and no LDS race"""
  from tinygrad import UOp
  ps = [UOp.placeholder(sh, dt, i) for i, (sh, dt) in enumerate((((64, D), dtype), ((n, D), dtype), ((64, n), dtypes.float)))]
  sink = qk_sink(*ps, target=SM90A)
  ptx = build(sink, "sm_90a")
  ty = "f16" if dtype == dtypes.half else "bf16"
  for ins in (f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty}", "wgmma.fence.sync.aligned", "fence.proxy.async.shared::cta"):
    assert ins in ptx, f"no {ins}"
  assert ptx.count("wgmma.mma_async") == D // 16
  assert lds_hazards(linear(sink, "sm_90a")) == []

@pytest.mark.gpu
@pytest.mark.parametrize("n,D,dtype", SHAPES, ids=str)
def test_on_hopper(n, D, dtype):
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  run_qk(np.random.default_rng(), n, D, dtype, hopper(Device.DEFAULT), Device.DEFAULT)

# one warpgroup (64x32x4), and two (128x32x8: warpgroup 1 multiplies Q's rows 64-127; 128x192x8: 192 keys a step, the table's at D=128
# non-causal, over a whole key tile and a tail)
@pytest.mark.parametrize("causal,cfg", [(False, (64, 32, 4)), (True, (128, 32, 8)), (False, (128, 192, 8))],
                         ids=["full-64x32x4", "causal-128x32x8", "full-128x192x8"])
def test_forward_twin(rng, causal, cfg):
  """the forward as built for SM90A (S = Q·Kᵀ by wgmma_tile, LDS tiles in swizzle atoms), its twin on the emulated sm_80, with tails"""
  from tinygrad import Context
  from fa_uop import flash_fwd, FwdConfig
  from fa_uop.reference import attention_ref
  from conftest import qkv, assert_close
  r, seed = rng
  with Context(DEV="PYTHON::sm_80"):
    # GQA at one warpgroup; two warpgroups on one head (CI time)
    nk = 45 if cfg[0] == 64 else 250 if cfg[1] > 128 else 100
    (qn, kn, vn), (q, k, v) = qkv(r, 1, 2 if cfg[0] == 64 else 1, 1, 70 if cfg[0] == 64 else 150, nk, 64, dtypes.half)
    o = nans(q.shape, q.dtype, q.device)
    lse = nans(q.shape[:3], dtypes.float32, q.device)
    fxn = functools.partial(flash_fwd, target=SM90A.portable(), cfg=FwdConfig(*cfg), causal=causal)
    outs = Tensor.custom_kernel(q, k, v, o, lse, fxn=fxn)
    Tensor.realize(outs[3], outs[4])
    ref_o, ref_lse = attention_ref(qn, kn, vn, causal)
    assert_close(host(outs[3]), outs[4].numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")

@pytest.mark.gpu
def test_compile_workers_build_for_sm_90a():
  """tinygrad compiles several kernels at once in worker processes, which rebuild the device's renderer from its class and target:
  they must compile for sm_90a too (a block map's kernels and the attention kernel are compiled together)"""
  import pickle
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  hopper(Device.DEFAULT)
  assert pickle.loads(pickle.dumps(Device[Device.DEFAULT].renderer)).compiler.arch == "sm_90a"

def fwd_placeholders(D=128, N=1000):
  from tinygrad import UOp
  shapes = [((2, 4, N, D), dtypes.half), ((2, 2, N, D), dtypes.half), ((2, 2, N, D), dtypes.half), ((2, 4, N, D), dtypes.half), ((2, 4, N), dtypes.float)]
  return [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("causal,cfg", [(False, None), (True, None), (True, (128, 64, 8)), (True, (64, 64, 4, 3))],
                         ids=["full", "causal", "causal-128x64x8", "causal-64x64x4x3"])
def test_forward_builds_for_sm_90a(causal, cfg):
  """the forward as the H100 gets it (SM90A, its default 64x64x4 at D=128; 128x64x8: two warpgroups and 64 KB of LDS, past the 48 KB a
  static declaration holds; 64x64x4x3: 3 blocks an SM asked of ptxas): nvcc builds it for sm_90a with both products by wgmma, none
  serialized by ptxas, and no LDS race; LDS past 48 KB is one dynamic array, its size named; the blocks per SM reach the PTX"""
  from fa_uop import flash_fwd, default_fwd_config, FwdConfig
  from fa_uop.target import DSMEM_MARK
  sink = flash_fwd(*fwd_placeholders(), target=SM90A, cfg=FwdConfig(*cfg) if cfg else default_fwd_config(SM90A, 128, causal), causal=causal)
  ptx = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
  # S = Q·Kᵀ (n: the tile's keys) and O += P·V (n: the head dim, P from registers, V MN-major): no mma.sync left
  assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx and "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx
  assert "mma.sync" not in ptx and "fence.proxy.async.shared::cta" in ptx and cuda_resources(src, "sm_90a")["wgmma_serialized"] == 0
  assert lds_hazards(linear(sink, "sm_90a")) == []
  if cfg and cfg[0] == 128: assert ".extern .shared .align 1024 .b8 fa_dsmem[];" in ptx and f"{DSMEM_MARK} 65536" in ptx and "__shared__ __align__(16)" not in src
  else: assert "fa_dsmem" not in src
  assert ("__launch_bounds__(128, 3)" in src and ".minnctapersm 3" in ptx) if cfg and len(cfg) == 4 else ".minnctapersm" not in ptx

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_fast_math_in_fa_uop_kernels_only():
  """the Hopper renderers give fa_uop's kernels (BoundedKernel info) one ex2.approx.ftz.f32 for each float exp2 and max.f32 for each
  float max, where tinygrad's exp2f has a denormal check around its ex2.approx.f32 and its max is a compare and a select; the same
  kernel under a plain KernelInfo (what tinygrad's own kernels have) renders as tinygrad renders it"""
  from fa_uop import flash_fwd, FwdConfig
  sink = flash_fwd(*fwd_placeholders(), target=SM90A, cfg=FwdConfig(64, 64, 4), causal=True)
  fast = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
  assert "fa_ex2(" in src and "fmaxf(" in src and " exp2(" not in src
  assert fast.count("ex2.approx.ftz.f32") >= 64 and "ex2.approx.f32" not in fast and fast.count("max.f32") >= 32
  plain = compile_source(src:=render(sink.replace(arg=KernelInfo(name="plain", opts_to_apply=())), "sm_90a"), "sm_90a")
  assert "fa_ex2" not in src and "fmaxf" not in src and plain.count("ex2.approx.f32") >= 64 and "ex2.approx.ftz" not in plain

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("D,causal", [(128, False), (128, True), (64, True)], ids=str)
def test_forward_with_tma_builds_for_sm_90a(D, causal):
  """the forward with K and V by bulk tensor copies (tma=True, its default configs): nvcc builds it for sm_90a with a tile's boxes of 64
  columns per bulk copy (prologue, V, next K: D=128 two boxes each) counted on mbarriers, both waited for by parity, the tensor maps
  acquired, Q alone by cp.async; no LDS race (each mbarrier wait covering its own tile), no wgmma serialized; and the kernel that points
  the maps at K and V builds with tensormap.replace"""
  from tinygrad import UOp
  from fa_uop import flash_fwd, default_fwd_config
  from fa_uop.forward import flash_tma_maps
  cfg = default_fwd_config(SM90A, D, causal)
  sink = flash_fwd(*fwd_placeholders(D=D), UOp.placeholder((32,), dtypes.uint64, 5), target=SM90A, cfg=cfg, causal=causal, tma=True)
  ptx = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
  # the prologue's K and each loop stage's V and next K (two stages: the masked one, for causal or the keys' tail, and the free one)
  assert ptx.count("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes") == 5 * D // 64
  assert ptx.count("mbarrier.try_wait.parity.shared::cta.b64") == 4 and ptx.count("mbarrier.init.shared::cta.b64") == 2
  assert ptx.count("fence.proxy.tensormap::generic.acquire.gpu") == 2 and f"expect_tx.shared::cta.b64 _, [%r" in ptx
  assert ptx.count("cp.async.cg.shared.global") == cfg.block_m * D // 8 // (cfg.warps * 32)   # Q's pieces, one a thread each step
  assert cuda_resources(src, "sm_90a")["wgmma_serialized"] == 0 and lds_hazards(linear(sink, "sm_90a")) == []
  maps = [UOp.placeholder((32,), dtypes.uint64, 0), *fwd_placeholders(D=D)[1:3], UOp.placeholder((32,), dtypes.uint64, 3)]
  assert build(flash_tma_maps(*maps, target=SM90A), "sm_90a").count("tensormap.replace.tile.global_address") == 2

def test_tma_only_where_asked_and_built():
  """bulk copies are a config's choice (tma, which the tuner tries on Hopper's wgmma configs) or forced by FA_UOP_TMA=1/0: never on the
  emulator's twin, sm_80's path or a head dim wgmma does not run; a sharded call takes them too (each device its maps); a config asking
  for them where they cannot run is a ValueError before any kernel is built"""
  from fa_uop import FwdConfig, flash_attention
  from fa_uop.api import _uses_tma
  from fa_uop.config import candidates
  from fa_uop.target import SM80
  q = Tensor.empty(1, 1, 64, 128, dtype=dtypes.half)
  t = FwdConfig(64, 64, 4, tma=True)
  assert _uses_tma(SM90A, t, q) and not _uses_tma(SM90A, FwdConfig(64, 64, 4), q) and str(t) == "64x64x4t" and FwdConfig.parse(str(t)) == t
  assert _uses_tma(SM90A, t, Tensor.empty(1, 1, 64, 128, dtype=dtypes.half, device=("PYTHON:0", "PYTHON:1")))   # each device its maps
  assert t in candidates(SM90A, 128) and t not in candidates(SM90A, 96) and not any(c.tma for c in candidates(SM80, 128) + candidates(SM90A.portable(), 128))
  assert FwdConfig(64, 64, 4, tma=True, ring=1) in candidates(SM90A, 128)   # and with a producer (warp specialisation)
  for target, d in ((SM90A, 96), (SM80, 128), (SM90A.portable(), 128)):
    with pytest.raises(ValueError, match="bulk tensor copies"): t.check(target, d)
  with Context(DEV="PYTHON::sm_80"), pytest.raises(ValueError, match="bulk tensor copies"):
    flash_attention(*[Tensor.empty(1, 1, 64, 128, dtype=dtypes.half)] * 3, config=t)
  with pytest.MonkeyPatch.context() as mp:
    mp.setenv("FA_UOP_TMA", "1")
    assert _uses_tma(SM90A, FwdConfig(64, 64, 4), q) and not _uses_tma(SM90A, FwdConfig(64, 32, 2), q)
    assert not _uses_tma(SM90A.portable(), FwdConfig(64, 64, 4), q) and not _uses_tma(SM80, FwdConfig(64, 64, 4), q)
    assert not _uses_tma(SM90A, FwdConfig(64, 64, 4), Tensor.empty(1, 1, 64, 96, dtype=dtypes.half))
    mp.setenv("FA_UOP_TMA", "0")
    assert not _uses_tma(SM90A, FwdConfig(64, 64, 4), q) and not _uses_tma(SM90A, t, q)

@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_forward_with_tma_on_hopper(causal):
  """FA_UOP_TMA=1 on an H100 or H200: the forward with K and V by bulk tensor copies, GQA with tails on both sides (rows past the keys
  arrive as zeros), against float64; twice, on other buffers the second time (the maps pointed anew)"""
  from fa_uop import flash_attention
  from fa_uop.reference import attention_ref
  from conftest import assert_close
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r = np.random.default_rng()
  with pytest.MonkeyPatch.context() as mp:
    mp.setenv("FA_UOP_TMA", "1")
    for _ in range(2):
      q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize() for sh in ((2, 4, 1000, 128), (2, 2, 777, 128), (2, 2, 777, 128)))
      o, lse = flash_attention(q, k, v, causal=causal, return_lse=True)
      ref_o, ref_lse = attention_ref(*(host(t) for t in (q, k, v)), causal)
      assert_close(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half)

@pytest.mark.gpu
@pytest.mark.parametrize("cfg", [(64, 64, 4), (128, 64, 8), (128, 128, 8), (64, 64, 4, 3)], ids=str)
def test_forward_on_hopper(cfg):
  """the forward on the H100 or H200 at one and two warpgroups, with 64 and 128 KB of LDS (dynamic shared memory), and at 3 blocks an
  SM (168 registers), causal with tails"""
  from fa_uop import flash_fwd, FwdConfig
  from fa_uop.reference import attention_ref
  from conftest import assert_close
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r = np.random.default_rng()
  q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize() for sh in ((2, 4, 1000, 128), (2, 2, 777, 128), (2, 2, 777, 128)))
  qn, kn, vn = (host(t) for t in (q, k, v))
  o = nans(q.shape, q.dtype, q.device)
  lse = nans(q.shape[:3], dtypes.float32, q.device)
  outs = Tensor.custom_kernel(q, k, v, o, lse, fxn=functools.partial(flash_fwd, target=hopper(Device.DEFAULT), cfg=FwdConfig(*cfg), causal=True))
  Tensor.realize(outs[3], outs[4])
  ref_o, ref_lse = attention_ref(qn, kn, vn, True)
  assert_close(host(outs[3]), outs[4].numpy().astype(np.float64), ref_o, ref_lse, dtypes.half)

# with FA_UOP_SLOW=1 (CI time: 30-35 s each); the forward's twin runs the warpgroup layout by default
@pytest.mark.parametrize("causal,cfg", [slow(False, (64, 32, 4)), slow(True, (64, 32, 4)), slow(True, (64, 64, 4))], ids=str)
def test_backward_twin(rng, causal, cfg):
  """the backward at the H100's block shapes as the emulator runs them for SM90A: its portable twin (Target.warpgroups: wgmma's layout,
  tiles in 128-byte swizzle atoms, the products by mma.sync fragment reads of them): GQA, tails on both sides, 64-row blocks of one
  warpgroup, 32 and 64 (the H100's default) columns a step"""
  from tinygrad import Context
  from fa_uop import BwdConfig
  from test_backward import check_kernels
  with Context(DEV="PYTHON::sm_80"): check_kernels(rng, causal, SM90A.portable(), BwdConfig(*cfg), 1, 2, 1, 70, 90, 64)

@pytest.mark.gpu
@pytest.mark.parametrize("D,cfg", [(128, "64x64x8s2"), (256, "64x64x8s2")])
def test_backward_split_on_hopper(rng, D, cfg):
  """dK/dV with two warpgroups split along the head dim (s2: Sᵀ and dPᵀ 32 query columns each, dK and dV D/2 columns each, Pᵀ and dSᵀ
  through LDS in swizzle atoms, read by wgmma), beside the default dQ, on the H100 or H200: causal, GQA, tails, poisoned"""
  from fa_uop import BwdConfig, default_bwd_configs
  from test_backward import check_kernels
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  t = hopper(Device.DEFAULT)
  check_kernels(rng, True, t, (BwdConfig.parse(cfg), default_bwd_configs(t, D)[1]), 2, 4, 2, 200, 230, D, device=Device.DEFAULT)

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_backward_builds_for_sm_90a():
  """the backward as the H100 gets it without a producer's ring (masks beyond causal, sharded; 64x64x4 at D=128, 64 KB of LDS: dynamic
  shared memory): nvcc builds both kernels for sm_90a with every product by wgmma (dK/dV: Sᵀ and dPᵀ from LDS, n = the query tile; dV
  and dK with Pᵀ and dSᵀ from registers, n = D; dQ likewise), no mma.sync, no wgmma serialized by ptxas, and no LDS race; dQ asks for
  3 blocks an SM, dK/dV for none"""
  from test_compile import bwd_sinks
  from fa_uop import BwdConfig, default_bwd_configs
  from fa_uop.target import DSMEM_MARK
  assert default_bwd_configs(SM90A, 128, "causal_w", group=2) == default_bwd_configs(SM90A, 128, "causal", one_device=False)
  for sink, n, blocks in zip(bwd_sinks(SM90A, 128, True, cfgs=default_bwd_configs(SM90A, 128, "causal_w", group=2)), (64, 64), (0, 3)):
    ptx = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
    assert ".extern .shared .align 1024 .b8 fa_dsmem[];" in ptx and f"{DSMEM_MARK} 65536" in ptx and cuda_resources(src, "sm_90a")["wgmma_serialized"] == 0
    for shape in (f"m64n{n}k16", "m64n128k16"): assert f"wgmma.mma_async.sync.aligned.{shape}.f32.f16.f16" in ptx, shape
    assert "mma.sync" not in ptx and "fence.proxy.async.shared::cta" in ptx
    assert (f".minnctapersm {blocks}" in ptx) if blocks else (".minnctapersm" not in ptx)
    assert lds_hazards(linear(sink, "sm_90a")) == []
  # a config's blocks per SM reach the backward's PTX too
  ptx = build(bwd_sinks(SM90A, 128, True, cfgs=(BwdConfig(64, 32, 4, 2),) * 2)[1], "sm_90a")
  assert ".minnctapersm 2" in ptx

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_uniform_warp():
  """Hopper's renderers read the backward rings' warp index (threadIdx.y, where the x threads are a warp's lanes) through a broadcast
  from lane 0, so nvcc keeps the wgmma descriptors made from it in uniform registers: no R2UR before each wgmma (SASS: 111 -> 1 in
  non-causal 64x64x4x2tr2 dK/dV at D=128, its loop 398 -> 320 instructions). The forward (timed level or slower with it), the
  backward's kernels of one warpgroup and tinygrad's own kernels render as tinygrad renders them"""
  from test_compile import fwd_sink, bwd_sinks
  from fa_uop import FwdConfig, BwdConfig
  sink = bwd_sinks(SM90A, 128, False, cfgs=(BwdConfig.parse("64x64x4x2tr2"),) * 2, Nq=1024, Nk=1024, H=16, Hkv=16)[0]
  src = render(sink, "sm_90a")
  assert "int lidx1 = __shfl_sync(0xffffffffu, (int)threadIdx.y, 0); /* 8 */" in src and src.count("__shfl_sync") == 1
  for c in ("128x128x8tr2p", "128x224x8tr2p"): assert "__shfl_sync" not in render(fwd_sink(SM90A, 64, False, cfg=FwdConfig.parse(c)), "sm_90a"), c
  assert "__shfl_sync" not in render(bwd_sinks(SM90A, 64, False)[0], "sm_90a")   # D=64's default dK/dV, one warpgroup
  # the same kernel as one of tinygrad's own (its info not BoundedKernel), whose threads of one y need not fill a warp: as tinygrad renders it
  from tinygrad.uop.ops import KernelInfo
  assert "int lidx1 = threadIdx.y; /* 8 */" in (own:=render(sink.replace(arg=KernelInfo(sink.arg.name)), "sm_90a")) and "__shfl_sync" not in own

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_rebuilt_descriptors():
  """a config's d (rebuilt): its products with A in LDS (the forward's Q·Kᵀ; the backward's Sᵀ and dPᵀ) build each K-step's wgmma
  descriptors from the tiles' addresses, those with A in registers (P·V; dV, dK, dQ) add to one low word as without d; named and
  parsed, wgmma's only (a ValueError before any kernel), stepped back with the wide tiles under a mask; the table's D=64 pick builds
  for sm_90a as the bulk-copy forward without spill"""
  import dataclasses
  from test_compile import fwd_sink, bwd_sinks
  from fa_uop import FwdConfig, BwdConfig, SM80, default_fwd_config
  c = FwdConfig.parse("128x224x8tr2pd")
  assert c == FwdConfig(128, 224, 8, tma=True, ring=2, pingpong=True, rebuilt=True) and str(c) == "128x224x8tr2pd" and not FwdConfig.parse("128x224x8tr2p").rebuilt
  assert str(b:=BwdConfig.parse("128x64x8tr2d")) == "128x64x8tr2d" and b.rebuilt and BwdConfig.parse("64x64x4dq") == BwdConfig(64, 64, 4, dq=True, rebuilt=True)
  for bad, t in ((FwdConfig(128, 32, 4, rebuilt=True), SM90A), (FwdConfig(64, 64, 4, rebuilt=True), SM80), (BwdConfig(64, 64, 4, rebuilt=True), SM80)):
    with pytest.raises(ValueError, match="rebuilt"): bad.check(t, 64)
  assert default_fwd_config(SM90A, 64, False, 16384, 16384) == c and default_fwd_config(SM90A, 64, False, 16384, 16384, "w") == FwdConfig.parse("128x128x8tr2p")
  for sink, was in ((fwd_sink(SM90A, 64, False, cfg=c), fwd_sink(SM90A, 64, False, cfg=dataclasses.replace(c, rebuilt=False))),
                    *zip(bwd_sinks(SM90A, 128, True, cfgs=(b, BwdConfig.parse("64x64x4x2tr2d"))), bwd_sinks(SM90A, 128, True, cfgs=(dataclasses.replace(b, rebuilt=False), BwdConfig.parse("64x64x4x2tr2"))))):
    src, plain = render(sink, "sm_90a"), render(was, "sm_90a")
    # A in LDS: the whole descriptor each K-step from the addresses, no low word kept (A's and B's); A in registers: B's low word, as without d
    lds_a, regs_a = plain.count("_da = "), plain.count("_db = ") - plain.count("_da = ")
    assert lds_a > 0 and regs_a > 0 and "& 0x3FFFF" not in plain, (lds_a, regs_a)
    assert src.count("_da = ") == 0 and src.count("_db = ") == regs_a and src.count("_a = (unsigned)__cvta_generic_to_shared") == lds_a
    assert src.count("wgmma.mma_async") == plain.count("wgmma.mma_async") and src.count("& 0x3FFFF) >> 4))") == 2 * plain.count("_da + ")
  from tinygrad import UOp
  from fa_uop import flash_fwd
  big, rows = ((1, 32, 16384, 64), dtypes.half), ((1, 32, 16384), dtypes.float)
  ps = [UOp.placeholder(sh, dt, i) for i, (sh, dt) in enumerate([big, big, big, big, rows, ((32,), dtypes.uint64)])]
  r = cuda_resources(render(flash_fwd(*ps, target=SM90A, cfg=c, tma=True), "sm_90a"), "sm_90a")
  assert r["spill_stores"] == 0 and r["stack"] == 0 and r["wgmma_serialized"] == 0, r

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_backward_builds_for_sm_90a_at_d256():
  """the H100's D=256 dK/dV (64x64x8s2: two warpgroups split along the head dim, 144 KB of LDS): Sᵀ and dPᵀ by wgmma with n = 32 (each
  warpgroup's half of the query tile), dV and dK with n = 128 (its half of the head dim) and Pᵀ and dSᵀ read from LDS; no mma.sync,
  no LDS race, one thread dimension of 8 warps (the hardware's warpgroups); 255 registers at most (8 warps); causal (one stage of
  masked tiles), no spill (ptxas: 440 bytes with a stage for the diagonal beside an unmasked one)"""
  from test_compile import bwd_sinks
  from fa_uop.target import DSMEM_MARK
  sink = bwd_sinks(SM90A, 256, True)[0]
  ptx = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
  assert f"{DSMEM_MARK} {(2 * 64 + 2 * 64) * 256 * 2 + 2 * 64 * 64 * 2}" in ptx and "mma.sync" not in ptx
  for shape in ("m64n32k16", "m64n128k16"): assert f"wgmma.mma_async.sync.aligned.{shape}.f32.f16.f16" in ptx, shape
  res = cuda_resources(src, "sm_90a")
  assert res["registers"] <= 255 and res["spill_stores"] == 0 and res["wgmma_serialized"] == 0, res
  assert re.search(r"threadIdx\.y(, 0\))?; /\* 8 \*/", src) and "threadIdx.z" not in src   # the warp index (UniformWarp: broadcast)
  assert lds_hazards(linear(sink, "sm_90a")) == []

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("arch,Nq,Nk", [("sm_90a", 1000, 900), ("sm_80", 32, 300)], ids=str)
def test_causal_dkdv_in_one_stage_builds(arch, Nq, Nk):
  """past D=128 the causal dK/dV walks its query tiles in one stage of masked tiles, its trip count read from a register; it builds
  where one key block alone has query tiles (sm_80's 32x16x2 at Nq=32 < Nk: a count written out let tinygrad pin the block index
  into the loop's bound, two loops of one id and unbalanced braces)"""
  from test_compile import bwd_sinks
  from fa_uop.target import SM80
  sink = bwd_sinks({"sm_90a": SM90A, "sm_80": SM80}[arch], 256, True, Nq=Nq, Nk=Nk)[0]
  src = render(sink, arch)
  compile_source(src, arch)
  assert len(re.findall(r"for \(int Ridx\d+ = 0; Ridx\d+ < \(\*\(buf\d+\+0\)\); ", src)) == 1, "one stage, its count read from a register"

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("mask", ["causal", "document"])
@pytest.mark.parametrize("kernel,D,spill", [("dq", 128, (0, 0)), ("dkdv", 64, (24, 44))])
def test_fits_three_blocks(mask, kernel, D, spill):
  """the H100's default configs that ask for 3 blocks an SM (those without a producer's ring: sharded, masks beyond causal) fit them
  (168 registers or fewer), causal and with a document mask_mod
  (tile indices from a block map), N=16384: dQ at D=128 with no spill (it took 220-244 registers before its copies' row guards went
  where a tile's bounds rule them out and their addresses were summed in 64 bits, and ran 4-14% slower at 2 blocks an SM), dK/dV
  at D=64 with at most `spill` bytes (causal, document; ptxas on the source the device builds, 24 and 44: 3 blocks measured 1-19% faster
  than 2, docs/performance.md, 2026-11-25; the 28 once counted for the document mask was of a twin rendered with tinygrad's optimizer)"""
  from tinygrad import UOp
  from fa_uop import flash_bwd_dkdv, flash_bwd_dq, default_bwd_configs
  from fa_uop.mods import Mods
  H, N = 16, 16384
  mods = Mods(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1) if mask == "document" else Mods(causal=True)
  cfg = default_bwd_configs(SM90A, D, mods.tag, one_device=False)[kernel == "dq"]
  shapes = [((1, H, N, D), dtypes.half)] * 4 + [((1, H, N), dtypes.float)] * 2 + [((1, H, N, D), dtypes.half)] * (1 if kernel == "dq" else 2)
  if mask == "document":   # the document ids, then the block map (counts, tile lists) and the schedule
    nR, nC = N // cfg.block_m, N // cfg.block_n
    shapes += [((1, N), dtypes.int32), ((1, 1, nR, 2), dtypes.int32), ((1, 1, nR, nC), dtypes.int32), ((H * nR,), dtypes.int32)]
  sink = (flash_bwd_dq if kernel == "dq" else flash_bwd_dkdv)(*[UOp.placeholder(sh, dt, i) for i, (sh, dt) in enumerate(shapes)],
                                                             target=SM90A, cfg=cfg, mods=mods)
  res = cuda_resources(src:=render(sink, "sm_90a"), "sm_90a")
  assert cfg.blocks == 3 and "__launch_bounds__(128, 3)" in src and res["registers"] <= 65536 // (3 * 128), res
  spill = spill[mask == "document"]
  assert res["spill_stores"] <= spill and res["stack"] <= spill, res

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("c,D,causal", [("64x64x4tr2", 128, True), ("64x64x4tr1", 128, False), ("64x128x4tr2", 64, True),
                                         slow("128x128x8tr2", 128, False), slow("128x64x8tr2", 256, True), ("64x64x4x2tr2", 128, False),
                                         ("128x128x8tr2p", 128, True), ("128x64x8tr2p", 256, True), ("128x192x8tr2p", 128, False),
                                         ("128x224x8tr2p", 64, True)], ids=str)
def test_warp_specialised_forward_builds_for_sm_90a(c, D, causal):
  """warp specialisation (ring: a producer warpgroup issuing K and V by bulk copies into a ring of slots): nvcc builds it for sm_90a with
  the producer's loop (a wait for each slot's release, then the tile's boxes) and its exit before the consumers' code, every block
  barrier a named one over the consumer threads (the producer never meets one; only the barriers' set-up meets all threads), each slot
  waited for and released on mbarriers per stage, no wgmma serialized; where the launch leaves the consumers fewer registers than
  they take, the producer hands its own over (setmaxnreg: 24 kept, the rest to the consumers), and nothing spills; with a ping-pong
  (p) the two consumer warpgroups take turns on named barriers"""
  from tinygrad import UOp
  from fa_uop import flash_fwd, FwdConfig
  cfg = FwdConfig.parse(c)
  sink = flash_fwd(*fwd_placeholders(D=D), UOp.placeholder((32,), dtypes.uint64, 5), target=SM90A, cfg=cfg, causal=causal, tma=True)
  src = render(sink, "sm_90a")
  ptx = compile_source(src, "sm_90a")
  threads = cfg.warps * 32
  assert "__syncthreads" not in src and src.count(f"bar.sync 1, {threads};") >= 3 and src.count("bar.sync 0;") == 1 and "return;" in src
  assert src.index("cp.async.bulk.tensor") < src.index("return;") < src.index("cp.async.cg.shared.global")  # the producer's copies, then Q's
  assert ptx.count("mbarrier.init.shared::cta.b64") == 4 * cfg.ring and ptx.count(f"mbarrier.init.shared::cta.b64 [%r") >= 1
  # in the source (nvcc unrolls the producer's loop): its K and V copies, each after a wait for the slot's release, then per stage of
  # the consumers (masked, free) a wait for K and V and a release of each
  assert src.count("cp.async.bulk.tensor.3d") == 2 and src.count("mbarrier.arrive.shared::cta.b64") == 4
  assert src.count("mbarrier.try_wait.parity.shared::cta.b64") == 2 + 4 and "cp.async.bulk.tensor.3d" in ptx
  # before the producer's exit only its own two waits, at one KV tile too (a stage of one trip: no loop holds its waits there)
  one = render(flash_fwd(*fwd_placeholders(D=D, N=64), UOp.placeholder((32,), dtypes.uint64, 5), target=SM90A, cfg=cfg, causal=causal, tma=True), "sm_90a")
  assert all(x[:x.index("return;")].count("mbarrier.try_wait.parity.shared::cta.b64") == 2 for x in (src, one))
  split = SM90A.tma.split(threads, cfg.blocks)
  assert src.count("setmaxnreg") == (0 if split is None else 2)
  if split:   # within the blocks' part of the 64K registers an SM
    assert 65536 // max(cfg.blocks, 1) >= 128 * split[0] + threads * split[1], split
    assert f"setmaxnreg.dec.sync.aligned.u32 {split[0]}" in src and f"setmaxnreg.inc.sync.aligned.u32 {split[1]}" in src
  if cfg.pingpong:   # the turns: each warpgroup waits on its own barrier (before the loop and before P·V), hands over after S (in the
    # loop and, warpgroup 1 once, before it) and after the loop (warpgroup 0); a turn's products are waited for after the hand-over
    assert src.count('asm volatile("bar.sync %0, 256;"') == 1 + 2 and src.count('asm volatile("bar.arrive %0, 256;"') == 1 + 2 + 1, src.count("bar.")
    assert src.count("wgmma.wait_group.sync.aligned 0;") >= 2 * 2 + 1
    # the output's lazy rescale: one statement a stage (two here, causal or not: the masked one, N=1000's key tail or the diagonal,
    # and the free one), every accumulator register times its row's factor, behind one branch that nvcc keeps (a bra over the
    # multiplies in the PTX)
    n_acc = D // 2
    assert src.count(" *= ") == n_acc * 2, src.count(" *= ")
    body = ptx[ptx.index("ex2.approx"):]
    assert re.search(r"@%p\d+ bra\s+\$L__BB\d+_\d+;(\s*mul\.f32[^\n]*\n){" + str(n_acc) + "}", body), "rescale not behind a branch"
  else: assert " *= " not in src
  r = cuda_resources(src, "sm_90a")
  assert r["wgmma_serialized"] == 0 and r["spill_stores"] == 0, r

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("D", [slow(64), slow(128), 256])
def test_table_configs_do_not_spill(D):
  """every config the sm_90a table (fa_uop.tuned) gives at head dim D, as default_fwd_config takes it for each class (causal or not)
  with and without a mask_mod (a document mask and its block map, the most registers; its 192- and 224-key tiles step back to 128),
  builds as flash_attention builds it (bulk copies and tensor maps where it says tma) at the class's sequence length (whole tiles)
  without spill, local memory or serialized wgmma. Issue 31: nothing spills where another tile would not. (With tails, D=256's
  128x64x8tr2p keeps one to four registers in local memory across the KV loop, an STL before it and an LDL after: nothing in the loop;
  128x128x8tr1 spilled 12-184 bytes either way)"""
  from tinygrad import UOp
  from fa_uop import flash_fwd, default_fwd_config, FwdConfig
  from fa_uop.mods import Mods
  from fa_uop.tuned import TABLE
  H = 2
  doc = dict(mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1)
  builds = set()
  for k in TABLE["sm_90a"]:
    if not (m:=re.fullmatch(rf"d{D}_(\w+)_q(\d+)_k\d+", k)): continue
    causal, N = m[1] == "causal", int(m[2])
    for masked in (False, True):
      mods = Mods(causal=causal, **doc) if masked else Mods(causal=causal)
      builds.add((str(default_fwd_config(SM90A, D, causal, N, N, mods.tag)), causal, masked, N))
  assert builds, f"no table entry at D={D}"
  for c, causal, masked, N in sorted(builds):
    cfg = FwdConfig.parse(c)
    mods = Mods(causal=causal, **doc) if masked else Mods(causal=causal)
    R, C = -(-N // cfg.block_m), -(-N // cfg.block_n)
    shapes = [((1, H, N, D), dtypes.half)] * 4 + [((1, H, N), dtypes.float)]
    if masked: shapes += [((1, N), dtypes.int32), ((1, 1, R, 2), dtypes.int32), ((1, 1, R, C), dtypes.int32), ((H * R,), dtypes.int32)]
    shapes += [((32,), dtypes.uint64)] * (cfg.tma + cfg.persistent)   # a persistent forward's Q map after K's and V's; the H200's SMs
    sink = flash_fwd(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)], target=SM90A, cfg=cfg, mods=mods, tma=cfg.tma,
                     sms=132 * cfg.persistent)
    r = cuda_resources(render(sink, "sm_90a"), "sm_90a")
    assert r["spill_stores"] == 0 and r["stack"] == 0 and r["wgmma_serialized"] == 0, (c, causal, masked, N, r)

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("c,D", [("128x128x8tr2pP", 128), slow("128x128x8tr2P", 128), slow("128x224x8tr2pP", 64), slow("128x64x8tr1pP", 256)],
                         ids=str)
def test_persistent_forward_builds_for_sm_90a(c, D):
  """the persistent forward (FwdConfig.persistent): a grid of `sms` blocks (5 here, so each loops over 12-13 of the 64 tiles), the
  producer looping over its tiles' Q, K and V before it leaves (each Q into one of two slots once the consumers have released it), the
  consumers over theirs after (each tile's Q waited for, the turns, the last V slot released at the tile's end, Q's slot released once
  the output staged through it has left); nvcc builds it for sm_90a without spill or serialized wgmma, its LDS as the config counts
  it, and it keeps every buffer it is handed (TinyJit's graph launches it with all; q is read through its tensor map only)"""
  from tinygrad import UOp
  from tinygrad.uop.ops import Ops, AxisType
  from fa_uop import flash_fwd, FwdConfig
  from fa_uop.target import DSMEM_MARK
  cfg = FwdConfig.parse(c)
  sink = flash_fwd(*fwd_placeholders(D=D), *[UOp.placeholder((32,), dtypes.uint64, i) for i in (5, 6)], target=SM90A, cfg=cfg, tma=True, sms=5)
  src, lin = render(sink, "sm_90a"), linear(sink, "sm_90a")
  assert "blockIdx.x; /* 5 */" in src and src.count("return;") == 1 and "cp.async.cg.shared.global" not in src   # no copy by the consumers
  assert f"{DSMEM_MARK} {cfg.lds_bytes(SM90A, D) + 1024}" in src
  # two loops over the block's tiles (their trips made of the block's index): the producer's, holding its copies, and the consumers'
  tiles = [u for u in lin if u.op is Ops.RANGE and u.arg[1] is AxisType.LOOP and any(r.op is Ops.SPECIAL for r in u.src[0].toposort())]
  assert len(tiles) == 2, tiles
  ends = {u.src[1]: i for i, u in enumerate(lin) if u.op is Ops.END}
  within = lambda r, pred: [u for u in lin[lin.index(r):ends[r]] if pred(u)]
  custom = lambda s: lambda u: u.op is Ops.CUSTOM and s in u.arg
  assert within(tiles[0], custom("cp.async.bulk.tensor")) and not within(tiles[0], custom("wgmma"))
  assert within(tiles[1], custom("wgmma")) and not within(tiles[1], custom("cp.async.bulk"))
  # the producer: per tile a wait for Q's slot, then per position K's and V's; the consumers: per tile Q's wait, and its release
  assert len(within(tiles[0], custom("mbarrier.try_wait"))) == 3 and len(within(tiles[0], custom("cp.async.bulk.tensor"))) == 3
  assert lin[ends[tiles[1]] - 1].op is Ops.BARRIER   # the tile's end
  # every consumer wait in the tile loop: Q's, and a K and a V slot's a stage (a one-trip stage's loop removed, its waits alike each tile)
  waits = lambda lo, hi: sum(1 for u in lin[lo:hi] if custom("mbarrier.try_wait")(u))
  assert waits(ends[tiles[0]], len(lin)) == waits(lin.index(tiles[1]), ends[tiles[1]]) == 5, waits(ends[tiles[0]], len(lin))
  # a release of each K and V slot a stage (the key tail's masked tile, then the free ones), with a ping-pong V's last at the tile's
  # end, and Q's slot's
  assert src.count("mbarrier.arrive.shared::cta.b64") == 5 + cfg.pingpong
  assert sorted(u.arg.slot for u in lin if u.op is Ops.PARAM) == list(range(7))
  r = cuda_resources(src, "sm_90a")
  assert r["wgmma_serialized"] == 0 and r["spill_stores"] == 0, r
  # fewer tiles than SMs (the H200's 132: one tile a block, the consumers' loop removed): it builds (their tile's coordinates were
  # declared in the producer's loop, nvcc: undefined identifier)
  compile_source(render(flash_fwd(*fwd_placeholders(D=D), *[UOp.placeholder((32,), dtypes.uint64, i) for i in (5, 6)], target=SM90A, cfg=cfg,
                                  tma=True, sms=132), "sm_90a"), "sm_90a")

def test_persistent_config_without_bulk_copies():
  """a persistent config where its bulk copies are not taken (a sharded call: one set of tensor maps cannot serve several devices;
  FA_UOP_TMA=0) has no ring and so runs the plain kernel of its tile shape: the same source as the config without P, no second Q slot
  (the D=128 N=1024 non-causal default is P since ce47db6; its second slot cost 32 KB of LDS there)"""
  from fa_uop import flash_fwd, FwdConfig
  plain, p = (render(flash_fwd(*fwd_placeholders(), target=SM90A, cfg=FwdConfig.parse(c)), "sm_90a") for c in ("128x128x8tr2p", "128x128x8tr2pP"))
  assert plain == p and "for (int" in p

def test_persistent_configs_checked(monkeypatch, no_kernel):
  """a persistent config names its producer's ring, and its tiles visit the same KV tiles: causal, a window or a mask_mod is refused
  (ValueError) before any kernel is built, on a Hopper device (its target stands in here)"""
  import fa_uop.api
  from fa_uop import FwdConfig, flash_attention
  cfg = FwdConfig.parse("128x128x8tr2pP")
  assert cfg == FwdConfig(128, 128, 8, tma=True, ring=2, pingpong=True, persistent=True) and str(cfg) == "128x128x8tr2pP"
  assert FwdConfig.parse("128x128x8tr2P").persistent and not FwdConfig.parse("128x128x8tr2p").persistent
  with pytest.raises(ValueError, match="persistent"): FwdConfig(128, 128, 8, tma=True, persistent=True).check(SM90A, 128)
  monkeypatch.setattr(fa_uop.api, "_check", lambda *a, **kw: SM90A)
  q = Tensor.empty(1, 2, 256, 128, dtype=dtypes.half, device="PYTHON")
  for kw in (dict(causal=True), dict(window=(64, 0)), dict(mask_mod=lambda b, h, qi, kj: qi >= kj)):
    with pytest.raises(ValueError, match="persistent"): flash_attention(q, q, q, config=cfg, **kw)

@pytest.mark.gpu
@pytest.mark.parametrize("c,D", [("128x128x8tr2pP", 128), ("128x128x8tr2P", 128), ("128x224x8tr2pP", 64), ("128x64x8tr1pP", 256)], ids=str)
def test_persistent_forward_on_hopper(c, D):
  """on an H100 or H200: the persistent forward against float64, GQA with tails on both sides, fewer tiles than SMs and about 4 a
  block; and under TinyJit, replayed on fresh inputs, equal to eager"""
  from tinygrad import TinyJit
  from fa_uop import flash_attention, FwdConfig
  from fa_uop.reference import attention_ref
  from conftest import assert_close
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r, cfg = np.random.default_rng(), FwdConfig.parse(c)
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize()
  for B, H, Hkv in ((2, 4, 2), (4, 32, 8)):   # 64 tiles; 1024 over the SMs
    q, k, v = rand(B, H, 1000, D), rand(B, Hkv, 777, D), rand(B, Hkv, 777, D)
    o, lse = flash_attention(q, k, v, return_lse=True, config=cfg)
    assert_close(host(o), lse.numpy().astype(np.float64), *attention_ref(*(host(t) for t in (q, k, v))), dtypes.half, f"B={B} H={H}")
  step = TinyJit(lambda q, k, v: flash_attention(q, k, v, config=cfg).realize())
  for i in range(3):
    q, k, v = rand(4, 32, 1000, D), rand(4, 8, 777, D), rand(4, 8, 777, D)
    got = host(step(q, k, v))
    assert (got == host(flash_attention(q, k, v, config=cfg))).all(), f"jit call {i}"

def test_warp_specialised_configs_checked():
  """a ring needs the bulk copies (tma), 1 to 4 slots; its LDS counts every slot. The cache path (its own copies of pages and splits)
  refuses a config with bulk copies, before any kernel is built"""
  from fa_uop import FwdConfig
  from fa_uop.api import decode_plan
  from fa_uop.target import SM80
  for c in (FwdConfig(64, 64, 4, tma=True), FwdConfig(64, 64, 4, tma=True, ring=2)):
    with pytest.raises(ValueError, match="cache path"): decode_plan(SM90A, "PYTHON", (1, 8, 1, 128), 2, 1024, config=c)
  assert str(FwdConfig(64, 64, 4, tma=True, ring=2)) == "64x64x4tr2" and FwdConfig.parse("64x64x4x3tr1") == FwdConfig(64, 64, 4, 3, True, 1)
  for bad in (FwdConfig(64, 64, 4, ring=2), FwdConfig(64, 64, 4, tma=True, ring=5)):
    with pytest.raises(ValueError, match="ring"): bad.check(SM90A, 128)
  # the ping-pong: two consumer warpgroups on a producer's ring
  assert str(pp:=FwdConfig(128, 128, 8, tma=True, ring=2, pingpong=True)) == "128x128x8tr2p" and FwdConfig.parse("128x128x8tr2p") == pp
  pp.check(SM90A, 128)
  for bad in (FwdConfig(64, 64, 4, tma=True, ring=2, pingpong=True), FwdConfig(128, 128, 8, tma=True, pingpong=True)):
    with pytest.raises(ValueError, match="ping-pong"): bad.check(SM90A, 128)
  with pytest.raises(ValueError): FwdConfig(64, 64, 4, tma=True, ring=1).check(SM80, 128)
  assert FwdConfig(64, 64, 4, tma=True, ring=2).lds_bytes(SM90A, 128) == 2 * (64 + 4 * 64) * 128

def bwd_on_hopper(rng, causal:bool, cfgs, D:int, tol:float=0.0):
  """the backward's kernels at cfgs (dK/dV, dQ) on the H100 or H200 against float64, outputs poisoned, GQA, tails, one tile; then
  flash_attention_backward with them under TinyJit, replayed on fresh inputs, as eager within tol (0: equal)"""
  from tinygrad import TinyJit
  from fa_uop import flash_attention, flash_attention_backward
  from test_backward import check_kernels
  check_kernels(rng, causal, hopper(Device.DEFAULT), cfgs, 2, 4, 2, 200, 230, D, device=Device.DEFAULT)
  check_kernels(rng, causal, hopper(Device.DEFAULT), cfgs, 1, 1, 1, 64, 64, D, device=Device.DEFAULT)   # one tile: stages of one trip
  r = rng[0]
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize()
  step = TinyJit(lambda *xs: [g.realize() for g in flash_attention_backward(*xs, causal=causal, configs=cfgs)])
  for i in range(3):
    q, k, v, do = rand(2, 8, 1000, D), rand(2, 4, 1000, D), rand(2, 4, 1000, D), rand(2, 8, 1000, D)
    o, lse = (x.realize() for x in flash_attention(q, k, v, causal=causal, return_lse=True))
    got = [host(g) for g in step(q, k, v, o, lse, do)]
    for name, g, e in zip(("dq", "dk", "dv"), got, flash_attention_backward(q, k, v, o, lse, do, causal=causal, configs=cfgs)):
      assert (np.allclose(g, host(e), rtol=tol, atol=tol) if tol else (g == host(e)).all()), f"jit call {i}: {name}"

def test_backward_ring_configs_checked(monkeypatch, no_kernel):
  """the backward's ring: named as the forward's, bulk copies only into a ring, not with the dQ accumulation, and beside a window or
  mask_mod causal dK/dV's only, with one query head a KV head (their tiles differ by head): each a ValueError before any kernel is
  built, on a Hopper device (its target stands in here); causal dK/dV's ring under a window or mask_mod without GQA passes them"""
  import fa_uop.api
  from fa_uop import BwdConfig, flash_attention_backward
  from fa_uop.target import SM80
  assert str(c:=BwdConfig(128, 64, 8, tma=True, ring=2)) == "128x64x8tr2" and BwdConfig.parse("128x64x8tr2") == c and BwdConfig.parse("64x64x4x3") == BwdConfig(64, 64, 4, 3)
  assert c.lds_bytes(SM90A, 128) == 2 * 2 * (128 + 2 * 64) * 128 and c.check(SM90A, 128) == SM90A
  for bad in (BwdConfig(128, 64, 8, tma=True), BwdConfig(128, 64, 8, tma=True, ring=2, dq=True), BwdConfig(128, 64, 8, ring=2)):
    with pytest.raises(ValueError): bad.check(SM90A, 128)
  with pytest.raises(ValueError): c.check(SM80, 128)
  monkeypatch.setattr(fa_uop.api, "_check", lambda *a, **kw: SM90A)
  q = Tensor.empty(1, 2, 256, 128, dtype=dtypes.half, device="PYTHON")
  lse = Tensor.empty(1, 2, 256, dtype=dtypes.float, device="PYTHON")
  class Passed(Exception): pass
  def maps(*a): raise Passed   # the ring's tensor maps, made past the checks (through the driver, absent here)
  monkeypatch.setattr(fa_uop.api, "_ring_maps", maps)
  ok, kv1 = BwdConfig(64, 64, 4), Tensor.empty(1, 1, 256, 128, dtype=dtypes.half, device="PYTHON")
  doc = lambda b, h, qi, kj: qi >= kj
  for kw in (dict(configs=(ok, c), causal=True, window=(64, 0)), dict(configs=(ok, c), causal=True, mask_mod=doc)):
    ring = {**kw, "configs": kw["configs"][::-1]}
    with pytest.raises(ValueError, match="ring"): flash_attention_backward(q, q, q, q, lse, q, **kw)
    with pytest.raises(ValueError, match="ring"): flash_attention_backward(q, kv1, kv1, q, lse, q, **ring)
    with pytest.raises(ValueError, match="ring"): flash_attention_backward(q, q, q, q, lse, q, **{**ring, "causal": False})
    with pytest.raises(Passed): flash_attention_backward(q, q, q, q, lse, q, **ring)

def test_backward_defaults_take_the_ring_where_it_runs(monkeypatch):
  """on Hopper (its target stands in here) the backward's defaults at D=128 take the producer's ring for full and causal attention on
  one device, through flash_attention_backward and through the forward's gradient: non-causal 64x64x4x2tr2 both, causal 128x64x8tr2 and
  64x64x4x2tr2; a causal window or causal mask_mod, one query head a KV head, causal dK/dV's ring beside dQ's kernel without; softcap,
  score_mod, a window or mask_mod without causal, both, or with GQA, D=64 and a sharded call the kernels without it (the configs the
  kernels would be built with, recorded before any is)"""
  import fa_uop.api
  from conftest import devices
  from fa_uop import flash_attention, flash_attention_backward, FwdConfig
  class Built(Exception): pass
  seen = []
  def record(target, dkdv, dq, mods, scale): seen.append(f"{dkdv},{dq}"); raise Built
  monkeypatch.setattr(fa_uop.api, "_check", lambda *a, **kw: SM90A)
  monkeypatch.setattr(fa_uop.api, "_bwd_builders", record)
  on = lambda t, devs: t if devs is None else t.shard(devs, axis=0)
  x = lambda D, devs=None: on(Tensor.empty(2, 2, 256, D, dtype=dtypes.half, device="PYTHON"), devs)
  lse = lambda devs=None: on(Tensor.empty(2, 2, 256, device="PYTHON"), devs)
  ring, plain = "64x64x4x2tr2d,64x64x4x2tr2", "64x64x4,64x64x4x3"
  masked, doc = "128x64x8tr2,64x64x4x3", lambda b, h, qi, kj: (qi // 64).eq(kj // 64)
  cases = [(dict(), 128, None, ring), (dict(causal=True), 128, None, "128x64x8tr2,64x64x4x2tr2"), (dict(causal=True, window=(64, 0)), 128, None, masked),
           (dict(causal=True, mask_mod=doc), 128, None, masked), (dict(window=(64, 64)), 128, None, plain), (dict(mask_mod=doc), 128, None, plain),
           (dict(causal=True, window=(64, 0), mask_mod=doc), 128, None, plain), (dict(causal=True, window=(64, 0), softcap=20.0), 128, None, plain),
           (dict(softcap=20.0), 128, None, plain), (dict(score_mod=lambda s, b, h, qi, kj: s * 0.5), 128, None, plain),
           (dict(mask_mod=lambda b, h, qi, kj: qi >= kj), 128, None, plain), (dict(), 64, None, "64x64x4x3d,64x64x4x3"),
           (dict(causal=True), 64, None, "64x64x4x3d,64x64x4x3"), (dict(causal=True, window=(64, 0)), 64, None, "64x64x4x3,64x64x4x3"),
           (dict(causal=True), 128, devices("sm_80"), plain)]
  for kw, D, devs, want in cases:
    seen.clear()
    with pytest.raises(Built): flash_attention_backward(*[x(D, devs) for _ in range(4)], lse(devs), x(D, devs), **kw)
    assert seen == [want], (kw, D, devs, seen)
  for kw in (dict(window=(64, 0)), dict(mask_mod=doc)):   # GQA under a window or mask_mod: the kernels without the ring
    seen.clear()
    kv = Tensor.empty(2, 1, 256, 128, dtype=dtypes.half, device="PYTHON")
    with pytest.raises(Built): flash_attention_backward(x(128), kv, kv, x(128), lse(), x(128), causal=True, **kw)
    assert seen == [plain], (kw, seen)
  # the gradient of flash_attention takes them too (its grad_fxn builds the backward while tinygrad makes the gradients)
  for kw, want in ((dict(), ring), (dict(causal=True), "128x64x8tr2,64x64x4x2tr2")):
    seen.clear()
    q, k, v = (Tensor.empty(2, 2, 256, 128, dtype=dtypes.half, device="PYTHON") for _ in range(3))
    # (the forward by cp.async: a bulk-copy one makes its tensor maps through the driver, absent here)
    with pytest.raises(Built): flash_attention(q, k, v, config=FwdConfig(64, 64, 4), **kw).float().sum().gradient(q, k, v)
    assert seen == [want], (kw, seen)

def bwd_ring_sink(kernel:str, cfg, causal:bool, D:int, **shape) -> tuple:
  """test_compile.bwd_sinks's dK/dV or dQ kernel at cfg (the other kernel at its default), and its parameter count (the ring's maps last)"""
  from fa_uop import default_bwd_configs
  from test_compile import bwd_sinks
  i = kernel == "dq"
  cfgs = tuple(cfg if j == i else c for j, c in enumerate(default_bwd_configs(SM90A, D)))
  return bwd_sinks(SM90A, D, causal, cfgs=cfgs, **shape)[i], 7 + (not i) + cfg.tma

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("kernel,c,D,causal", [("dkdv", "128x64x8tr2", 128, False), ("dkdv", "64x64x4x2tr2", 128, False), slow("dkdv", "128x64x8tr2", 64, True),
                                                ("dkdv", "128x32x8tr3", 64, True), ("dq", "64x64x4x2tr2", 128, True), slow("dq", "128x64x8tr2", 64, False), slow("dq", "64x64x4x2tr3", 64, False)],
                         ids=str)
def test_backward_ring_builds_for_sm_90a(kernel, c, D, causal):
  """the backward's kernels with a producer's ring (GQA and tails both sides): nvcc builds them for sm_90a; the producer's one loop (a
  wait for a slot's release, then the tiles' boxes: Q and dO for dK/dV, K and V for dQ) and its exit before the consumers' code, which
  copy the other two tiles once and meet at no block barrier in the loop: a wait for each tile and a release of each a stage; the
  producer's registers handed over (24 kept, the rest to the consumers); every parameter kept (the ring's tiles read only through the
  tensor maps); no wgmma serialized and no spill (dK/dV's causal tiles in one stage, each masked)"""
  from tinygrad.uop.ops import Ops
  from fa_uop import BwdConfig
  from fa_uop.target import DSMEM_MARK
  cfg = BwdConfig.parse(c)
  sink, n_params = bwd_ring_sink(kernel, cfg, causal, D)   # GQA, 1000 queries and 900 keys
  # the loop's stages: dQ's masked one (the diagonal's tiles, the key tail of 900) and free one; dK/dV's one, causal or not
  src, stages, threads = render(sink, "sm_90a"), 2 if kernel == "dq" else 1, cfg.warps * 32
  assert sorted(u.arg.slot for u in linear(sink, "sm_90a") if u.op is Ops.PARAM) == list(range(n_params))
  # LDS as the config counts it (every slot of the ring), and 1 KB of mbarriers
  assert f"{DSMEM_MARK} {cfg.lds_bytes(SM90A, D) + 1024}" in src
  assert "__syncthreads" not in src and "return;" in src and src.count("bar.sync 0;") == 1
  assert src.index("cp.async.bulk.tensor.3d") < src.index("return;") < src.index("cp.async.cg.shared.global")
  assert src.count("cp.async.bulk.tensor.3d") == 2 and src.count("mbarrier.try_wait.parity.shared::cta.b64") == 2 + 2 * stages
  assert src.count("mbarrier.arrive.shared::cta.b64") == 2 * stages
  split = SM90A.tma.split(threads, cfg.blocks)
  assert split is not None and f"setmaxnreg.dec.sync.aligned.u32 {split[0]}" in src and f"setmaxnreg.inc.sync.aligned.u32 {split[1]}" in src
  loop = src[src.index("for (int Ridx"):src.index(f"bar.sync 1, {threads};", src.index("for (int Ridx"))]
  assert "bar.sync" not in loop and "cp.async.wait_group" not in loop   # the loop: mbarrier waits only
  r = cuda_resources(src, "sm_90a")
  # non-causal 64x64x4x2tr2's dK/dV at these shapes (GQA, tails) keeps the warp index in local memory across the kernel: an STL at
  # its start and an LDL in the epilogue (nvdisasm), nothing in the loop; at N=16384 none
  spill = 4 if (kernel, c, causal) == ("dkdv", "64x64x4x2tr2", False) else 0
  assert r["wgmma_serialized"] == 0 and r["spill_stores"] <= spill and r["stack"] <= 2 * spill, r

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("mask,N,spill", [("window", 1000, 0), ("document", 1000, 8), slow("document", 16384, 8)], ids=str)
def test_backward_ring_under_masks_builds_for_sm_90a(mask, N, spill):
  """causal dK/dV's ring (128x64x8tr2) under a window or a document mask's block map, one query head a KV head: its producer walks a
  plan of its own, made outside the consumers' head loop (their trips, a phantom's where a block has none), then leaves, and only its
  two waits come before that; the consumers wait on the ring in both stages; nvcc builds it for sm_90a within `spill` bytes"""
  from tinygrad import UOp
  from fa_uop import flash_bwd_dkdv, BwdConfig
  from fa_uop.mods import Mods
  cfg, H = BwdConfig.parse("128x64x8tr2"), 4
  big, rows = ((1, H, N, 128), dtypes.half), ((1, H, N), dtypes.float)
  if mask == "window": mods, extra = Mods(causal=True, window=(300, 0)), []
  else:
    R, C = -(-N // cfg.block_m), -(-N // cfg.block_n)   # the map: keys x queries
    mods = Mods(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), n_args=1)
    extra = [((1, N), dtypes.int32), ((1, 1, R, 2), dtypes.int32), ((1, 1, R, C), dtypes.int32), ((H * R,), dtypes.int32)]
  shapes = [big] * 4 + [rows] * 2 + [big] * 2 + extra + [((32,), dtypes.uint64)]
  src = render(flash_bwd_dkdv(*[UOp.placeholder(sh, dt, i) for i, (sh, dt) in enumerate(shapes)], target=SM90A, cfg=cfg, mods=mods), "sm_90a")
  wait = "mbarrier.try_wait.parity.shared::cta.b64"
  assert src[:src.index("return;")].count(wait) == 2 and src.count(wait) == 2 + 2 * 2 and "__syncthreads" not in src
  r = cuda_resources(src, "sm_90a")
  assert r["wgmma_serialized"] == 0 and r["spill_stores"] <= spill, r

@pytest.mark.gpu
@pytest.mark.parametrize("mask", ["window", "document"])
def test_backward_ring_under_masks_on_hopper(rng, mask):
  """on an H100 or H200: causal dK/dV's ring (128x64x8tr2) under a window or a document mask, one query head a KV head, tails (1000
  queries and keys, 3 documents of uneven length), gives the gradients of the kernels without the ring within rounding, and under
  TinyJit, replayed on fresh inputs, those of eager"""
  from tinygrad import TinyJit
  from fa_uop import flash_attention, flash_attention_backward, BwdConfig
  ring, plain = (BwdConfig.parse("128x64x8tr2"), BwdConfig(64, 64, 4, 3)), (BwdConfig(64, 64, 4), BwdConfig(64, 64, 4, 3))
  r, seed = rng
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize()
  docs = Tensor(np.repeat(np.arange(3), (200, 500, 300))[None].astype(np.int32)).realize()
  kw = dict(window=(300, 0)) if mask == "window" else dict(mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(docs,))
  step = TinyJit(lambda *xs: [g.realize() for g in flash_attention_backward(*xs, causal=True, configs=ring, **kw)])
  for i in range(4):   # TinyJit: the second call captures, the rest replay
    q, k, v, do = rand(1, 4, 1000, 128), rand(1, 4, 1000, 128), rand(1, 4, 1000, 128), rand(1, 4, 1000, 128)
    o, lse = (x.realize() for x in flash_attention(q, k, v, causal=True, return_lse=True, **kw))
    want = [host(g) for g in flash_attention_backward(q, k, v, o, lse, do, causal=True, configs=plain, **kw)]
    got = [host(g) for g in flash_attention_backward(q, k, v, o, lse, do, causal=True, configs=ring, **kw)]
    jit = [host(g) for g in step(q, k, v, o, lse, do)]
    for name, g, j, w in zip(("dq", "dk", "dv"), got, jit, want):
      err = np.abs(g - w).max() / np.abs(w).max()
      assert np.isfinite(g).all() and err < 2e-3, f"call {i}: {name} rel err {err:.2e} against the kernels without the ring (seed {seed})"
      assert (j == g).all(), f"jit call {i}: {name} (seed {seed})"

@pytest.mark.parametrize("kernel,c", [("dkdv", "64x64x4x2tr2"), ("dkdv", "128x64x8tr2"), ("dq", "64x64x4x2tr2")], ids=str)
@pytest.mark.parametrize("causal", [False, True])
def test_backward_ring_waits_after_the_producer_leaves(kernel, c, causal):
  """the backward's rings (the D=128 defaults): before the producer's exit only its own two waits for a slot's release, at one tile
  (one query tile for dK/dV, one key tile for dQ: a stage of one trip, no loop to hold its waits) and with tails and GQA (dQ's
  masked stage of one trip: the key tail). A consumer's wait hoisted above the producer's loop hangs the block (the H200, 4ff6f86)"""
  from fa_uop import BwdConfig
  wait = "mbarrier.try_wait.parity.shared::cta.b64"
  for H, Hkv, Nq, Nk in ((1, 1, 64, 64), (4, 2, 200, 230)):
    src = render(bwd_ring_sink(kernel, BwdConfig.parse(c), causal, 128, H=H, Hkv=Hkv, Nq=Nq, Nk=Nk)[0], "sm_90a")
    assert src[:src.index("return;")].count(wait) == 2 and src.count(wait) >= 4, (H, Hkv, Nq, Nk)

@pytest.mark.gpu
@pytest.mark.parametrize("c,D,causal", [("128x64x8tr2,", 128, False), ("128x64x8tr2,64x64x4x2tr2", 128, True), ("64x64x4x2tr2,64x64x4x2tr2", 128, False), ("128x64x8tr2,", 64, True),
                                         ("128x32x8tr3,128x64x8tr2", 64, False), ("128x64x8tr2d,64x64x4x2tr2d", 128, True),
                                         ("64x64x4x2tr2d,", 128, False), ("64x64x4x3d,", 64, True)], ids=str)
def test_backward_ring_on_hopper(rng, c, D, causal):
  """on an H100 or H200: the backward's kernels with a producer's ring (dK/dV's, and dQ's where named, else the default dQ; and D=64's
  default dK/dV, rebuilt descriptors without a ring) against
  float64, outputs poisoned, GQA, tails; and flash_attention_backward with them under TinyJit, replayed on fresh inputs (the tensor maps
  pointed anew each call), equal to eager"""
  from fa_uop import BwdConfig, default_bwd_configs
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  kv, dq = c.split(",")
  bwd_on_hopper(rng, causal, (BwdConfig.parse(kv), BwdConfig.parse(dq) if dq else default_bwd_configs(hopper(Device.DEFAULT), D)[1]), D)

@pytest.mark.parametrize("nbytes", [128, 64, 32])
def test_swizzle_atoms_as_the_hardware(nbytes):
  """tiles.Smem's atoms of 128, 64 and 32 bytes a row put element (r, c) where Hopper's swizzle of that width puts it (CUTLASS's
  Swizzle<log2(nbytes / 16), 4, 3> on byte offsets in an atom column block: bits 7.. XORed into the 16-byte chunk's bits 4..), for
  16- and 8-bit elements: what TMA writes and wgmma reads there is what the twin's copies and fragment reads address"""
  from fa_uop.tiles import Smem
  for itemsize in (2, 1):
    atom, rows = nbytes // itemsize, 24
    s = Smem(None, rows, 3 * atom, atom, base=5 * rows * 3 * atom, itemsize=itemsize)   # type: ignore[arg-type]
    for r in range(rows):
      for c in range(3 * atom):
        off = r * nbytes + c % atom * itemsize
        want = s.base + c // atom * rows * atom + (off ^ ((off >> 7) & (nbytes // 16 - 1)) << 4) // itemsize
        assert s.index(r, c) == want, (nbytes, itemsize, r, c)

@pytest.mark.parametrize("shape", [(4, 32), (2, 24), (3, 5), (1, 1)], ids=str)
def test_row_reduce(rng, shape):
  """tiles.row_reduce (the ping-pong's row max and sum, as trees of halves; else chains): each row's max and sum of fresh data against
  numpy in float64, trees and chains alike, odd column counts finishing as chains"""
  from tinygrad.uop.ops import Ops
  from fa_uop.tiles import row_reduce
  r, seed = rng
  x = r.standard_normal(shape).astype(np.float32)
  with Context(DEV="PYTHON::sm_80"):
    for op, want in ((Ops.MAX, x.max(1)), (Ops.ADD, x.astype(np.float64).sum(1))):
      for tree in (True, False):
        got = Tensor(row_reduce(Tensor(x).uop, op, tree)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5, err_msg=f"{op} tree={tree} (seed {seed})")

@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "gfx1100", "gfx1201", "gfx942", "gfx950"])
def test_lane_row_of_matches_rows_view(arch):
  """tiles.lane_row_of (the row of each accumulator register a branch rescales, Target.scale_if) is rows_view's row of that register, on
  every target's C layout (its 8-bit MMA's too), for tiles of one and several m- and n-tiles"""
  from fa_uop.target import SM80, SM90A, RDNA3, RDNA4, CDNA3, CDNA4
  from fa_uop.tiles import Block, lane_row_of, rows_view
  t = {"sm_80": SM80, "sm_90a": SM90A, "gfx1100": RDNA3, "gfx1201": RDNA4, "gfx942": CDNA3, "gfx950": CDNA4}[arch]
  for tgt in (t, t.fp8) if t.fp8 is not None else (t,):
    blk = Block(tgt, 4)
    for tm, tn in ((1, 1), (2, 3), (1, 16)):
      shape = (tm, tn, tgt.c.nelems)
      with Context(DEV="PYTHON::sm_80"):
        ids = Tensor(rows_view(blk, Tensor.arange(math.prod(shape)).reshape(shape).uop)).numpy()
      want = [int(np.argwhere(ids == i)[0][0]) for i in range(math.prod(shape))]
      assert lane_row_of(blk, shape) == want, (tgt.arch, shape)

@pytest.mark.gpu
@pytest.mark.parametrize("c,D,dtype", [("128x128x8tr2p", 128, "half"), ("128x64x8tr2p", 256, "half"), ("128x128x8tr2p", 128, "fp8e4m3"),
                                       ("128x128x8tr2p", 256, "fp8e4m3")], ids=str)
def test_lazy_rescale_on_hopper(rng, c, D, dtype):
  """on an H100 or H200: the ping-pong's lazy rescale (a row's max kept until a new one exceeds it by more than 8 in log2 units, the output rescaled
  behind a branch where a lane's row moved), on scores that climb along the keys in some rows (a rescale every few tiles, at a different
  tile in each row), fall in others (none after the first) and climb by less than 8 in log2 units over the whole sequence in the rest
  (the stale max, P up to 2^8), the kinds interleaved so a lane's two rows differ: against float64, causal and not, with tails"""
  from fa_uop import flash_attention, FwdConfig
  from fa_uop.reference import attention_ref
  from conftest import assert_close
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r, seed = rng
  B, H, Nq, Nk = 1, 2, 600, 1500
  u = np.ones(D) / math.sqrt(D)
  ramp = 40 / (D ** -0.5 * math.log2(math.e))   # q·k climbs by 40 in log2 units along the keys where q's slope is 1
  slope = r.choice([1.0, -1.0, 0.15], size=(B, H, Nq))
  q = slope[..., None] * math.sqrt(ramp) * u + 0.3 * r.standard_normal((B, H, Nq, D))
  k = np.linspace(0, 1, Nk)[:, None] * math.sqrt(ramp) * u + 0.3 * r.standard_normal((B, H, Nk, D))
  v = r.standard_normal((B, H, Nk, D))
  dt = getattr(dtypes, dtype)
  q, k, v = (Tensor(x.astype(np.float32)).cast(dt).contiguous().realize() for x in (q, k, v))
  qn, kn, vn = (host(t) for t in (q, k, v))
  for causal in (False, True):
    o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, config=FwdConfig.parse(c))
    o, lse = host(o), lse.numpy().astype(np.float64)
    ref_o, ref_lse = attention_ref(qn, kn, vn, causal)
    if dtype == "half": assert_close(o, lse, ref_o, ref_lse, dtypes.half, f"causal={causal} (seed {seed})")
    else:   # fp8: Hopper's fp8 products accumulate S a little short where |q·k| is large (here up to 440: logsumexp 0.03 low at D=256,
      # in every fp8 config alike, docs/runs/2026-11-26_rescale/lse_check.py), so the logsumexp is held to the unlazy kernel's too
      rel = np.linalg.norm(o - ref_o) / np.linalg.norm(ref_o)
      assert np.isfinite(o).all() and rel <= 3e-2, f"causal={causal}: rel RMS {rel:.2e} (seed {seed})"
      np.testing.assert_allclose(lse, ref_lse, rtol=2e-3, atol=1e-3, err_msg=f"lse causal={causal} (seed {seed})")
      unlazy = flash_attention(q, k, v, causal=causal, return_lse=True, config=FwdConfig.parse("128x128x8tr1"))[1].numpy().astype(np.float64)
      np.testing.assert_allclose(lse, unlazy, rtol=1e-5, atol=1e-5, err_msg=f"lse against 128x128x8tr1, causal={causal} (seed {seed})")

@pytest.mark.gpu
@pytest.mark.parametrize("c,D", [("64x64x4tr1", 128), ("64x64x4tr2", 128), ("128x128x8tr2", 128), ("64x128x4tr2", 64), ("128x64x8tr2", 256),
                                 ("64x64x4x2tr2", 128), ("128x128x8tr2p", 128), ("128x64x8tr2p", 256), ("128x192x8tr2p", 128),
                                 ("128x224x8tr2p", 64), ("128x224x8tr2pd", 64)], ids=str)
def test_warp_specialised_forward_on_hopper(c, D):
  """on an H100 or H200: the warp-specialised forward (a producer warpgroup filling a ring by bulk copies) against float64, causal and not,
  GQA with tails on both sides; and a mask under which whole query blocks see no key (their one phantom tile: the producer's copy past
  the keys, zeros), their rows 0 with logsumexp -inf"""
  from fa_uop import flash_attention, FwdConfig
  from fa_uop.reference import attention_ref
  from conftest import assert_close
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r, cfg = np.random.default_rng(), FwdConfig.parse(c)
  q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.half).contiguous().realize() for sh in ((2, 4, 1000, D), (2, 2, 777, D), (2, 2, 777, D)))
  qn, kn, vn = (host(t) for t in (q, k, v))
  for causal in (False, True):
    o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, config=cfg)
    assert_close(host(o), lse.numpy().astype(np.float64), *attention_ref(qn, kn, vn, causal), dtypes.half, f"causal={causal}")
  o, lse = flash_attention(q, k, v, return_lse=True, config=cfg, mask_mod=lambda b, h, qi, kj: qi < 300)
  o, lse = host(o), lse.numpy().astype(np.float64)
  ref_o, ref_lse = attention_ref(qn[:, :, :300], kn, vn)
  assert_close(o[:, :, :300], lse[:, :, :300], ref_o, ref_lse, dtypes.half, "mask")
  assert (o[:, :, 300:] == 0).all() and (lse[:, :, 300:] == -np.inf).all()

def test_kernels_keep_every_buffer_they_are_handed():
  """every forward config the tuner may pick on Hopper (cp.async, bulk copies, a producer's ring), the tensor maps' kernel, the backward's
  and the decoding kernels take as parameters every buffer they are handed: tinygrad 0.14's CUDA graph (TinyJit) launches a kernel with
  every buffer of its call, and one the renderer dropped from the signature fails the launch (invalid argument; the bulk-copy forwards
  read K and V only through their tensor maps)"""
  from tinygrad import UOp
  from tinygrad.uop.ops import Ops
  from fa_uop import flash_fwd, flash_bwd_dkdv, flash_bwd_dq, flash_decode, flash_combine, default_bwd_configs, FwdConfig
  from fa_uop.config import candidates
  from fa_uop.forward import flash_tma_maps
  def params(sink) -> list[int]: return sorted(u.arg.slot for u in linear(sink, "sm_90a") if u.op is Ops.PARAM)
  ph = lambda *specs: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(specs)]
  fwd = fwd_placeholders(D=128)
  # one config of each kind of copy (cp.async, bulk, a producer's ring) and warps (one and two warpgroups): what decides the signature
  for cfg in (c for c in candidates(SM90A, 128) if str(c) in ("64x64x4", "128x64x8", "64x64x4t", "128x128x8t", "64x64x4tr2")):
    sink = flash_fwd(*fwd, *[UOp.placeholder((32,), dtypes.uint64, 5)] * cfg.tma, target=SM90A, cfg=cfg, causal=True, tma=cfg.tma)
    assert params(sink) == list(range(6 if cfg.tma else 5)), cfg
  assert params(flash_tma_maps(*ph(((16,), dtypes.uint64), *[((2, 2, 1000, 128), dtypes.half)] * 2, ((32,), dtypes.uint64)), target=SM90A)) == [0, 1, 2, 3]
  B, H, Hkv, N, D = 2, 4, 2, 1000, 128
  bwd = ph(*[((B, H, N, D), dtypes.half), ((B, Hkv, N, D), dtypes.half), ((B, Hkv, N, D), dtypes.half), ((B, H, N, D), dtypes.half),
             ((B, H, N), dtypes.float), ((B, H, N), dtypes.float)])
  # the defaults with a producer's ring (one device, full or causal: the ring's tiles read through the maps) and without (masks, sharded)
  for dkdv, dq in (default_bwd_configs(SM90A, D), default_bwd_configs(SM90A, D, one_device=False)):
    maps = lambda c, slot: [UOp.placeholder((32,), dtypes.uint64, slot)] * c.tma
    assert params(flash_bwd_dkdv(*bwd, *ph(*[((1,), dtypes.half)] * 6, ((B, Hkv, N, D), dtypes.half), ((B, Hkv, N, D), dtypes.half))[6:],
                                 *maps(dkdv, 8), target=SM90A, cfg=dkdv, mods=None)) == list(range(8 + dkdv.tma))
    assert params(flash_bwd_dq(*bwd, *ph(*[((1,), dtypes.half)] * 6, ((B, H, N, D), dtypes.half))[6:], *maps(dq, 7), target=SM90A, cfg=dq)) == list(range(7 + dq.tma))
  dec = ph(((B, H, 1, D), dtypes.half), ((B, Hkv, N, D), dtypes.half), ((B, Hkv, N, D), dtypes.half), ((B,), dtypes.int32),
           ((B, H, 1, 4, D), dtypes.float), ((B, H, 1, 4), dtypes.float))
  assert params(flash_decode(*dec[:4], None, *dec[4:], target=SM90A, cfg=FwdConfig(16, 64, 1))) == list(range(6))
  assert params(flash_combine(*dec[4:], *ph(*[((1,), dtypes.half)] * 6, ((B, H, 1, D), dtypes.half), ((B, H, 1), dtypes.float))[6:])) == [4, 5, 6, 7]

def dq_acc_sink(cfg:str, D:int, target=SM90A, causal:bool=True, H:int=4, Hkv:int=2, Nq:int=1000, Nk:int=900):
  """the dK/dV kernel with the dQ accumulation (its float32 dQ the last placeholder), GQA and tails"""
  from tinygrad import UOp
  from fa_uop import flash_bwd_dkdv, BwdConfig
  c = BwdConfig.parse(cfg)
  q, kv, rows = ((2, H, Nq, D), dtypes.half), ((2, Hkv, Nk, D), dtypes.half), ((2, H, Nq), dtypes.float)
  acc = ((2, H, -(-Nq // c.block_n) * c.block_n, D), dtypes.float)
  ps = [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate([q, kv, kv, q, rows, rows, kv, kv, acc])]
  return flash_bwd_dkdv(*ps, target=target, cfg=c, causal=causal)

@pytest.mark.parametrize("cfg,D", [("64x64x4q", 64), slow("64x64x8s2q", 128), slow("128x64x8q", 64)], ids=str)
def test_dq_accumulation_twin(rng, cfg, D):
  """the dQ accumulation in the warpgroup layout as the emulator runs it for SM90A (its twin: wgmma's tiles, the products by mma.sync
  reads of them, the adds read-add-writes): each warpgroup all 64 queries of dQ's part, the two of s2 half its columns each, and of
  128x64x8q (FlashAttention-3's shape: 64 keys each) half its columns over all 128 keys"""
  from fa_uop import BwdConfig
  from test_backward import check_kernels
  with Context(DEV="PYTHON::sm_80"): check_kernels(rng, True, SM90A.portable(), (BwdConfig.parse(cfg), BwdConfig(64, 32, 4)), 1, 2, 1, 70, 90, D)

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("cfg,D,dq_wgmma", [("64x64x4q", 64, True), slow("64x32x4q", 128, False), slow("64x64x8s2q", 256, True),
                                             slow("128x64x8q", 64, False)])
def test_dq_accumulation_builds_for_sm_90a(cfg, D, dq_wgmma):
  """the dQ accumulation as the H100 would get it: nvcc builds the dK/dV kernel for sm_90a without spill, dQ's part staged in LDS and
  added by one bulk reduce-add a step (no atomics), by wgmma where a warpgroup holds the 64 queries (else mma.sync), no LDS race"""
  sink = dq_acc_sink(cfg, D)
  src = render(sink, "sm_90a")
  r, ptx = cuda_resources(src, "sm_90a"), compile_source(src, "sm_90a")
  assert r["spill_stores"] == 0 and r["wgmma_serialized"] == 0, r
  assert "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32" in ptx and "cp.async.bulk.wait_group.read 0" in ptx
  assert not re.search(r"\b(atom|red)\.", ptx)
  assert ("mma.sync" in ptx) != dq_wgmma   # every other product by wgmma
  assert lds_hazards(linear(sink, "sm_90a")) == []

@pytest.mark.gpu
@pytest.mark.parametrize("cfg,D", [("64x64x4q", 64), ("64x32x4q", 128), ("64x64x8s2q", 256)], ids=str)
def test_dq_accumulation_on_hopper(rng, cfg, D):
  """on an H100 or H200: the dQ accumulation's bulk reduce-adds (blocks of other keys adding into the same rows at once) against
  float64, dK and dV poisoned, causal, GQA, tails; and flash_attention_backward with it under TinyJit, replayed on fresh inputs, as
  eager within rounding (the adds' order varies from run to run)"""
  from fa_uop import BwdConfig, default_bwd_configs
  if not Device.DEFAULT.startswith("CUDA") or Device[Device.DEFAULT].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  bwd_on_hopper(rng, True, (BwdConfig.parse(cfg), default_bwd_configs(hopper(Device.DEFAULT), D)[1]), D, tol=2e-3)
