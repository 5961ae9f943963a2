"""8-bit float MMAs as the tile layer issues them (fa_uop.target: each target's fp8 description, for_dtype): S = Q·Kᵀ on fp8 tiles
copied to LDS, P rounded to fp8 through an LDS tile (its C and A layouts differ), O = P·V with V's rows as B's k. On the emulator:
sm_89's mma.sync m16n8k32 (e4m3, e5m2), CDNA3's v_mfma_f32_16x16x32 in the fnuz formats, CDNA4's in the OCP ones and RDNA4's
v_wmma_f32_16x16x16 on e4m3/e5m2."""
import functools, shutil
import numpy as np, pytest
from tinygrad import Tensor, Context, UOp, dtypes
from tinygrad.helpers import round_up
from tinygrad.uop.ops import AxisType, KernelInfo
from fa_uop import target_for, SM80, RDNA3, RDNA4
from fa_uop.tiles import Block, smem, copy_tile, wait_tile, acc_tile, tile_coords, rows_at, flat, frag_a, frags_b, mma, a_operand
from conftest import host, nans, slow

def sv_sink(q, k, v, s, o, *, target):
  """one block of 4 warps, each 16 rows: s (64, n) float32 = q (64, D) · k (n, D)ᵀ, then o (64, D) float32 = fp8(s) · v (n, D)"""
  D, n = q.shape[-1], k.shape[0]
  blk = Block(target, 4)
  M, N, K = target.mma
  q_s, k_s, v_s = smem(blk, 64, D, q.dtype), smem(blk, n, D, k.dtype), smem(blk, n, D, v.dtype)
  copies = copy_tile(blk, q_s, flat(q), rows_at(0, D)), copy_tile(blk, k_s, flat(k), rows_at(0, D), variant=1), copy_tile(blk, v_s, flat(v), rows_at(0, D), variant=2)
  q_s, k_s, v_s = (wait_tile(blk, t, *copies) for t in (q_s, k_s, v_s))
  acc = acc_tile(blk, 1, n // N)
  acc = acc.after(acc.after(q_s.buf).store(acc.const_like(0)))
  acc = acc.after(mma(blk, acc, lambda m, kk: frag_a(blk, q_s, blk.warp * M, kk * K), lambda c0, kk: frags_b(blk, k_s, c0, kk * K), D // K))
  out = acc_tile(blk, 1, D // N)
  out = out.after(out.after(acc).store(out.const_like(0)))
  pa = a_operand(blk, acc, blk.warp * M, v.dtype)
  out = out.after(mma(blk, out, pa, lambda c0, kk: frags_b(blk, v_s, c0, kk * K, trans=True), n // K))
  stores = []
  for t, dst, w in ((acc, s, n), (out, o, D)):
    mi, ni, e = blk.range(1), blk.range(w // N), blk.range(target.c.nelems)
    r, c = tile_coords(blk, mi, ni, e)
    stores.append(flat(dst).index((blk.warp * M + r) * w + c).store(t[mi, ni, e]).end(mi, ni, e))
  return UOp.group(*stores).end(blk.warp, blk.lane).sink(arg=KernelInfo(name=f"fa_fp8_sv_{n}_d{D}", opts_to_apply=()))

FP8 = [("sm_89", dtypes.fp8e4m3), slow("sm_89", dtypes.fp8e5m2), ("gfx942", dtypes.fp8e4m3fnuz), slow("gfx942", dtypes.fp8e5m2fnuz),
       ("gfx950", dtypes.fp8e4m3), slow("gfx950", dtypes.fp8e5m2), ("gfx1201", dtypes.fp8e4m3), slow("gfx1201", dtypes.fp8e5m2)]

@pytest.mark.parametrize("arch,dtype", FP8, ids=str)
def test_fp8_mma_on_the_emulator(rng, arch, dtype):
  """both products against float64 of the rounded inputs: S exactly as the fp8 inputs give it (float32 accumulation), O within fp8's
  rounding of P (relative RMS ≤ 4e-2: e4m3 keeps 3 mantissa bits, e5m2 2), outputs poisoned"""
  r, seed = rng
  D, n = 64, 64
  with Context(DEV=f"PYTHON::{arch}"):
    t = target_for("PYTHON").for_dtype(dtype)
    assert dtype in t.in_dtypes and t.mma[2] == (16 if arch == "gfx1201" else 32)
    q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtype).realize() for sh in ((64, D), (n, D), (n, D)))
    s, o = nans((64, n), dtypes.float32, "PYTHON"), nans((64, D), dtypes.float32, "PYTHON")
    outs = Tensor.custom_kernel(q, k, v, s, o, fxn=functools.partial(sv_sink, target=t))
    got_s, got_o = outs[3].numpy(), outs[4].numpy()
    qn, kn, vn = (host(x) for x in (q, k, v))
  want_s = qn @ kn.T
  np.testing.assert_allclose(got_s, want_s, rtol=1e-5, atol=1e-4, err_msg=f"S (seed {seed})")
  want_o = want_s @ vn
  rel = np.linalg.norm(got_o - want_o) / np.linalg.norm(want_o)
  assert rel <= (4e-2 if dtype in (dtypes.fp8e4m3, dtypes.fp8e4m3fnuz) else 8e-2), f"O rel RMS {rel:.2e} (seed {seed})"

def test_fp8_where_there_is_no_fp8_mma():
  """sm_80 and RDNA3 have no fp8 MMA: a TypeError that says what they take"""
  for t in (SM80, RDNA3):
    with pytest.raises(TypeError, match="has no MMA for dtypes.fp8e4m3"): t.for_dtype(dtypes.fp8e4m3)
  assert SM80.for_dtype(dtypes.half) is SM80

# each target's compiled fp8 MMA: the description (fp8's own, or the target that has it), the format built and the instruction it gives
def fp8_built(arch):
  from fa_uop.target import SM89_FP8, CDNA3, CDNA4
  return {"sm_89": (SM89_FP8, dtypes.fp8e4m3, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"),
          "gfx942": (CDNA3, dtypes.fp8e4m3fnuz, "v_mfma_f32_16x16x32_fp8_fp8"), "gfx950": (CDNA4, dtypes.fp8e4m3, "v_mfma_f32_16x16x32_fp8_fp8"),
          "gfx1201": (RDNA4, dtypes.fp8e4m3, "v_wmma_f32_16x16x16_fp8_fp8")}[arch]

@pytest.mark.parametrize("arch", ["sm_89", "gfx942", "gfx950", "gfx1201"])
def test_fp8_mma_builds(arch):
  """the same kernel through the real compilers, on the fp8 MMA instruction, without scratch on AMD: nvcc's mma.sync m16n8k32 e4m3
  (sm_89), clang-22's v_mfma_f32_16x16x32_fp8_fp8 (gfx942 in the fnuz formats, gfx950) and v_wmma_f32_16x16x16_fp8_fp8 (gfx1201), P
  rounded by the hardware's conversion (tinygrad 0.14 renders 8-bit floats for gfx950 only: target.AmdFp8 does the rest)"""
  import re, shutil
  from fa_uop.compile import build, amd_clang, resources
  if not (shutil.which("nvcc") if arch == "sm_89" else amd_clang()): pytest.skip(f"no compiler for {arch}")
  t, dt, want = fp8_built(arch)
  t = t.for_dtype(dt)
  ps = [UOp.placeholder((64, 64), dt, i) for i in range(3)] + [UOp.placeholder((64, 64), dtypes.float, i) for i in (3, 4)]
  out = build(sv_sink(*ps, target=t), arch)
  assert want in out and len(re.findall(r"mma\.sync|v_mfma|v_wmma", out)) >= 64 // t.mma[2] * 64 // t.mma[1], arch
  if arch != "sm_89": assert "v_cvt_pk_" in out and resources(out)["scratch"] == 0, arch

def test_amd_fp8_conversions_build():
  """fp8 to float and back on gfx942 (fnuz) and gfx1201 (OCP) by the hardware's conversions (a C cast of the byte would give its
  integer value), each format's own instruction"""
  import re
  from fa_uop.compile import build, amd_clang
  if not amd_clang(): pytest.skip("no clang-22")
  for arch, dt in (("gfx1201", dtypes.fp8e4m3), ("gfx1201", dtypes.fp8e5m2), ("gfx942", dtypes.fp8e4m3fnuz), ("gfx942", dtypes.fp8e5m2fnuz)):
    a, b, c = UOp.placeholder((64,), dt, 0), UOp.placeholder((64,), dtypes.float, 1), UOp.placeholder((64,), dt, 2)
    i = UOp.range(64, 0, AxisType.GLOBAL)
    sink = UOp.group(b[i].store(a[i].cast(dtypes.float) * 2), c[i].store((a[i].cast(dtypes.float) * 3).cast(dt))).end(i)
    out, f = build(sink.sink(arg=KernelInfo(name="fa_cvt", opts_to_apply=())), arch), "bf8" if "e5m2" in dt.name else "fp8"
    assert re.search(rf"v_cvt_f32_{f}_", out) and f"v_cvt_pk_{f}_f32" in out, (arch, dt)

def test_amd_device_renders_fp8(monkeypatch):
  """a real AMD device (DEV=AMD) gets fa_uop's HIP renderer from target_for (its renderer's class swapped, as compile workers rebuild
  it): on gfx942 and gfx12 it renders the fp8 kernel as the compile checks above do; on every AMD target it renders guarded loads as
  selects (AmdSelects), as those checks do"""
  from tinygrad.helpers import Target as TgTarget
  from tinygrad.renderer.cstyle import HIPCCRenderer
  from fa_uop import target as tgt
  from fa_uop.compile import render, linear
  for arch in ("gfx942", "gfx1201", "gfx950", "gfx1100"):
    dev = type("Dev", (), {"renderer": HIPCCRenderer(TgTarget("AMD", arch=arch))})()
    monkeypatch.setattr(tgt, "Device", {"AMD": dev})
    tgt.amd_renderer("AMD")
    r = dev.renderer
    assert type(r) is tgt.AmdCCRenderer
    tgt.amd_renderer("AMD")   # once only
    a, b = UOp.placeholder((64,), dtypes.half, 0), UOp.placeholder((64,), dtypes.half, 1)
    i = UOp.range(64, 0, AxisType.GLOBAL)
    guarded = b[i].store(a[(i + 7).valid(i < 57)] * 2).end(i).sink(arg=KernelInfo(name="fa_guard", opts_to_apply=()))
    src = r.render(linear(guarded, arch))
    assert src == render(guarded, arch) and "?*" not in src, arch
    if arch in ("gfx950", "gfx1100"): continue
    t, dt, _ = fp8_built(arch)
    t = t.fp8
    assert dt in r.supported_dtypes() and dt in type(r)(r.target).supported_dtypes()
    sink = sv_sink(*[UOp.placeholder((64, 64), dt, i) for i in range(3)] + [UOp.placeholder((64, 64), dtypes.float, i) for i in (3, 4)], target=t)
    assert r.render(linear(sink, arch)) == render(sink, arch)

# *** the forward kernel on fp8 inputs ***

# with FA_UOP_SLOW=1 (20-40 s each on the emulator): by default the fp8 MMAs run above on every target, the forward on sm_89 through
# flash_attention below
FWD = [slow("sm_89", dtypes.fp8e4m3, 64), slow("gfx942", dtypes.fp8e4m3fnuz, 64), slow("gfx950", dtypes.fp8e4m3, 64), slow("sm_89", dtypes.fp8e5m2, 128),
       slow("gfx950", dtypes.fp8e5m2, 128), slow("gfx942", dtypes.fp8e5m2fnuz, 32), slow("gfx1201", dtypes.fp8e4m3, 64), slow("gfx1201", dtypes.fp8e5m2, 16),
       slow("gfx1201", dtypes.fp8e4m3, 208)]   # RDNA past D=176: split along the head dim (32x32x4s2), unevenly

@pytest.mark.parametrize("arch,dtype,D", FWD, ids=str)
def test_fp8_forward(rng, arch, dtype, D):
  """flash_fwd on fp8 q, k, v with descales per (batch, KV head) (FlashAttention-3's q_descale, k_descale, v_descale): causal, GQA,
  tails on both sides, a bf16 output and the logsumexp, poisoned, against float64 on the dequantized inputs. The scores are exact in
  float32; the error is P's rounding to fp8 for P·V: relative RMS ≤ 3e-2 for e4m3 (issue 31's bar), 6e-2 for e5m2's 2 mantissa bits"""
  from fa_uop import flash_fwd, default_fwd_config
  from fa_uop.reference import attention_ref
  r, seed = rng
  B, H, Hkv, Nq, Nk = 2, 2, 1, 40, 45
  with Context(DEV=f"PYTHON::{arch}"):
    t = target_for("PYTHON")
    q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtype).realize() for sh in ((B, H, Nq, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D)))
    ds = [r.uniform(0.5, 2.0, (B, Hkv)).astype(np.float32) for _ in range(3)]
    o, lse = nans((B, H, Nq, D), dtypes.bfloat16, "PYTHON"), nans((B, H, Nq), dtypes.float32, "PYTHON")
    cfg = default_fwd_config(t.for_dtype(dtype), D, True)
    outs = Tensor.custom_kernel(q, k, v, o, lse, *(Tensor(d) for d in ds), fxn=functools.partial(flash_fwd, target=t, cfg=cfg, causal=True))
    got_o, got_lse = host(outs[3]), outs[4].numpy().astype(np.float64)
    qn, kn, vn = (host(x) for x in (q, k, v))
  qd, kd, vd = (np.repeat(d, H // Hkv, axis=1)[..., None, None] if i == 0 else d[..., None, None] for i, d in enumerate(ds))
  ref_o, ref_lse = attention_ref(qn * qd, kn * kd, vn * vd, causal=True)
  rel = np.linalg.norm(got_o - ref_o) / np.linalg.norm(ref_o)
  assert np.isfinite(got_o).all() and rel <= (3e-2 if "e4m3" in str(dtype) else 6e-2), f"O rel RMS {rel:.2e} (seed {seed})"
  np.testing.assert_allclose(got_lse, ref_lse, rtol=1e-4, atol=1e-3, err_msg=f"lse (seed {seed})")

# *** Hopper: wgmma on e4m3/e5m2, Vᵀ in the key order that keeps P in registers ***

@pytest.mark.parametrize("H,Hkv,bn", [(1, 1, 128), (1, 1, 224), slow(2, 1, 128)], ids=["mha", "mha-224", "gqa"])   # 25 s a head (128-key tiles)
def test_fp8_forward_hopper_twin(rng, H, Hkv, bn):
  """the forward as the H100 gets it on fp8 (SM90A's fp8 description: warpgroups, LDS tiles in 128-byte atoms, Vᵀ laid out by flash_vt
  with its keys in v_keys order, P's A fragments regrouped from S's registers), its twin on the emulated sm_89 (mma.sync m16n8k32 over
  the same tiles): tails on both sides (two tiles of keys, the second masked), GQA (slow grid), descales, against float64 of the
  dequantized inputs; at 224 keys a tile Vᵀ's tile in 32-byte swizzle atoms. And Vᵀ itself, poisoned: the keys in order, zeros past Nk"""
  from fa_uop import SM90A, FwdConfig, flash_fwd
  from fa_uop.forward import flash_vt
  from fa_uop.reference import attention_ref
  r, seed = rng
  B, Nq, Nk, D, cfg = 1, 40, bn + 22, 128, FwdConfig(64, bn, 4)
  t, nkp = SM90A.portable(), -(-2 * bn // 128) * 128   # (vt_layout's: whole tiles, then whole 128 keys)
  assert cfg.reads_vt(t.fp8, D) and not cfg.reads_vt(t, D) and not any(FwdConfig(64, n, 4).reads_vt(t.fp8, D) for n in (64, 96))
  assert t.fp8.atom_for(bn) == (128 if bn == 128 else 32)
  with Context(DEV="PYTHON::sm_89"):
    q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.fp8e4m3).realize() for sh in ((B, H, Nq, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D)))
    vt = Tensor.custom_kernel(v, nans((B, Hkv, D, nkp), dtypes.float32, "PYTHON").cast(dtypes.fp8e4m3).realize(),
                              fxn=functools.partial(flash_vt, target=t.fp8))[1]
    ds = [r.uniform(0.5, 2.0, (B, Hkv)).astype(np.float32) for _ in range(3)]
    o, lse = nans((B, H, Nq, D), dtypes.bfloat16, "PYTHON"), nans((B, H, Nq), dtypes.float32, "PYTHON")
    outs = Tensor.custom_kernel(q, k, vt, o, lse, *(Tensor(d) for d in ds), fxn=functools.partial(flash_fwd, target=t, cfg=cfg))
    got_o, got_lse, got_vt = host(outs[3]), outs[4].numpy().astype(np.float64), host(vt)
    qn, kn, vn = (host(x) for x in (q, k, v))
  order = np.array(t.fp8.key_order())
  want_vt = np.zeros((B, Hkv, D, nkp))
  want_vt[..., :Nk] = vn.transpose(0, 1, 3, 2)
  want_vt = want_vt.reshape(B, Hkv, D, nkp // 16, 16)[..., order].reshape(B, Hkv, D, nkp)
  assert np.array_equal(got_vt, want_vt), "Vᵀ"
  qd, kd, vd = (np.repeat(d, H // Hkv, axis=1)[..., None, None] if i == 0 else d[..., None, None] for i, d in enumerate(ds))
  ref_o, ref_lse = attention_ref(qn * qd, kn * kd, vn * vd)
  rel = np.linalg.norm(got_o - ref_o) / np.linalg.norm(ref_o)
  assert np.isfinite(got_o).all() and rel <= 3e-2, f"O rel RMS {rel:.2e} (seed {seed})"
  np.testing.assert_allclose(got_lse, ref_lse, rtol=1e-4, atol=1e-3, err_msg=f"lse (seed {seed})")

def test_fp8_key_order_keeps_p_in_registers():
  """sm_89's mma.sync m16n8k32 A fragment is not its C layout (P goes through LDS), but with Vᵀ's keys in SM90A's v_keys order each
  lane's A elements are its own C elements, regrouped; the order is a permutation within each group of 16 keys"""
  from tinygrad.dtype import AddrSpace
  from fa_uop import SM90A
  from fa_uop.target import SM89_FP8
  from fa_uop.tiles import a_from_acc
  order = SM90A.fp8.key_order()
  assert sorted(order) == list(range(16)) and order[:4] == (0, 1, 8, 9) and SM89_FP8.key_order() is None
  acc = UOp.placeholder((1, 16, 4), dtypes.float, slot=0, addrspace=AddrSpace.REG)
  assert a_from_acc(Block(SM89_FP8, 1), acc) is None and a_from_acc(Block(SM90A.fp8, 1), acc, order) is not None
  assert a_from_acc(Block(SM90A.fp8, 1), acc, tuple(range(16))) is None

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
@pytest.mark.parametrize("causal,c", [slow(False, None), (True, None), (False, "128x224x8tr2p")], ids=["full", "causal", "full-224"])
def test_fp8_forward_builds_for_sm_90a(causal, c):
  """the fp8 forward as the H100 gets it (its default tile at D=128; and 224 keys a tile, Vᵀ's in 32-byte swizzle atoms, seven boxes
  a copy): both products by wgmma m64nNk32 on e4m3 (no mma.sync left), P rounded two values a cvt, K and Vᵀ by bulk copies from a
  producer warpgroup handing its registers over, no spill, none serialized; flash_vt with 16-byte copies and stores"""
  from fa_uop import SM90A, flash_fwd, default_fwd_config, FwdConfig
  from fa_uop.forward import flash_vt
  from fa_uop.compile import build, render, compile_source, cuda_resources
  cfg = FwdConfig.parse(c) if c else default_fwd_config(SM90A.fp8, 128, causal)
  dt, N = dtypes.fp8e4m3, 1000
  nkp = round_up(round_up(N, cfg.block_n), 128)   # vt_layout's
  shapes = [((2, 4, N, 128), dt), ((2, 2, N, 128), dt), ((2, 2, 128, nkp), dt), ((2, 4, N, 128), dtypes.bfloat16), ((2, 4, N), dtypes.float)] + [((2, 2), dtypes.float)] * 3
  shapes += [((32,), dtypes.uint64)] * cfg.tma   # the tensor maps
  sink = flash_fwd(*[UOp.placeholder(sh, d, i) for i, (sh, d) in enumerate(shapes)], target=SM90A, cfg=cfg, causal=causal, tma=cfg.tma)
  ptx = compile_source(src:=render(sink, "sm_90a"), "sm_90a")
  # the producer's K and Vᵀ boxes (nvcc unrolls its loop), its registers handed to the consumers
  assert cfg.ring and src.count("cp.async.bulk.tensor.3d") == 2 and src.count("setmaxnreg") == 2 and "cp.async.bulk.tensor.3d" in ptx
  assert f"wgmma.mma_async.sync.aligned.m64n{cfg.block_n}k32.f32.e4m3.e4m3" in ptx and "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
  ncvt = ptx.count("cvt.rn.satfinite.e4m3x2.f32")   # a thread's P: block_n/2 floats a KV loop (causal: two loops)
  assert "mma.sync" not in ptx and ncvt > 0 and ncvt % (cfg.block_n // 4) == 0
  # Vᵀ's descriptors: 32-byte swizzle (mode 3, 8 rows 256 bytes apart) where its keys fill no wider atom
  assert (f"(({16 | 3 << 30}ull) << 32)" in src) == (cfg.block_n % 128 != 0)   # the 32-byte swizzle's descriptor (its high word)
  res = cuda_resources(src, "sm_90a")
  assert res["spill_stores"] == 0 and res["wgmma_serialized"] == 0, res
  ptx = build(flash_vt(UOp.placeholder((2, 2, N, 128), dt, 0), UOp.placeholder((2, 2, 128, 1024), dt, 1), target=SM90A.fp8), "sm_90a")
  assert ptx.count("cp.async.cg.shared.global") >= 8 and ptx.count("st.global.v4") >= 8

# fp8 on AMD: gfx942 (fnuz, rendered by target.AmdFp8) at D=128 by default, the rest with FA_UOP_SLOW=1 (test_fp8_mma_builds builds each MMA)
@pytest.mark.parametrize("arch,D", [("gfx942", 128), slow("gfx1201", 128), slow("gfx950", 128), slow("gfx942", 256), slow("gfx1201", 256)], ids=str)
def test_fp8_forward_builds_on_amd(arch, D):
  """the fp8 forward at its default tile through clang-22: every product on the 8-bit MFMA or WMMA (gfx942 in the fnuz formats), P
  rounded by v_cvt_pk, no LDS race, and no scratch (RDNA4's at D=256 spilled when this was written; at b7a9b16 none: issue 32)"""
  from fa_uop import flash_fwd, default_fwd_config
  from fa_uop.compile import build, amd_clang, resources, lds_hazards, linear
  if not amd_clang(): pytest.skip(f"no compiler for {arch}")
  t, dt, mma = fp8_built(arch)
  N, cfg = 1000, default_fwd_config(t.fp8, D, True)
  shapes = [((2, 4, N, D), dt), ((2, 2, N, D), dt), ((2, 2, N, D), dt), ((2, 4, N, D), dtypes.bfloat16), ((2, 4, N), dtypes.float)] + [((2, 2), dtypes.float)] * 3
  sink = flash_fwd(*[UOp.placeholder(sh, d, i) for i, (sh, d) in enumerate(shapes)], target=t, cfg=cfg, causal=True)
  out = build(sink, arch)
  # per warp and KV step: S's (block_n / N) * (D / K) products and O's (D / N) * (block_n / K), each unrolled
  assert out.count(mma) >= 2 * cfg.block_n * D // (t.fp8.mma[1] * t.fp8.mma[2]) and "v_cvt_pk_" in out and "v_mfma_f32_16x16x16" not in out
  assert lds_hazards(linear(sink, arch)) == []
  assert resources(out)["scratch"] == 0, resources(out)

# *** through flash_attention ***

@pytest.mark.parametrize("masked", [False, slow(True)], ids=["plain", "mask_mod"])
def test_fp8_through_flash_attention(rng, masked):
  """flash_attention on e4m3 inputs with descales on the emulated sm_89 (its default tile for fp8, the forward kernel whatever Nq):
  a bf16 output and the logsumexp against float64 of the dequantized inputs, and with a key-padding mask_mod (a block map)"""
  from fa_uop import flash_attention
  from fa_uop.reference import attention_ref
  r, seed = rng
  B, H, Hkv, Nq, Nk, D = 2, 2, 1, 33, 70, 32
  with Context(DEV="PYTHON::sm_89"):
    q, k, v = (Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtypes.fp8e4m3).realize() for sh in ((B, H, Nq, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D)))
    ds = [r.uniform(0.5, 2.0, (B, Hkv)).astype(np.float32) for _ in range(3)]
    n = np.array([50, 70], np.int32)
    cases = (({}, None), ({"mask_mod": lambda b, h, qi, kj, m: kj < m[b], "mod_args": (Tensor(n),)}, np.arange(Nk)[None, None, None, :] < n[:, None, None, None]))
    for kw, keep in cases[masked:masked + 1]:
      o, lse = flash_attention(q, k, v, causal=True, return_lse=True, q_descale=Tensor(ds[0]), k_descale=Tensor(ds[1]), v_descale=Tensor(ds[2]), **kw)
      assert o.dtype == dtypes.bfloat16
      got_o, got_lse = host(o), lse.numpy().astype(np.float64)
      qn, kn, vn = (host(x) for x in (q, k, v))
      dq, dk, dv = (np.repeat(d, H // Hkv, axis=1)[..., None, None] if i == 0 else d[..., None, None] for i, d in enumerate(ds))
      ref_o, ref_lse = attention_ref(qn * dq, kn * dk, vn * dv, causal=True, keep=keep)
      assert np.linalg.norm(got_o - ref_o) / np.linalg.norm(ref_o) <= 3e-2, f"{kw} (seed {seed})"
      np.testing.assert_allclose(got_lse, ref_lse, rtol=1e-4, atol=1e-3, err_msg=f"{kw} (seed {seed})")

BAD = [("sm_80", dict(), TypeError, "sm_80 has no MMA for dtypes.fp8e4m3"),
       ("sm_89", dict(q_descale="ones"), ValueError, "q_descale is for fp8 inputs"),
       ("sm_89", dict(k_descale="wrong shape"), ValueError, r"k_descale must have shape \(B, Hkv\)"),
       ("sm_89", dict(v_descale="half"), TypeError, "v_descale must be a float32 Tensor"),
       ("sm_89", dict(grad=True), ValueError, "fp8 attention is forward-only"),
       ("sm_89", dict(D=16), ValueError, "head dim 16 must be a multiple of the MMA K=32")]

@pytest.mark.parametrize("arch,over,exc,msg", BAD, ids=[b[3] for b in BAD])
def test_bad_fp8_input(no_kernel, arch, over, exc, msg):
  """fp8 calls refused before any kernel is built, with what is wrong"""
  from fa_uop import flash_attention
  with Context(DEV=f"PYTHON::{arch}"):
    D = over.pop("D", 32)
    dt = dtypes.half if "q_descale" in over else dtypes.fp8e4m3
    q, k, v = (Tensor.empty(1, 2, 8, D, dtype=dt) for _ in range(3))
    if over.pop("grad", False): q.requires_grad = True
    make = {"ones": lambda: Tensor.ones(1, 2), "wrong shape": lambda: Tensor.ones(2, 1), "half": lambda: Tensor.ones(1, 2, dtype=dtypes.half)}
    with pytest.raises(exc, match=msg): flash_attention(q, k, v, **{name: make[x]() for name, x in over.items()})

# *** through the KV cache ***

# (target, format, page size or None (dense), splits, a window and softcap, head dim): paged and split by default, the rest with
# FA_UOP_SLOW=1 (10-15 s each); at D=176 and 192 the default tiles (RDNA4's the forward's split one; CDNA's 32 keys a step past 8192
# elements)
KV = [("sm_89", dtypes.fp8e4m3, 16, 2, False, 32), slow("sm_89", dtypes.fp8e4m3, None, 3, True, 32), slow("sm_89", dtypes.fp8e5m2, 32, 1, False, 32),
      slow("gfx950", dtypes.fp8e4m3, 16, 2, False, 32), slow("gfx942", dtypes.fp8e4m3fnuz, None, 2, False, 32),
      slow("gfx942", dtypes.fp8e5m2fnuz, 16, 3, False, 32), slow("gfx1201", dtypes.fp8e4m3, 16, 2, True, 32),
      slow("gfx1201", dtypes.fp8e4m3, 16, 1, False, 176), slow("gfx950", dtypes.fp8e4m3, 16, 2, False, 192)]

@pytest.mark.parametrize("arch,dtype,page,splits,mods,D", KV, ids=str)
def test_fp8_kvcache(rng, poisoned, arch, dtype, page, splits, mods, D):
  """a decoding step on an fp8 cache as FlashAttention-3's flash_attn_with_kvcache takes it: write_kvcache puts the step's new keys
  and values (already fp8: the caller quantizes) at each sequence's length, then 2 queries a sequence read the cache (dense, or paged
  through a shuffled pool), causal, GQA, descales per (sequence, KV head), split and combined (mods: a bottom-right window of 40 keys
  and a softcap on the descaled scores); the cache exactly as written, and the
  bf16 output and the logsumexp, poisoned, against float64 on the dequantized inputs (relative RMS ≤ 3e-2 e4m3, 6e-2 e5m2)"""
  from fa_uop import flash_attention_with_kvcache, write_kvcache, FwdConfig
  from fa_uop.reference import kvcache_ref
  r, seed = rng
  B, H, Hkv, Nq, Nmax = 3, 4, 2, 2, 96
  before = r.permutation(np.array([0, Nmax - Nq, r.integers(1, Nmax - Nq)], np.int32))   # lengths before the step's keys
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32)).cast(dtype).realize()
  with Context(DEV=f"PYTHON::{arch}"):
    pool = (B, Hkv, Nmax, D) if page is None else (B * Nmax // page + 2, Hkv, page, D)
    table = None if page is None else r.permutation(pool[0])[:B * Nmax // page].reshape(B, -1).astype(np.int32)
    q, kc, vc, k, v = rand(B, H, Nq, D), rand(*pool), rand(*pool), rand(B, Hkv, Nq, D), rand(B, Hkv, Nq, D)
    ds = [r.uniform(0.5, 2.0, (B, Hkv)).astype(np.float32) for _ in range(3)]
    qn, kcn, vcn, kn, vn = (host(x) for x in (q, kc, vc, k, v))
    tt = None if table is None else Tensor(table)
    kc2, vc2 = write_kvcache(kc, vc, k, v, Tensor(before), tt)
    o, lse = flash_attention_with_kvcache(q, kc2, vc2, Tensor(before + Nq), tt, causal=True, return_lse=True, num_splits=splits,
                                          config=FwdConfig(16, 32, 1) if D == 32 else None, q_descale=Tensor(ds[0]), k_descale=Tensor(ds[1]), v_descale=Tensor(ds[2]),
                                          **(dict(window=(40, None), softcap=3.0) if mods else {}))
    assert o.dtype == dtypes.bfloat16 and lse.dtype == dtypes.float32
    got_o, got_lse, got_kc, got_vc = host(o), lse.numpy().astype(np.float64), host(kc), host(vc)
  for b in range(B):   # what the write must leave, in place: each sequence's new keys at its length, through its pages
    for i in range(Nq):
      n = before[b] + i
      at = (b, slice(None), n) if table is None else (table[b, n // page], slice(None), n % page)
      kcn[at], vcn[at] = kn[b, :, i], vn[b, :, i]
  assert np.array_equal(got_kc, kcn) and np.array_equal(got_vc, vcn), f"the written cache (seed {seed})"
  if table is not None: kcn, vcn = (c[table].transpose(0, 2, 1, 3, 4).reshape(B, Hkv, Nmax, D) for c in (kcn, vcn))   # sequence order
  qd, kd, vd = (np.repeat(d, H // Hkv, axis=1)[..., None, None] if i == 0 else d[..., None, None] for i, d in enumerate(ds))
  ref_o, ref_lse = kvcache_ref(qn * qd, kcn * kd, vcn * vd, before + Nq, None, causal=True,
                               **(dict(window=(40, None), score=lambda x, qp, kp: 3.0 * np.tanh(x / 3.0)) if mods else {}))
  rel = np.linalg.norm(got_o - ref_o) / np.linalg.norm(ref_o)
  assert np.isfinite(got_o).all() and rel <= (3e-2 if "e4m3" in str(dtype) else 6e-2), f"O rel RMS {rel:.2e} (seed {seed}, lengths {before})"
  np.testing.assert_allclose(got_lse, ref_lse, rtol=1e-4, atol=1e-3, err_msg=f"lse (seed {seed}, lengths {before})")

BAD_KV = [("sm_80", dict(), TypeError, "sm_80 has no MMA for dtypes.fp8e4m3"),
          ("gfx942", dict(), TypeError, "gfx942 has no MMA for dtypes.fp8e4m3"),
          ("sm_89", dict(q=dtypes.bfloat16), TypeError, "q, k_cache and v_cache must share a dtype"),
          ("sm_89", dict(v=dtypes.fp8e5m2), TypeError, "q, k_cache and v_cache must share a dtype"),
          ("sm_89", dict(q=dtypes.half, k=dtypes.half, v=dtypes.half, q_descale="ones"), ValueError, "q_descale is for fp8 inputs"),
          ("sm_89", dict(k_descale="per page"), ValueError, r"k_descale must have shape \(B, Hkv\) = \(2, 1\)"),
          ("sm_89", dict(v_descale="half"), TypeError, "v_descale must be a float32 Tensor"),
          ("sm_89", dict(grad=True), ValueError, "fp8 attention is forward-only"),
          ("sm_89", dict(D=16), ValueError, "head dim 16 must be a multiple of the MMA K=32"),
          ("sm_89", dict(config="16-key tiles"), ValueError, "block_n=16 must be a multiple of 16 and of the MMA N=8 and K=32")]

@pytest.mark.parametrize("arch,over,exc,msg", BAD_KV, ids=[f"{b[0]}-{b[3]}" for b in BAD_KV])
def test_bad_fp8_kvcache(no_kernel, arch, over, exc, msg):
  """fp8 cache calls refused before any kernel is built, with what is wrong: targets without an fp8 MMA for the format, mixed dtypes,
  descales for 16-bit inputs, of the pool's shape (they are per sequence) or dtype, a gradient, D or a tile the fp8 MMA's K rules out"""
  from fa_uop import flash_attention_with_kvcache, FwdConfig
  with Context(DEV=f"PYTHON::{arch}"):
    D = over.pop("D", 32)
    q, k, v = (Tensor.empty(*sh, D, dtype=over.pop(n, dtypes.fp8e4m3)) for n, sh in (("q", (2, 2, 1)), ("k", (5, 1, 16)), ("v", (5, 1, 16))))
    if over.pop("grad", False): q.requires_grad = True
    make = {"ones": lambda: Tensor.ones(2, 1), "per page": lambda: Tensor.ones(5, 1), "half": lambda: Tensor.ones(2, 1, dtype=dtypes.half),
            "16-key tiles": lambda: FwdConfig(16, 16, 1)}
    with pytest.raises(exc, match=msg):
      flash_attention_with_kvcache(q, k, v, Tensor([3, 20], dtype=dtypes.int32), Tensor.zeros(2, 2, dtype=dtypes.int32),
                                   **{n: make[x]() for n, x in over.items()})

def test_fp8_write_kvcache_takes_the_cache_dtype(no_kernel):
  """write_kvcache copies entries as they are: 16-bit k and v for an fp8 cache are refused (the caller quantizes them, with its scale)"""
  from fa_uop import write_kvcache
  with Context(DEV="PYTHON::sm_89"):
    kc, vc = (Tensor.empty(2, 1, 16, 32, dtype=dtypes.fp8e4m3) for _ in range(2))
    k, v = (Tensor.empty(2, 1, 1, 32, dtype=dtypes.bfloat16) for _ in range(2))
    with pytest.raises(TypeError, match="k must have k_cache's dtype dtypes.fp8e4m3, got dtypes.bfloat16"):
      write_kvcache(kc, vc, k, v, Tensor([0, 3]))

# *** on the GPU ***

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [dtypes.fp8e4m3, dtypes.fp8e5m2], ids=str)
def test_fp8_on_the_gpu(rng, dtype):
  """fp8 as users call it on an NVIDIA GPU with an fp8 MMA (sm_89+; the H100's wgmma with Vᵀ): flash_attention at D=128 and 256,
  causal and not, GQA and tails, then under TinyJit (captured, replayed on new inputs of the same shape), the KV cache (paged, split)
  and the SDPA drop-in, each against float64 of the dequantized inputs"""
  from tinygrad import Device, TinyJit
  from fa_uop import flash_attention, flash_attention_with_kvcache, scaled_dot_product_attention
  from fa_uop.reference import attention_ref, kvcache_ref
  dev = Device.DEFAULT
  if not dev.startswith("CUDA") or int(Device[dev].renderer.target.arch[3:].rstrip("a")) < 89: pytest.skip("needs DEV=CUDA on sm_89 or newer")
  r, seed = rng
  tol = 3e-2 if dtype == dtypes.fp8e4m3 else 6e-2
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32), device=dev).cast(dtype).realize()
  def check(o, ref, what):
    got = host(o)
    rel = np.linalg.norm(got - ref) / np.linalg.norm(ref)
    assert np.isfinite(got).all() and rel <= tol, f"{what}: rel RMS {rel:.2e} (seed {seed})"
  for B, H, Hkv, Nq, Nk, D, causal in ((2, 4, 2, 300, 333, 128, True), (1, 2, 2, 129, 1000, 128, False), (1, 4, 1, 200, 257, 256, True)):
    q, k, v = rand(B, H, Nq, D), rand(B, Hkv, Nk, D), rand(B, Hkv, Nk, D)
    ds = [Tensor(r.uniform(0.5, 2.0, (B, Hkv)).astype(np.float32), device=dev).realize() for _ in range(3)]
    o = flash_attention(q, k, v, causal=causal, q_descale=ds[0], k_descale=ds[1], v_descale=ds[2])
    qn, kn, vn = (host(x) for x in (q, k, v))
    dq, dk, dv = (np.repeat(d.numpy(), H // Hkv, axis=1)[..., None, None] if i == 0 else d.numpy()[..., None, None] for i, d in enumerate(ds))
    check(o, attention_ref(qn * dq, kn * dk, vn * dv, causal=causal)[0], f"flash_attention {B, H, Hkv, Nq, Nk, D, causal}")
  step = TinyJit(lambda q, k, v: flash_attention(q, k, v, causal=True).realize())
  for _ in range(3):   # capture, then replays on fresh inputs
    q, k, v = rand(1, 2, 190, 128), rand(1, 2, 190, 128), rand(1, 2, 190, 128)
    check(step(q, k, v), attention_ref(*(host(x) for x in (q, k, v)), causal=True)[0], "TinyJit")
  q, kc, vc = rand(2, 4, 1, 128), rand(2 * 512 // 64, 2, 64, 128), rand(2 * 512 // 64, 2, 64, 128)
  table = np.random.default_rng(seed).permutation(16).reshape(2, 8).astype(np.int32)
  lens = np.array([300, 512], np.int32)
  o = flash_attention_with_kvcache(q, kc, vc, Tensor(lens, device=dev), Tensor(table, device=dev), causal=True, num_splits=4)
  kcn, vcn = (host(c)[table].transpose(0, 2, 1, 3, 4).reshape(2, 2, 512, 128) for c in (kc, vc))
  check(o, kvcache_ref(host(q), kcn, vcn, lens, None, causal=True)[0], "KV cache")
  q, k, v = rand(2, 4, 100, 64), rand(2, 4, 100, 64), rand(2, 4, 100, 64)
  o = scaled_dot_product_attention(q, k, v, is_causal=True)
  assert o.dtype == dtypes.bfloat16
  check(o, attention_ref(*(host(x) for x in (q, k, v)), causal=True)[0], "SDPA drop-in")

@pytest.mark.gpu
@pytest.mark.parametrize("c,D", [("128x128x8tr2", 128), ("64x128x4x2tr2", 128), ("128x128x8tr1", 256), ("128x128x8tr2p", 128),
                                 ("128x224x8tr2p", 128)], ids=str)
def test_fp8_ring_on_hopper(rng, c, D):
  """on an H100 or H200: fp8 with K and Vᵀ by bulk copies (boxes of 128 bytes of 8-bit elements, Vᵀ's of 32 at 224 keys a tile; Vᵀ's
  keys its columns) from a producer
  warpgroup's ring, through flash_attention with descales, GQA and tails on both sides, causal and not, against float64"""
  from tinygrad import Device
  from fa_uop import flash_attention, FwdConfig
  from fa_uop.reference import attention_ref
  dev = Device.DEFAULT
  if not dev.startswith("CUDA") or Device[dev].renderer.target.arch != "sm_90": pytest.skip("needs DEV=CUDA on an H100 or H200")
  r, seed = rng
  rand = lambda *sh: Tensor(r.standard_normal(sh).astype(np.float32), device=dev).cast(dtypes.fp8e4m3).realize()
  q, k, v = rand(2, 4, 300, D), rand(2, 2, 333, D), rand(2, 2, 333, D)
  ds = [Tensor(r.uniform(0.5, 2.0, (2, 2)).astype(np.float32), device=dev).realize() for _ in range(3)]
  qn, kn, vn = (host(x) for x in (q, k, v))
  dq, dk, dv = (np.repeat(d.numpy(), 2, axis=1)[..., None, None] if i == 0 else d.numpy()[..., None, None] for i, d in enumerate(ds))
  for causal in (False, True):
    got = host(flash_attention(q, k, v, causal=causal, q_descale=ds[0], k_descale=ds[1], v_descale=ds[2], config=FwdConfig.parse(c)))
    ref = attention_ref(qn * dq, kn * dk, vn * dv, causal=causal)[0]
    rel = np.linalg.norm(got - ref) / np.linalg.norm(ref)
    assert np.isfinite(got).all() and rel <= 3e-2, f"{c} causal={causal}: rel RMS {rel:.2e} (seed {seed})"
