import functools
import numpy as np, pytest
from tinygrad import Tensor, dtypes
from fa_uop import (flash_attention, flash_attention_backward, flash_bwd_delta, flash_bwd_dkdv, flash_bwd_dq, target_for, default_bwd_configs,
                    BwdConfig)
from fa_uop.reference import attention_ref, attention_bwd_ref
from fa_uop.api import _ring_maps
from conftest import qkv, host, nans, device_tensor, slow, slow_on, EMULATED, all_targets

# gradients are sums over up to Nq or Nk products of rounded values: a little looser than the forward's bounds
GTOL = {dtypes.half: dict(rel=2e-3, abs=1.5e-2), dtypes.bfloat16: dict(rel=1.5e-2, abs=8e-2)}

def assert_grads(got, ref, dtype, msg):
  for name, g, r in zip(("dq", "dk", "dv"), got, ref):
    g = host(g) if isinstance(g, Tensor) else g
    assert np.isfinite(g).all(), f"{name}: unwritten or non-finite {msg}"
    if np.linalg.norm(r) > 1e-4:  # a zero gradient (one key: the softmax is constant) has only the absolute bound
      rel = np.linalg.norm(g - r) / np.linalg.norm(r)
      assert rel <= GTOL[dtype]["rel"], f"{name} rel err {rel:.2e} {msg}"
    assert np.abs(g - r).max() <= GTOL[dtype]["abs"], f"{name} max abs err {np.abs(g - r).max():.2e} {msg}"

def check_autograd(rng, B, H, Hkv, Nq, Nk, D, causal, dtype, scale=None, use_lse=False):
  """loss = Σ o·dO (+ Σ lse·dLSE): backward() through flash_attention against the float64 reference"""
  r, seed = rng
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtype)
  do_n = r.standard_normal((B, H, Nq, D)).astype(np.float32)
  dl_n = r.standard_normal((B, H, Nq)).astype(np.float32) if use_lse else None
  for t in (q, k, v): t.requires_grad = True
  o, lse = flash_attention(q, k, v, causal=causal, scale=scale, return_lse=True)
  loss = (o.float() * Tensor(do_n, device="PYTHON")).sum()
  if use_lse: loss = loss + (lse * Tensor(dl_n, device="PYTHON")).sum()
  loss.backward()
  Tensor.realize(q.grad, k.grad, v.grad)
  ref = attention_bwd_ref(qn, kn, vn, do_n, causal, scale, dl_n)
  assert_grads((q.grad, k.grad, v.grad), ref, dtype, f"(seed {seed})")

# by default: D=64 full fp16 and causal bf16 (both dtypes, causal or not), on sm_80 D=128 causal fp16 too (CI time), and on gfx1201
# (RDNA's D=128 dK/dV splits the head dim over 8 warps: Target.bwd_acc); the rest with FA_UOP_SLOW=1
# (sm_80's 64 full fp16 with FA_UOP_SLOW=1, for CI's time: gfx1100 runs it by default)
def _default(arch, D, c, dt): return (D, c, dt) == (64, True, dtypes.bfloat16) or \
  (arch, D, c, dt) in (("sm_80", 128, True, dtypes.half), ("gfx1201", 128, True, dtypes.half), ("gfx1100", 64, False, dtypes.half))
HEAD_GRID = [(a, D, c, dt) if _default(a, D, c, dt) else slow(a, D, c, dt)
             for a in EMULATED for D in (32, 64, 128) for c in (False, True) for dt in (dtypes.half, dtypes.bfloat16)]
@pytest.mark.parametrize("emu,D,causal,dtype", HEAD_GRID, indirect=["emu"],
                         ids=lambda x: {True: "causal", False: "full", dtypes.half: "fp16", dtypes.bfloat16: "bf16"}.get(x, str(x)))
@all_targets(keep=lambda p: p["causal"] and (p["dtype"] == dtypes.bfloat16 or p["D"] == 128))
def test_head_dims(emu, rng, D, causal, dtype): check_autograd(rng, 1, 1, 1, 48, 48, D, causal, dtype)

@pytest.mark.parametrize("D", [16, slow(48), slow(80), slow(96), slow(112), slow(144), slow(160), slow(176), slow(192), 256])
@slow_on("gfx1100", keep=lambda p: p["D"] != 256)
def test_other_head_dims(emu, rng, D):
  """every head dim the API accepts has a backward; the grid above covers the common ones in both dtypes (D=256 on 24 rows: its
  small default tiles still see two tiles and tails, in a third of the emulator's time)"""
  N = 24 if D == 256 else 40
  check_autograd(rng, 1, 1, 1, N, N, D, True, dtypes.half)

@pytest.mark.parametrize("emu", ["gfx1100", "gfx1201"], indirect=True)   # the targets with a Target.one_stage (gfx1201: FA_UOP_SLOW=1)
@pytest.mark.parametrize("causal", [False, slow(True)], ids=["full", "causal"])   # causal: by default at D=256 above
def test_one_stage_past_the_targets_head_dim(emu, rng, causal):
  """past Target.one_stage the forward without a causal diagonal and the causal dQ visit every KV tile masked, in one stage: at D=192
  (the non-causal forward's, the causal dQ's), key and query tails over several tiles and GQA, the output and gradients against float64"""
  from fa_uop import RDNA3, RDNA4
  t = {"gfx1100": RDNA3, "gfx1201": RDNA4}[emu]
  assert t.stages(192, "fwd" if not causal else "dq", causal, False) == 1
  check_autograd(rng, 1, 2, 1, 70, 75, 192, causal, dtypes.half)

@pytest.mark.parametrize("Nq,Nk,causal", [(1, 1, False), (1, 40, True), (40, 1, True), (17, 33, True), (33, 17, False), (70, 33, True)])
@slow_on("gfx1100", keep=lambda p: p["Nq"] in (17, 70))
@all_targets(keep=lambda p: p["Nq"] == 17)
def test_tails(emu, rng, Nq, Nk, causal): check_autograd(rng, 1, 1, 1, Nq, Nk, 32, causal, dtypes.half)

# with FA_UOP_SLOW=1 (CI time): GQA gradients run by default in tests/test_shard.py (sm_80) and test_sdpa.py's (sm_80, gfx1100)
@pytest.mark.parametrize("H,Hkv,Nq,causal", [slow(4, 2, 70, True), slow(4, 1, 40, False), slow(2, 1, 96, True)])
def test_gqa(emu, rng, H, Hkv, Nq, causal):
  """dK and dV sum over the query heads of a group; Nq=70 and 96 with 32-row query tiles put a one-trip stage inside the head loop"""
  check_autograd(rng, 1, H, Hkv, Nq, 33, 32, causal, dtypes.half)

@slow_on("gfx1100")   # sm_80 by default (CI time)
def test_loss_on_lse_and_scale(emu, rng):
  """a loss that also reads the logsumexp, with a custom scale"""
  check_autograd(rng, 1, 2, 1, 40, 50, 32, True, dtypes.half, scale=0.3, use_lse=True)

@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_kernels_write_every_element(emu, rng, causal):
  """the dK/dV and dQ kernels themselves, outputs poisoned with NaN, against the reference (tails on both sides, GQA)"""
  check_kernels(rng, causal, target_for("PYTHON"), BwdConfig(32, 16, 2), 1, 2, 1, 37, 45, 32)

def check_kernels(rng, causal, t, cfg, B, H, Hkv, Nq, Nk, D, device="PYTHON"):
  """flash_bwd_dkdv and flash_bwd_dq built for target t with cfg (or a (dK/dV, dQ) pair), on the device (the emulator by default),
  outputs poisoned, against the float64 reference"""
  r, seed = rng
  c_kv, c_q = cfg if isinstance(cfg, tuple) else (cfg, cfg)
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtypes.half, device)
  o_ref, lse_ref = attention_ref(qn, kn, vn, causal)
  do = device_tensor(r.standard_normal((B, H, Nq, D)), dtypes.half, device)
  do_n = host(do)
  lse, delta = (device_tensor(x, dtypes.float32, device) for x in (lse_ref, (do_n * o_ref).sum(-1)))
  nan = lambda *s: nans(s, dtypes.half, device)
  # with the dQ accumulation (c_kv.dq) the dK/dV kernel adds dQ into float32 zeros of whole query tiles, scaled and rounded after
  acc = (Tensor.zeros(B, H, -(-Nq // c_kv.block_n) * c_kv.block_n, D, dtype=dtypes.float32, device=device).contiguous(),) if c_kv.dq else ()
  # with a producer's ring (Hopper) the last argument is the tensor maps of q and do (dK/dV), of k and v (dQ), as flash_attention_backward
  # makes them
  tmaps = _ring_maps(t, (c_kv, c_q), q, k, v, do)
  dk, dv, *acc = Tensor.custom_kernel(q, k, v, do, lse, delta, nan(B, Hkv, Nk, D), nan(B, Hkv, Nk, D), *acc, *tmaps[0],
                                      fxn=functools.partial(flash_bwd_dkdv, target=t, cfg=c_kv, causal=causal))[6:8 + len(acc)]
  dq = (acc[0][:, :, :Nq] / np.sqrt(D)).cast(dtypes.half) if c_kv.dq else \
    Tensor.custom_kernel(q, k, v, do, lse, delta, nan(B, H, Nq, D), *tmaps[1],
                         fxn=functools.partial(flash_bwd_dq, target=t, cfg=c_q, causal=causal))[6]
  Tensor.realize(dq, dk, dv)
  assert_grads((dq, dk, dv), attention_bwd_ref(qn, kn, vn, do_n, causal), dtypes.half, f"(seed {seed})")

@pytest.mark.parametrize("cfg,D", [("32x32x4s2", 64), ("32x32x4s2", 48), slow("64x32x4s2", 32), slow("32x64x8s4", 64), slow("32x64x8s4", 48)], ids=str)
@slow_on("gfx1100")   # by default on sm_80 and gfx942 (CDNA3, wave64: its D=256 default splits), the rest with FA_UOP_SLOW=1
@all_targets(keep=lambda p: p["cfg"] == "32x32x4s2" and p["emu"] == "gfx942")
def test_split_over_the_head_dim(emu, rng, cfg, D):
  """dK/dV and dQ with the warps split along the head dim (and Sᵀ's query columns, S's key columns), Pᵀ and dSᵀ through LDS: two
  m-tiles a warp, four column groups, unevenly where the head dim's 16-column pieces do not divide (48: two groups of 32 columns, or
  four of 16, the last past D phantom); causal, GQA, tails on both sides, outputs poisoned"""
  check_kernels(rng, True, target_for("PYTHON"), (BwdConfig.parse(cfg), BwdConfig.parse(cfg)), 1, 2, 1, 37, 45, D)

# the dQ accumulation (dK/dV config suffix q): by default 32x16x2q on every target, the split and the 4-warp forms on sm_80 and gfx942
@pytest.mark.parametrize("cfg,D,causal", [("32x16x2q", 32, True), ("64x32x4q", 64, False), ("32x32x4s2q", 64, True), slow("32x32x2q", 128, True),
                                          slow("16x16x1q", 16, False)], ids=str)
@slow_on("gfx1100", keep=lambda p: p["cfg"] == "32x16x2q")
@all_targets(keep=lambda p: p["cfg"] == "32x16x2q" or p["emu"] == "gfx942")
def test_dq_accumulation(emu, rng, cfg, D, causal):
  """FlashAttention-3's dQ accumulation: the dK/dV kernel adds each query tile's dS·K into a float32 dQ (blocks of other keys adding
  into the same rows), dS through LDS transposed; its warps split dQ's part by rows and columns (and with s2 Sᵀ's columns too):
  GQA (two query heads a KV head, each its own dQ), tails on both sides, dK and dV poisoned"""
  check_kernels(rng, causal, target_for("PYTHON"), (BwdConfig.parse(cfg), BwdConfig(32, 16, 2)), 1, 2, 1, 37, 45, D)

@pytest.mark.parametrize("mods", ["window_softcap", slow("mask_mod")])
@slow_on("gfx1100")
def test_dq_accumulation_with_mods(emu, rng, mods):
  """the dQ accumulation through flash_attention_backward under modifications: a window with softcap (dS times the score's
  derivative), or a mask_mod with its block map (dK/dV's, keys x queries), against the float64 reference"""
  r, seed = rng
  B, H, Hkv, Nq, Nk, D = 1, 2, 1, 40, 52, 32
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtypes.half)
  do_n = r.standard_normal((B, H, Nq, D)).astype(np.float32)
  i, j = np.arange(Nq)[:, None], np.arange(Nk)[None, :]
  if mods == "window_softcap":
    kw, keep = dict(window=(9, 3), softcap=2.0), (j >= i - 9) & (j <= i + 3)
    score, dscore = (lambda x: 2.0 * np.tanh(x / 2.0)), (lambda x: 1 - np.tanh(x / 2.0) ** 2)
  else:
    kw, keep = dict(mask_mod=lambda b, h, qi, kj: ((qi // 8) % 2).eq((kj // 8) % 2) | (qi >= kj)), ((i // 8) % 2 == (j // 8) % 2) | (i >= j)
    score = dscore = None
  o, lse = flash_attention(q, k, v, return_lse=True, **kw)
  cfgs = (BwdConfig.parse("32x16x2q"), BwdConfig(32, 16, 2))
  grads = flash_attention_backward(q, k, v, o, lse, Tensor(do_n, device="PYTHON").cast(dtypes.half), configs=cfgs, **kw)
  ref = attention_bwd_ref(qn, kn, vn, do_n, False, keep=keep, score=score, dscore=dscore)
  assert_grads(grads, ref, dtypes.half, f"({mods}, seed {seed})")

@pytest.mark.parametrize("emu", ["gfx942"], indirect=True)
def test_dq_accumulation_refused_where_it_cannot_run(emu, no_kernel):
  """the accumulation is the dK/dV config's (a dQ config with q is a ValueError), and one whose dQ part does not tile the warps is
  refused by name, before any kernel is built"""
  qkvo = lambda D: [Tensor.empty(1, 2, 64, D, dtype=dtypes.half, device="PYTHON") for _ in range(4)]
  lse = Tensor.empty(1, 2, 64, device="PYTHON")
  q, k, v, o = qkvo(64)
  with pytest.raises(ValueError, match="the dK/dV config's"):
    flash_attention_backward(q, k, v, o, lse, o, configs=(BwdConfig(32, 16, 2), BwdConfig.parse("32x16x2q")))
  q, k, v, o = qkvo(48)
  with pytest.raises(ValueError, match="does not split over 4 warps"):   # 32 queries x 48 over 4 wave64 warps of 16x16 tiles
    flash_attention_backward(q, k, v, o, lse, o, configs=(BwdConfig.parse("32x32x4s2q"), BwdConfig(32, 16, 2)))
  assert str(BwdConfig.parse("64x64x8s2q")) == "64x64x8s2q" and BwdConfig.parse("64x64x4q").dq and not BwdConfig.parse("64x64x4").dq

@pytest.mark.parametrize("H,Nq,D,dlse", [(2, 37, 128, False), (1, 64, 16, True), (3, 50, 48, True)])
@all_targets(keep=lambda p: p["Nq"] == 37)
def test_delta_kernel(emu, rng, H, Nq, D, dlse):
  """delta = rowsum(dO ∘ O) − dlse, the output poisoned: rows past the last block's (74 and 150 of 64 a block) and a whole block,
  the head dims' 16-byte pieces from 2 to 16 a row"""
  r, seed = rng
  o, do = (Tensor(r.standard_normal((1, H, Nq, D)).astype(np.float32), device="PYTHON").cast(dtypes.half).contiguous().realize() for _ in range(2))
  dl = Tensor(r.standard_normal((1, H, Nq)).astype(np.float32), device="PYTHON").contiguous().realize()
  out = nans((1, H, Nq), dtypes.float32, "PYTHON")
  got = Tensor.custom_kernel(o, do, out, *((dl,) if dlse else ()), fxn=functools.partial(flash_bwd_delta, target=target_for("PYTHON")))[2].numpy()
  ref = (host(o) * host(do)).sum(-1) - (dl.numpy() if dlse else 0)
  np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4 * np.sqrt(D), err_msg=f"(seed {seed})")
