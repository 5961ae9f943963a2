"""Tensors sharded over two emulated devices (Tensor.shard): forward, gradients and the KV-cache function against float64, the
outputs sharded as the inputs, and what cannot be sharded refused."""
import math
import numpy as np, pytest
from tinygrad import Tensor, dtypes
import fa_uop.api, fa_uop.tune as tune
from fa_uop import flash_attention, flash_attention_backward, flash_attention_with_kvcache, write_kvcache, FwdConfig, shard
from fa_uop.reference import attention_ref, attention_bwd_ref, kvcache_ref
from conftest import qkv, host, assert_close, devices, slow, slow_on, TOL

def e(devs, axis, *shape, dtype=dtypes.half): return Tensor.empty(*shape, dtype=dtype, device="PYTHON").shard(devs, axis=axis)

def sharded(ts, devs, axis): return [t.shard(devs, axis=axis) for t in ts]

# heads sharded on sm_80 by default: test_backward_function_and_mods and test_sdpa's test_sharded
# gfx1100's sharded kernels by default in test_sdpa's test_sharded (CI time)
@pytest.mark.parametrize("emu,axis", [("sm_80", 0), slow("sm_80", 1), slow("gfx1100", 0), slow("gfx1100", 1)], indirect=["emu"],
                         ids=["sm_80-batch", "sm_80-heads", "gfx1100-batch", "gfx1100-heads"])
def test_forward_and_gradients(emu, rng, poisoned, axis):
  """causal GQA with query and key tails, sharded over batch or heads: each device's kernels on their shard, o, lse and the
  gradients sharded alike, all against float64"""
  r, seed = rng
  (qn, kn, vn), ts = qkv(r, 2, 4, 2, 24, 20, 16, dtypes.half)
  q, k, v = sharded(ts, devices(emu), axis)
  do_n = r.standard_normal((2, 4, 24, 16))
  do = Tensor(do_n.astype(np.float32), device="PYTHON").shard(devices(emu), axis=axis)
  o, lse = flash_attention(q, k, v, causal=True, return_lse=True)
  assert o.device == lse.device == devices(emu) and shard.axis(o) == shard.axis(lse) == axis
  dq, dk, dv = (o.float() * do).sum().gradient(q, k, v)
  assert all(shard.axis(g) == axis for g in (dq, dk, dv))
  ref_o, ref_lse = attention_ref(qn, kn, vn, True)
  assert_close(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
  for name, g, ref in zip("qkv", (dq, dk, dv), attention_bwd_ref(qn, kn, vn, do_n, True)):
    err = np.abs(host(g) - ref).max() / np.abs(ref).max()
    assert np.isfinite(host(g)).all() and err < 2e-2, f"d{name} err {err:.2e} (seed {seed})"

@slow_on("gfx1100")
def test_backward_function_and_mods(emu, rng, poisoned):
  """flash_attention_backward on head-sharded tensors with a window, and key padding as a score_mod that reads b (the batch
  index is not the sharded one) from a buffer whole on each device (a mask_mod's block map on sharded tensors: test_sdpa)"""
  r, seed = rng
  (qn, kn, vn), ts = qkv(r, 2, 2, 2, 20, 20, 16, dtypes.half)
  devs = devices(emu)
  q, k, v = sharded(ts, devs, 1)
  lens = np.array([14, 20], np.int32)   # every row keeps a key: window 9 reaches key 10 from row 19
  kw = dict(causal=True, window=(9, None), score_mod=lambda s, b, h, qi, kj, n: (kj < n[b]).where(s, -math.inf),
            mod_args=(Tensor(lens, device="PYTHON").shard(devs),))
  o, lse = flash_attention(q, k, v, return_lse=True, **kw)
  do_n = r.standard_normal((2, 2, 20, 16))
  dq, dk, dv = flash_attention_backward(q, k, v, o, lse, Tensor(do_n.astype(np.float32), device="PYTHON").shard(devs, axis=1), **kw)
  i, j = np.arange(20)[:, None], np.arange(20)[None, :]
  keep = ((j <= i) & (j >= i - 9))[None, None] & (j[None, None] < lens[:, None, None, None])
  ref_o, ref_lse = attention_ref(qn, kn, vn, keep=keep)   # a -inf score is a hidden pair
  assert_close(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
  for name, g, ref in zip("qkv", (dq, dk, dv), attention_bwd_ref(qn, kn, vn, do_n, keep=keep)):
    err = np.abs(host(g) - ref).max() / np.abs(ref).max()
    assert shard.axis(g) == 1 and err < 2e-2, f"d{name} err {err:.2e} (seed {seed})"

@pytest.mark.parametrize("paged", [False, True], ids=["dense-batch", "paged-heads"])
def test_kvcache(emu, rng, poisoned, paged):
  """decoding with split-KV: dense caches sharded over batch (lengths sharded alike), written by write_kvcache first, or a paged
  pool sharded over heads (lengths and block table whole on each device)"""
  r, seed = rng
  B, H, Hkv, Nq, D, P = 2, 4, 2, 2, 16, 16
  devs = devices(emu)
  qn = r.standard_normal((B, H, Nq, D)).astype(np.float16)
  lens = np.array([37, 9], np.int32)
  if paged:
    pool = r.standard_normal((2, 6, Hkv, P, D)).astype(np.float16)
    table = np.array([[4, 1, 0], [2, 5, 3]], np.int32)
    kc, vc = (Tensor(x, device="PYTHON").shard(devs, axis=1) for x in pool)
    extra, ax = dict(block_table=Tensor(table, device="PYTHON").shard(devs)), 1
  else:   # and write_kvcache appends 3 tokens to the sharded caches first
    pool, table = r.standard_normal((2, B, Hkv, 48, D)).astype(np.float16), None
    kc, vc = (Tensor(x, device="PYTHON").shard(devs, axis=0).realize() for x in pool)
    new = r.standard_normal((2, B, Hkv, 3, D)).astype(np.float16)
    kc, vc = write_kvcache(kc, vc, *(Tensor(x, device="PYTHON").shard(devs, axis=0) for x in new), Tensor(lens, device="PYTHON").shard(devs, axis=0))
    for c, x in zip(pool, new):
      for b in range(B): c[b, :, lens[b]:lens[b] + 3] = x[b]
    lens = lens + 3
    extra, ax = {}, 0
  seqlens = Tensor(lens, device="PYTHON").shard(devs, axis=0 if ax == 0 else None)
  q = Tensor(qn, device="PYTHON").shard(devs, axis=ax)
  o, lse = flash_attention_with_kvcache(q, kc, vc, seqlens, causal=True, return_lse=True, num_splits=2, **extra)
  ref_o, ref_lse = kvcache_ref(qn, pool[0], pool[1], lens, table, causal=True)
  assert shard.axis(o) == ax
  assert_close(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")

def test_tuner_times_one_device_with_the_shards_shape(emu, tmp_path, monkeypatch):
  """a sharded call is tuned once, on its first device, with the shape each device's kernels see"""
  monkeypatch.setenv("FA_UOP_CACHE", str(tmp_path / "tune.json"))
  monkeypatch.setattr(tune, "enabled", lambda device: True)
  monkeypatch.setattr(tune, "_chosen", {})
  seen = []
  def fake_time(fn, cnt, device=None):
    seen.append((device, fn.args[1].device, fn.args[1].shape))
    return float(len(seen)), 0.0
  monkeypatch.setattr(tune, "event_time", fake_time)
  devs = devices(emu)
  q, k, v = (Tensor.empty(4, 2, 64, 16, dtype=dtypes.half, device="PYTHON").shard(devs, axis=0) for _ in range(3))
  cfg = fa_uop.api.fwd_config_for(q, k, v)
  assert isinstance(cfg, FwdConfig) and seen and all(s == (devs[0], devs[0], (2, 2, 64, 16)) for s in seen)
  n = len(seen)
  # sharded over heads: another shard shape of the same shape class, and the same device kind: nothing is timed again (64 queries:
  # the forward, not the split-KV path of fewer)
  assert fa_uop.api.fwd_config_for(*(e(devs, 1, 4, 2, 64, 16) for _ in range(3))) == cfg and len(seen) == n and len(tune._load()) == 1

def seq_case(case:str, N:int, H:int, devs):
  """a sequence-sharded call's modifications (kwargs) and their float64 reference's keep mask and score map over global positions"""
  i, j = np.arange(N)[:, None], np.arange(N)[None, :]
  if case == "causal": return dict(causal=True), j <= i, None
  if case == "full": return dict(), None, None
  # a distance bias by head (ALiBi's form) with a softcap: the positions in the score; with a causal window ("window"), or alone
  slopes = 2.0 ** -np.arange(1, H + 1)
  kw = dict(softcap=4.0, score_mod=lambda x, b, h, qi, kj, sl: x - sl[h] * (qi - kj).cast(dtypes.float32).maximum(0.0),
            mod_args=(Tensor(slopes.astype(np.float32), device="PYTHON").shard(devs),))
  score = lambda x: 4.0 * np.tanh(x / 4.0) - slopes[None, :, None, None] * np.maximum(i - j, 0)
  if case == "window": return dict(causal=True, window=(N // 3, None), **kw), (j <= i) & (j >= i - N // 3), score
  if case == "document":   # documents of 7, 23 and the rest rows: boundaries inside chunks and across devices
    doc = np.searchsorted(np.array([7, 30]), np.arange(N), side="right").astype(np.int32)
    kw = dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[qi].eq(d[kj]), mod_args=(Tensor(doc, device="PYTHON").shard(devs),))
    return kw, (j <= i) & (doc[:, None] == doc[None, :]), None
  return kw, None, score

# the ring on each emulated target over two devices, sm_80's over four, the other layouts and modifications on sm_80; with
# FA_UOP_SLOW=1 every target over two and four devices with each modification
SEQ_DEFAULT = [("sm_80", 2, "contiguous", "causal"), ("sm_80", 4, "zigzag", "causal"), ("sm_80", 2, "zigzag", "window"), ("sm_80", 2, "contiguous", "document"),
               ("gfx1100", 2, "zigzag", "causal"), ("gfx1201", 2, "contiguous", "causal"), ("gfx942", 2, "zigzag", "causal"),
               ("gfx950", 2, "contiguous", "full")]
SEQ_SLOW = [(t, n, ("contiguous", "zigzag")[(i + n // 4) % 2], c) for t in ("sm_80", "sm_89", "gfx1100", "gfx1201", "gfx942", "gfx950") for n in (2, 4)
            for i, c in enumerate(("causal", "full", "window", "document", "alibi"))]
@pytest.mark.parametrize("emu,n,layout,case", SEQ_DEFAULT + [slow(*p) for p in SEQ_SLOW if p not in SEQ_DEFAULT], indirect=["emu"], ids=lambda x: str(x))
@pytest.mark.all_targets
def test_sequence_sharded(emu, rng, poisoned, n, layout, case):
  """q, k and v sharded over the sequence on n emulated devices (context parallelism: a ring of the devices, each step a device's keys
  passed on), as Tensor.shard lays them out or zigzag's: o, lse and the gradients (autograd) against float64, sharded as q, with GQA,
  chunks of rows that are no whole tiles, and the mask or scores over global positions (window: a causal window with ALiBi's bias
  as a score_mod and a softcap; alibi: those two alone)"""
  r, seed = rng
  B, H, Hkv, D, N = 1, 2, 1, 16, 16 * n
  (qn, kn, vn), ts = qkv(r, B, H, Hkv, N, N, D, dtypes.half)
  devs = devices(emu, n)
  lay = (lambda t: shard.zigzag(t, devs)) if layout == "zigzag" else (lambda t: t.shard(devs, axis=2))
  back = (lambda t: shard.unzigzag(t)) if layout == "zigzag" else (lambda t: t)
  kw, keep, score = seq_case(case, N, H, devs)
  q, k, v = (lay(t) for t in ts)
  o, lse = flash_attention(q, k, v, return_lse=True, layout=layout, **kw)
  assert o.device == lse.device == devs and shard.axis(o) == shard.axis(lse) == 2
  do_n = r.standard_normal((B, H, N, D))
  dq, dk, dv = (o.float() * lay(Tensor(do_n.astype(np.float32), device="PYTHON"))).sum().gradient(q, k, v)
  assert all(shard.axis(g) == 2 and g.dtype == dtypes.half for g in (dq, dk, dv))
  dscore = None if score is None else (lambda x: 1 - np.tanh(x / 4.0) ** 2)
  ref_o, ref_lse = attention_ref(qn, kn, vn, keep=keep, score=score)
  assert_close(host(back(o)), back(lse.unsqueeze(-1)).numpy()[..., 0].astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
  for name, g, ref in zip("qkv", (dq, dk, dv), attention_bwd_ref(qn, kn, vn, do_n, keep=keep, score=score, dscore=dscore)):
    err = np.abs(host(back(g)) - ref).max() / np.abs(ref).max()
    assert np.isfinite(host(g)).all() and err < 2e-2, f"d{name} err {err:.2e} (seed {seed})"

@pytest.mark.parametrize("emu", [slow("sm_80")], indirect=True)
def test_sequence_sharded_lengths_and_empty_rows(emu, rng, poisoned):
  """sequence-sharded q and k of other lengths (top-left causal and not), and a mask_mod that leaves rows no key (output 0, logsumexp
  -inf, finite gradients), over two devices against float64"""
  r, seed = rng
  devs = devices(emu)
  i, j = np.arange(32)[:, None], np.arange(48)[None, :]
  for nk, kw, keep in ((48, dict(), None), (48, dict(causal=True), j <= i), (32, dict(mask_mod=lambda b, h, qi, kj: (qi < 20) & (kj <= qi)), (i < 20) & (j[:, :32] <= i))):
    (qn, kn, vn), ts = qkv(r, 1, 2, 1, 32, nk, 16, dtypes.half)
    q, k, v = (t.shard(devs, axis=2) for t in ts)
    o, lse = flash_attention(q, k, v, return_lse=True, **kw)
    do_n = r.standard_normal((1, 2, 32, 16))
    grads = (o.float() * Tensor(do_n.astype(np.float32), device="PYTHON").shard(devs, axis=2)).sum().gradient(q, k, v)
    (ref_o, ref_lse), got_lse = attention_ref(qn, kn, vn, keep=keep), lse.numpy().astype(np.float64)
    live = np.isfinite(ref_lse)   # (a row that keeps no key: output 0, logsumexp -inf)
    assert (got_lse[~live] == -np.inf).all() and (host(o)[~live] == 0).all(), f"{kw} (seed {seed})"
    assert_close(host(o)[live], got_lse[live], ref_o[live], ref_lse[live], dtypes.half, f"{kw} (seed {seed})")
    for name, g, ref in zip("qkv", grads, attention_bwd_ref(qn, kn, vn, do_n, keep=keep)):
      err = np.abs(host(g) - ref).max() / np.abs(ref).max()
      assert np.isfinite(host(g)).all() and err < 2e-2, f"{kw} d{name} err {err:.2e} (seed {seed})"

@pytest.mark.parametrize("emu", ["sm_80", slow("gfx1201")], indirect=True)
def test_sequence_sharded_backward_function(emu, rng, poisoned):
  """flash_attention_backward on sequence-sharded tensors (o, lse and do sharded as q, the zigzag layout) with a loss on lse too
  (dlse), and autograd of self-attention (one tensor as q, k and v): the ring's backward against float64"""
  r, seed = rng
  B, H, D, N = 1, 2, 16, 32
  (qn, kn, vn), ts = qkv(r, B, H, H, N, N, D, dtypes.half)
  devs = devices(emu)
  q, k, v = (shard.zigzag(t, devs) for t in ts)
  o, lse = flash_attention(q, k, v, causal=True, return_lse=True, layout="zigzag")
  do_n, dlse_n = r.standard_normal((B, H, N, D)), r.standard_normal((B, H, N))
  do, dlse = (shard.zigzag(Tensor(x.astype(np.float32), device="PYTHON"), devs) for x in (do_n, dlse_n[..., None]))
  dq, dk, dv = flash_attention_backward(q, k, v, o, lse, do, dlse[..., 0], causal=True, layout="zigzag")
  for name, g, ref in zip("qkv", (dq, dk, dv), attention_bwd_ref(qn, kn, vn, do_n, True, dlse=dlse_n)):
    err = np.abs(host(shard.unzigzag(g)) - ref).max() / np.abs(ref).max()
    assert shard.axis(g) == 2 and err < 2e-2, f"d{name} err {err:.2e} (seed {seed})"
  # self-attention's one tensor as q, k and v (the merge's parameters deduplicated): autograd sums its three gradients
  o = flash_attention(q, q, q, causal=True, layout="zigzag")
  g, = (o.float() * do).sum().gradient(q)
  ref = sum(attention_bwd_ref(qn, qn, qn, do_n, True))
  err = np.abs(host(shard.unzigzag(g)) - ref).max() / np.abs(ref).max()
  assert shard.axis(g) == 2 and err < 2e-2, f"self-attention dx err {err:.2e} (seed {seed})"

@pytest.mark.parametrize("emu", ["sm_80"], indirect=True)
def test_zigzag_layout(emu):
  """zigzag's order: device d holds chunks d and 2P-1-d of 2P (positions as shard.order gives them), unzigzag its inverse"""
  for P in (2, 4):
    devs = devices("sm_80", P)
    x = np.arange(2 * 8 * P).reshape(2, 8 * P).astype(np.float32)
    z = shard.zigzag(Tensor(x, device="PYTHON"), devs, axis=1)
    assert z.device == devs and shard.axis(z) == 1 and (z.numpy() == x[:, shard.order(8 * P, P, "zigzag")]).all()
    assert (shard.unzigzag(z, axis=1).numpy() == x).all() and (shard.positions(devs, 8 * P, "zigzag").numpy() == shard.order(8 * P, P, "zigzag")).all()
    assert sorted(shard.order(8 * P, P, "zigzag")[:8]) == [*range(4), *range(8 * P - 4, 8 * P)]   # device 0: the first and last 4

def test_refused(emu, no_kernel):
  """the KV cache sharded over the sequence, an unknown layout, zigzag's lengths, q, k and v sharded unlike, a mod reading the index
  of the sharded axis, a sharded mod_arg, lengths sharded unlike q: ValueError before any kernel"""
  d = devices(emu)
  q0 = [e(d, 0, 2, 2, 8, 16) for _ in range(3)]
  lens = Tensor([3, 5], dtype=dtypes.int32, device="PYTHON")
  seq = [e(d, 2, 1, 2, 10, 16) for _ in range(3)]
  cases = [
    (lambda: flash_attention_with_kvcache(*seq, lens[:1]), "sharded over axis 2: shard over batch"),
    (lambda: flash_attention(*seq, layout="ring"), "layout must be one of 'contiguous', 'zigzag'"),
    (lambda: flash_attention(*seq, causal=True, layout="zigzag"), "zigzag layout over 2 devices needs sequences of a multiple of 4"),
    (lambda: shard.zigzag(Tensor.empty(1, 2, 10, 16, dtype=dtypes.half, device="PYTHON"), d), "needs a sequence of a multiple of 4"),
    (lambda: flash_attention(q0[0], e(d, 1, 2, 2, 8, 16), e(d, 1, 2, 2, 8, 16)), "must be sharded alike"),
    (lambda: flash_attention(*q0, mask_mod=lambda b, h, qi, kj, n: kj < n[b], mod_args=(lens.shard(d),)), "a mod reads b, the index of the axis q is sharded over"),
    (lambda: flash_attention(*q0, mask_mod=lambda b, h, qi, kj, n: kj < n[0], mod_args=(lens.shard(d, axis=0),)), "mod_args\\[0\\] is sharded"),
    (lambda: flash_attention_with_kvcache(*q0[:1], *[e(d, 0, 2, 2, 16, 16) for _ in range(2)], lens.shard(d)), "cache_seqlens must be sharded over batch"),
    (lambda: flash_attention_with_kvcache(e(d, 0, 2, 2, 1, 16), *[e(d, 0, 2, 2, 16, 16) for _ in range(2)], lens.shard(d, axis=0),
                                          block_table=Tensor([[0], [1]], dtype=dtypes.int32, device="PYTHON").shard(d, axis=0)),
     "is sharded over axis 0: shard over heads"),
  ]
  for call, msg in cases:
    with pytest.raises(ValueError, match=msg): call()

@pytest.mark.parametrize("emu", ["sm_80"], indirect=True)
@pytest.mark.parametrize("axis", [0, 1, 2], ids=["batch", "heads", "sequence"])
def test_tensor_maps_of_each_shard(emu, monkeypatch, request, axis):
  """Hopper's bulk copies on a sharded call: each device gets tensor maps of its own (fa_uop.api._tensor_maps: 32 a device, sharded
  over axis 0), made on it from a template of the shard's shape and pointed at its own shards of k and v. The emulator runs no inline
  code, so a twin of the maps kernel stands in: it copies the template and adds the first element of its k and v where each map's
  address goes (flash_tma_maps points them there), and a template of the shape it is given stands in for the driver's encoding"""
  from tinygrad import UOp
  from tinygrad.uop.ops import AxisType, KernelInfo
  from fa_uop import SM90A
  from fa_uop.tiles import flat
  def twin(tmpl, k, v, out):
    i = UOp.range(32, 0, AxisType.LOOP)
    first = lambda t: flat(t).index(UOp.const(0, dtypes.int)).cast(dtypes.uint64)
    add = i.eq(0).where(first(k), i.eq(16).where(first(v), UOp.const(0, dtypes.uint64)))
    return flat(out).index(i).store(flat(tmpl).index(i) + add).end(i).sink(arg=KernelInfo(name="twin_maps", opts_to_apply=()))
  monkeypatch.setattr(fa_uop.api, "_maps_builder", lambda target: twin)
  monkeypatch.setattr(fa_uop.api, "_compile_maps", lambda *a, **kw: None)
  template = lambda dtype, *dims: np.array([dtype.itemsize, *dims] + [0] * (16 - 1 - len(dims)), np.uint64).tobytes()
  monkeypatch.setattr(fa_uop.api, "tensor_map_template", template)
  fa_uop.api._tma_template.cache_clear()   # made with the stand-in: not kept
  request.addfinalizer(fa_uop.api._tma_template.cache_clear)
  B, Hkv, N, D, devs = 2, 4, 64, 64, devices(emu)
  kn, vn = np.zeros((B, Hkv, N, D), np.float16), np.zeros((B, Hkv, N, D), np.float16)
  firsts = [(d, 0, 0) if axis == 0 else (0, d * Hkv // 2, 0) if axis == 1 else (0, 0, d * N // 2) for d in range(2)]   # each shard's first
  for d, (b, h, n) in enumerate(firsts): kn[b, h, n, 0], vn[b, h, n, 0] = d + 1, d + 100
  k, v = (Tensor(x, device="PYTHON").shard(devs, axis=axis) for x in (kn, vn))
  maps = fa_uop.api._tensor_maps(SM90A, k, v, FwdConfig(64, 64, 4, tma=True))
  assert maps.device == devs and shard.axis(maps) == 0 and maps.shape == (64,) and maps.dtype == dtypes.uint64
  got, lshape = maps.numpy(), shard.local_shape(k)
  for d in range(2):
    want = np.frombuffer(template(dtypes.half, D, lshape[2], lshape[0] * lshape[1], 64) * 2, dtype=np.uint64).copy()   # K's, V's: the shard's
    want[0] += np.uint64(d + 1); want[16] += np.uint64(d + 100)
    assert (got[32 * d:32 * (d + 1)] == want).all(), (d, got[32 * d:32 * (d + 1)][[0, 16]], want[[0, 16]])

@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("axis", [0, 1, 2], ids=["batch", "heads", "sequence"])
def test_bulk_copies_on_two_hopper_gpus(rng, causal, axis):
  """on two H100s or H200s of one host (skipped with fewer): a sharded call's forward at D=128 takes the bulk-copy kernels (the table's
  config), each device with tensor maps of its own shards: over batch or heads o and lse equal the same call on one GPU (the same
  kernels on the same tiles), over the sequence (the ring, zigzag) to float32's rounding; the gradients against one GPU's, GQA and
  tails (the sequence: lengths zigzag splits), o against float64 too; a jitted step (TinyJit: CUDA graphs on both devices) replayed on
  fresh inputs equal to eager"""
  from tinygrad import Device, TinyJit
  from fa_uop.reference import attention_ref
  try: devs = (Device.canonicalize("CUDA:0"), Device.canonicalize("CUDA:1")); Device[devs[1]]
  except Exception: pytest.skip("one GPU")
  if fa_uop.target_for(devs[0]).tma is None: pytest.skip("not Hopper")
  r, seed = rng
  N = 1000 if axis < 2 else 1024
  lay, back = ((lambda t: shard.zigzag(t, devs)), shard.unzigzag) if axis == 2 else ((lambda t: t.shard(devs, axis=axis)), lambda t: t)
  def inputs():
    qn, kn, vn, don = (r.standard_normal(s).astype(np.float16).astype(np.float32)
                       for s in ((2, 8, N, 128), (2, 4, N, 128), (2, 4, N, 128), (2, 8, N, 128)))
    one = [Tensor(x, device=devs[0]).cast(dtypes.half).contiguous().realize() for x in (qn, kn, vn, don)]
    return (qn, kn, vn), one, [lay(t).realize() for t in one]
  def step(q, k, v, do, layout="contiguous"):
    for t in (q, k, v): t.requires_grad = True
    o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, layout=layout)
    return [x.realize() for x in (o, lse, *(o.float() * do.float()).sum().gradient(q, k, v))]
  layout = "zigzag" if axis == 2 else "contiguous"
  jitted = TinyJit(lambda *ts: step(*ts, layout=layout))
  for i in range(4):   # TinyJit: the second call captures, the rest replay
    (qn, kn, vn), one, sh = inputs()
    want = [host(x) for x in step(*one)]
    got = [host(back(x) if x.ndim == 4 else x if axis < 2 else shard.unzigzag(x, axis=2)) for x in step(*sh, layout=layout)]
    for name, g, w in zip(("o", "lse", "dq", "dk", "dv"), got, want):
      if axis < 2 and name in ("o", "lse"): assert (g == w).all(), f"call {i}: {name} sharded != one GPU (seed {seed})"
      else: assert np.abs(g - w).max() <= 2e-2 * np.abs(w).max(), f"call {i}: {name} {np.abs(g - w).max()} (seed {seed})"
    jit = [host(back(x) if x.ndim == 4 else x if axis < 2 else shard.unzigzag(x, axis=2)) for x in jitted(*sh)]
    for name, g, w in zip(("o", "lse", "dq", "dk", "dv"), jit, got): assert (g == w).all(), f"jit call {i}: {name} (seed {seed})"
  ref_o, ref_lse = attention_ref(qn, kn, vn, causal)
  assert_close(got[0], got[1].astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
