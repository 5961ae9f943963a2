"""fa_uop.scaled_dot_product_attention against float64 and tinygrad's own SDPA: masks of every broadcast, causal, GQA, MQA, any
leading axes, scale; which calls run fa_uop's kernels and which fall back; gradients; patch(); bad input."""
import logging, math
import numpy as np, pytest
from tinygrad import Tensor, Context, dtypes
import fa_uop, fa_uop.sdpa as sdpa
from fa_uop.reference import attention_ref, attention_bwd_ref
from conftest import devices, host, slow, slow_on, TOL, all_targets

@pytest.fixture
def spy(monkeypatch):
  """records whether fa_uop's kernels (flash_attention) or tinygrad's SDPA (the fallback) ran"""
  ran = []
  real_fa, real_tg = sdpa.flash_attention, sdpa._TINYGRAD
  monkeypatch.setattr(sdpa, "flash_attention", lambda *a, **kw: ran.append("fa_uop") or real_fa(*a, **kw))
  monkeypatch.setattr(sdpa, "_TINYGRAD", lambda *a, **kw: ran.append("tinygrad") or real_tg(*a, **kw))
  monkeypatch.setattr(sdpa, "_said", set())
  return ran

def tensor(x, dtype=dtypes.half, device="PYTHON"): return Tensor(np.asarray(x, np.float32) if dtype != dtypes.bool else x, device=device).cast(dtype).realize()

# (q shape, k/v shape, mask shape or None, mask kind, is_causal, enable_gqa, scale)
CASES = {
  "causal-gqa": ((2, 4, 24, 16), (2, 2, 40, 16), None, None, True, True, None),
  "key-padding-mqa": ((2, 4, 24, 16), (2, 1, 40, 16), (2, 1, 1, 40), "bool", False, False, None),
  "per-query-bias-scale": ((2, 4, 24, 16), (2, 4, 40, 16), (1, 4, 24, 1), "float", False, False, 0.3),
  "full-mask-3d": ((4, 24, 32), (4, 40, 32), (24, 40), "bool", False, False, None),
  "batch-axes-expanded-mask": ((2, 2, 1, 17, 16), (2, 2, 1, 17, 16), (2, 1, 1, 1, 17), "bool-expanded", False, False, None),
}

def make_case(r, qs, ks, ms, kind):
  qn, kn, vn = (r.standard_normal(s).astype(np.float16).astype(np.float64) for s in (qs, ks, ks))
  mn, mask = None, None
  if kind is not None and kind.startswith("bool"):
    mn = r.random(ms) > 0.3
    mn[..., 0] = True      # every row keeps a key (tinygrad's SDPA gives NaN for a row that keeps none)
    mask = Tensor(mn, device="PYTHON")
    if kind == "bool-expanded": mask = mask.expand(*qs[:-1], ks[-2])   # a view: the drop-in reads the small tensor under it
  elif kind == "float":
    mn = r.standard_normal(ms)
    mask = tensor(mn, dtypes.float32)
  return qn, kn, vn, mn, mask

def reference(qn, kn, vn, mn, kind, causal, gqa, scale):
  """tinygrad's SDPA in float64 on any leading axes: k's heads repeated (enable_gqa) or broadcast, the mask kept or added"""
  if gqa: kn, vn = (np.repeat(x, qn.shape[-3] // x.shape[-3], axis=-3) for x in (kn, vn))
  L, S, E = qn.shape[-2], kn.shape[-2], qn.shape[-1]
  s = qn @ np.swapaxes(kn, -1, -2) * (1 / math.sqrt(E) if scale is None else scale)
  keep = np.ones_like(s, bool)
  if causal: keep &= np.tri(L, S, dtype=bool)
  if kind is not None and kind.startswith("bool"): keep &= mn
  elif kind == "float": s = s + mn
  s = np.where(keep, s, -np.inf)
  p = np.exp(s - s.max(-1, keepdims=True))
  return (p / p.sum(-1, keepdims=True)) @ vn

def close(o, ref, msg):
  t = TOL[dtypes.half]
  assert np.isfinite(o).all(), f"unwritten or non-finite outputs {msg}"
  rel, err = np.linalg.norm(o - ref) / np.linalg.norm(ref), np.abs(o - ref).max()
  assert rel <= t["rel"] and err <= t["abs"], f"rel err {rel:.2e}, max abs err {err:.2e} {msg}"

BOTH = ("causal-gqa",)   # on both targets by default; the rest on sm_80 (gfx1100 with FA_UOP_SLOW=1)

@pytest.mark.parametrize("emu,case", [(t, c) if t == "sm_80" or c in BOTH else slow(t, c) for c in CASES for t in ("gfx1100", "sm_80")],
                         indirect=["emu"])
def test_matches_tinygrad_and_float64(emu, rng, spy, poisoned, case):
  r, seed = rng
  qs, ks, ms, kind, causal, gqa, scale = CASES[case]
  qn, kn, vn, mn, mask = make_case(r, qs, ks, ms, kind)
  q, k, v = (tensor(x) for x in (qn, kn, vn))
  out = fa_uop.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=gqa, scale=scale)
  assert spy == ["fa_uop"], f"fa_uop's kernels should have run, got {spy}"
  assert out.shape == q.shape and out.dtype == q.dtype
  ref, o = reference(qn, kn, vn, mn, kind, causal, gqa, scale), host(out)
  close(o, ref, f"vs float64 (seed {seed})")
  # tinygrad's SDPA rounds its scores and probabilities to half before the softmax and P·V: the same answer within that
  qs_ = q if scale is None else q * (scale * math.sqrt(qs[-1]))
  tg = host(sdpa._TINYGRAD(qs_, k, v, attn_mask=mask, is_causal=causal, enable_gqa=gqa))
  assert np.abs(o - tg).max() <= TOL[dtypes.half]["abs"] + np.abs(tg - ref).max(), f"vs tinygrad's SDPA (seed {seed})"

@slow_on("gfx1100")
def test_gradients(emu, rng, spy):
  """autograd through the drop-in (a key-padding mask, GQA) against float64"""
  r, seed = rng
  qn, kn, vn, mn, mask = make_case(r, (2, 2, 24, 16), (2, 1, 32, 16), (2, 1, 1, 32), "bool")
  q, k, v = (tensor(x) for x in (qn, kn, vn))
  do_n = r.standard_normal((2, 2, 24, 16))
  out = fa_uop.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
  grads = (out.float() * Tensor(do_n.astype(np.float32), device="PYTHON")).sum().gradient(q, k, v)
  assert spy == ["fa_uop"]
  keep = np.broadcast_to(mn, (2, 2, 24, 32))
  for name, g, ref in zip("qkv", grads, attention_bwd_ref(qn, kn, vn, do_n, keep=keep)):
    err = np.abs(host(g) - ref).max() / np.abs(ref).max()
    assert err < 2e-2, f"d{name} err {err:.2e} (seed {seed})"

FALLBACKS = {
  "float32": (dict(dtype=dtypes.float32), {}, "dtypes other than one of float16, bfloat16"),
  "head-dim-8": (dict(E=8), {}, "head dims other than"),
  "dropout-training": ({}, dict(dropout_p=0.5, training=True), "dropout while training"),
  "learned-bias-training": ({}, dict(bias=True, training=True), "additive attn_mask computed from float tensors while training"),
  "k-batch-broadcast": (dict(kb=1), {}, "leading axes other than q's"),
}

@pytest.mark.parametrize("case", list(FALLBACKS))
def test_fallbacks(spy, caplog, case):
  """what fa_uop's kernels do not take runs tinygrad's SDPA, with the same answer (it is tinygrad's), the reason logged once"""
  shape, call, reason = FALLBACKS[case]
  dt, E, kb = shape.get("dtype", dtypes.half), shape.get("E", 16), shape.get("kb", 2)
  with Context(DEV="PYTHON::sm_80", TRAINING=int(call.get("training", False))):
    r = np.random.default_rng()
    q, k, v = (tensor(r.standard_normal(s), dt) for s in ((2, 2, 8, E), (kb, 2, 8, E), (kb, 2, 8, E)))
    mask = tensor(r.standard_normal((1, 1, 8, 8)), dtypes.float32) if call.get("bias") else None
    kw = dict(attn_mask=mask, dropout_p=call.get("dropout_p", 0.0))
    with caplog.at_level(logging.WARNING, logger="fa_uop"):
      Tensor.manual_seed(7)
      got = host(fa_uop.scaled_dot_product_attention(q, k, v, **kw))
      fa_uop.scaled_dot_product_attention(q, k, v, **kw)
    Tensor.manual_seed(7)
    want = host(sdpa._TINYGRAD(q, k, v, **kw))
  assert "fa_uop" not in spy and spy.count("tinygrad") == 3
  assert np.array_equal(got, want, equal_nan=True)
  said = [rec.getMessage() for rec in caplog.records if reason in rec.getMessage()]
  assert len(said) == 1, f"the reason should be logged once: {[rec.getMessage() for rec in caplog.records]}"

# fp8 through the drop-in on the emulated sm_89, as CASES (E=32: the fp8 MMA's K), and RDNA4 at E=16 (its fp8 WMMA's K); the masks
# and RDNA4 with FA_UOP_SLOW=1 (the fp8 forward's mask_mod and score_mod run in test_fp8 too)
FP8_CASES = {
  "causal-gqa": ("sm_89", (1, 2, 24, 32), (1, 1, 40, 32), None, None, True, True, None),
  "key-padding-mqa": ("sm_89", (2, 2, 24, 32), (2, 1, 40, 32), (2, 1, 1, 40), "bool", False, False, None),
  "per-query-bias-scale": ("sm_89", (1, 2, 24, 32), (1, 2, 40, 32), (1, 2, 24, 1), "float", False, False, 0.3),
  "rdna4-e16-causal": ("gfx1201", (1, 2, 24, 16), (1, 2, 40, 16), None, None, True, False, None),
}

@pytest.mark.parametrize("case", ["causal-gqa", slow("key-padding-mqa"), slow("per-query-bias-scale"), slow("rdna4-e16-causal")])
def test_fp8(rng, spy, poisoned, case):
  """e4m3 inputs run fa_uop's fp8 forward (descales 1) and give bfloat16, as flash_attention does, against float64 of the e4m3
  values: relative RMS ≤ 3e-2 (P is rounded to e4m3 for P·V)"""
  r, seed = rng
  arch, qs, ks, ms, kind, causal, gqa, scale = FP8_CASES[case]
  mn, mask = make_case(r, qs, ks, ms, kind)[3:]
  with Context(DEV=f"PYTHON::{arch}"):
    q, k, v = (tensor(r.standard_normal(sh), dtypes.fp8e4m3) for sh in (qs, ks, ks))
    out = fa_uop.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=gqa, scale=scale)
    assert spy == ["fa_uop"] and out.shape == q.shape and out.dtype == dtypes.bfloat16, (spy, out.dtype)
    o, (qn, kn, vn) = host(out), (host(x) for x in (q, k, v))
  ref = reference(qn, kn, vn, mn, kind, causal, gqa, scale)
  rel = np.linalg.norm(o - ref) / np.linalg.norm(ref)
  assert np.isfinite(o).all() and rel <= 3e-2, f"rel RMS {rel:.2e} (seed {seed})"

# (target, change, reason): fp8 calls fa_uop's kernels do not take
FP8_FALLBACKS = {
  "sm_80": ("sm_80", {}, "dtypes.fp8e4m3 on sm_80, which has no MMA"),
  "ocp-on-gfx942": ("gfx942", {}, "dtypes.fp8e4m3 on gfx942, which has no MMA"),
  "head-dim-16": ("sm_89", dict(E=16), "fp8 head dims other than multiples of the fp8 MMA's K=32"),
  "mixed-formats": ("sm_89", dict(kdtype=dtypes.fp8e5m2), "dtypes other than one of float16, bfloat16 or an fp8 format"),
  "grad": ("sm_89", dict(grad=True), "fp8 inputs requiring grad (fa_uop's fp8 is forward-only)"),
}

@pytest.mark.parametrize("case", list(FP8_FALLBACKS))
def test_fp8_fallbacks(no_kernel, spy, caplog, case):
  """fp8 calls fa_uop's kernels do not take go to tinygrad's SDPA, the reason logged once; no kernel of fa_uop's is built (the
  fallback's answer is tinygrad's own, as test_fallbacks checks for 16-bit inputs: not run here, slow on the emulator)"""
  arch, change, reason = FP8_FALLBACKS[case]
  E, kdt = change.get("E", 32), change.get("kdtype", dtypes.fp8e4m3)
  with Context(DEV=f"PYTHON::{arch}"):
    q, k, v = e(1, 2, 8, E, dtype=dtypes.fp8e4m3), e(1, 2, 8, E, dtype=kdt), e(1, 2, 8, E, dtype=kdt)
    if change.get("grad"): q.requires_grad = True
    with caplog.at_level(logging.WARNING, logger="fa_uop"):
      for _ in range(2): fa_uop.scaled_dot_product_attention(q, k, v, is_causal=True)
  assert spy == ["tinygrad"] * 2
  said = [rec.getMessage() for rec in caplog.records if reason in rec.getMessage()]
  assert len(said) == 1, f"the reason should be logged once: {[rec.getMessage() for rec in caplog.records]}"

def test_patch_routes_and_restores(spy):
  """inside patch() Tensor.scaled_dot_product_attention runs the drop-in; after it, even after an error, tinygrad's is back"""
  original = Tensor.scaled_dot_product_attention
  with Context(DEV="PYTHON::sm_80"):
    q = tensor(np.random.default_rng().standard_normal((1, 2, 8, 16)))
    with fa_uop.patch():
      assert Tensor.scaled_dot_product_attention is not original
      out = q.scaled_dot_product_attention(q, q, is_causal=True)
    assert spy == ["fa_uop"] and Tensor.scaled_dot_product_attention is original
    assert np.abs(host(out) - attention_ref(host(q), host(q), host(q), True)[0]).max() < TOL[dtypes.half]["abs"]
    with pytest.raises(KeyError):
      with fa_uop.patch(): raise KeyError("inside")
    assert Tensor.scaled_dot_product_attention is original

@all_targets
def test_sharded(emu, rng, spy, poisoned):
  """heads sharded over two devices with a key-padding mask whole on each: fa_uop's kernels per shard; the sequence sharded
  (the ring, the mask read at the keys' global positions): fa_uop's too; the same mask with the batch sharded reads the sharded
  axis, so tinygrad's SDPA runs it, with the same answer"""
  r, seed = rng
  qn, kn, vn, mn, _ = make_case(r, (2, 2, 16, 16), (2, 2, 16, 16), (2, 1, 1, 16), "bool")
  ref = reference(qn, kn, vn, mn, "bool", False, True, None)
  devs = devices(emu)
  for axis, ran in ((1, "fa_uop"), *([(2, "fa_uop")] if emu == "sm_80" else []), (0, "tinygrad")):   # (the ring on each target: test_shard)
    spy.clear()
    q, k, v = (tensor(x).shard(devs, axis=axis) for x in (qn, kn, vn))
    out = fa_uop.scaled_dot_product_attention(q, k, v, attn_mask=Tensor(mn, device="PYTHON").shard(devs), enable_gqa=True)
    assert spy[0] == ran and out.device == devs
    close(host(out), ref, f"sharded over axis {axis} (seed {seed})")

@slow_on("gfx1100")
def test_readme_example(emu, spy):
  """examples/sdpa_patch.py: a tinygrad model, unchanged, on fa_uop's kernels under patch() (at a small size)"""
  import importlib.util, pathlib
  spec = importlib.util.spec_from_file_location("sdpa_patch", pathlib.Path(__file__).parents[1] / "examples" / "sdpa_patch.py")
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  assert mod.main(T=16, DIM=32, HEADS=2, KV_HEADS=1) < 2e-2 and spy == ["fa_uop"]

def e(*shape, dtype=dtypes.half): return Tensor.empty(*shape, dtype=dtype, device="PYTHON")

BAD = [
  (lambda: (np.zeros((1, 2, 8, 16)), e(1, 2, 8, 16), e(1, 2, 8, 16)), {}, TypeError, "q must be a tinygrad Tensor"),
  (lambda: (e(16), e(8, 16), e(8, 16)), {}, ValueError, "q must have at least 2 axes"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(attn_mask=e(8, 8, dtype=dtypes.bool), is_causal=True), RuntimeError,
   "cannot set attn_mask when is_causal=True"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(attn_mask=e(8, 8, dtype=dtypes.bool), is_causal=True), ValueError,
   "cannot set attn_mask when is_causal=True"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(dropout_p=1.5), ValueError, "dropout_p must be a float in"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(attn_mask=e(7, 8, dtype=dtypes.bool)), ValueError, "does not broadcast"),
  (lambda: (e(1, 3, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(enable_gqa=True), ValueError, "must be a multiple of k's"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 32), e(1, 2, 8, 32)), {}, ValueError, "k's last axis must be q's"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(attn_mask=np.ones((8, 8), bool)), TypeError, "attn_mask must be a tinygrad Tensor"),
  (lambda: (e(1, 2, 8, 16), e(1, 2, 8, 16), e(1, 2, 8, 16)), dict(scale=float("inf")), TypeError, "scale must be a finite float"),
]

@pytest.mark.parametrize("make,kw,exc,msg", BAD, ids=[f"{b[3]}-{b[2].__name__}" for b in BAD])
def test_bad_input(emu, no_kernel, spy, make, kw, exc, msg):
  with pytest.raises(exc, match=msg): fa_uop.scaled_dot_product_attention(*make(), **kw)
  assert spy == []
