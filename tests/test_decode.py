import functools
import numpy as np, pytest
from tinygrad import Tensor, TinyJit, dtypes
import fa_uop.api
from fa_uop import flash_attention_with_kvcache, flash_decode, flash_combine, target_for, FwdConfig, SM80
from fa_uop.config import decode_splits, default_decode_config
from fa_uop.reference import kvcache_ref
from conftest import TOL, assert_close, host, device_tensor, nans, slow, slow_on, all_targets


def rand(r, shape, dtype):
  """random normal values in dtype on the emulator, and the float64 numpy copy of what the kernel sees"""
  t = device_tensor(r.standard_normal(shape), dtype)
  return t, host(t)

def cache(r, B, H, Hkv, Nq, Nmax, D, dtype, page=None):
  """q and a KV cache: dense (B, Hkv, Nmax, D), or paged into a pool with two spare pages, the pages shuffled over the pool"""
  q, qn = rand(r, (B, H, Nq, D), dtype)
  if page is None: return (q, qn), rand(r, (B, Hkv, Nmax, D), dtype), rand(r, (B, Hkv, Nmax, D), dtype), None
  per = Nmax // page
  table = r.permutation(B * per + 2)[:B * per].reshape(B, per).astype(np.int32)
  pool = (B * per + 2, Hkv, page, D)
  return (q, qn), rand(r, pool, dtype), rand(r, pool, dtype), table

def lengths(r, B, Nmax):
  """one length of 1, one of the whole cache, the rest random (so rarely a multiple of any tile), shuffled"""
  return r.permutation(np.array([1, Nmax, *r.integers(2, Nmax, B - 2)][:B], dtype=np.int32))

def run_decode(q, k, v, seqlens, table, causal, splits, cfg, scale=None):
  """the decoding kernel (and, split, the combine) through Tensor.custom_kernel, every output poisoned with NaN first"""
  B, H, Nq, D = q.shape
  nan = lambda *s, dt=dtypes.float32: nans(s, dt, "PYTHON")
  t = target_for("PYTHON")
  sl = Tensor(seqlens, device="PYTHON").realize()
  ins = (q, k, v, sl) + ((Tensor(table, device="PYTHON").realize(),) if table is not None else ())
  fxn = lambda q, k, v, sl, *rest: flash_decode(q, k, v, sl, rest[0] if table is not None else None, *rest[-2:], target=t, cfg=cfg,
                                                causal=causal, scale=scale)
  outs = (nan(B, H, Nq, splits, D), nan(B, H, Nq, splits)) if splits > 1 else (nan(B, H, Nq, D, dt=q.dtype), nan(B, H, Nq))
  o, lse = Tensor.custom_kernel(*ins, *outs, fxn=fxn)[-2:]
  if splits > 1: o, lse = Tensor.custom_kernel(o, lse, nan(B, H, Nq, D, dt=q.dtype), nan(B, H, Nq), fxn=flash_combine)[2:]
  Tensor.realize(o, lse)
  return host(o), lse.numpy().astype(np.float64)

def check(rng, B, H, Hkv, Nq, Nmax, D, causal, splits, dtype=dtypes.half, page=None, cfg=None, seqlens=None, scale=None):
  r, seed = rng
  (q, qn), (k, kn), (v, vn), table = cache(r, B, H, Hkv, Nq, Nmax, D, dtype, page)
  seqlens = lengths(r, B, Nmax) if seqlens is None else np.asarray(seqlens, dtype=np.int32)
  o, lse = run_decode(q, k, v, seqlens, table, causal, splits, cfg or FwdConfig(16, 32, 1), scale)
  assert_kv_close(o, lse, *kvcache_ref(qn, kn, vn, seqlens, table, causal, scale), dtype, f"(seed {seed}, lengths {seqlens})")

def assert_kv_close(o, lse, ref_o, ref_lse, dtype, msg):
  """as the forward's assert_close, where rows that see no key (causal queries before a short cache's first key) must be
  exactly output 0 and logsumexp -inf"""
  empty = np.isneginf(ref_lse)
  assert (o[empty] == 0).all() and np.isneginf(lse[empty]).all(), f"rows with no key {msg}"
  assert_close(np.where(empty[..., None], 0, o), np.where(empty, 0, lse), ref_o, np.where(empty, 0, ref_lse), dtype, msg)

# contiguous caches: single and a few new queries, causal, split over 1 and 3 blocks; GQA (2 query heads per KV head)
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("Nq,causal", [(1, False), (1, True), (3, True), (4, False)])
@slow_on("gfx1100", keep=lambda p: (p["Nq"], p["causal"]) == (3, True))
def test_contiguous(emu, rng, Nq, causal, splits): check(rng, 3, 4, 2, Nq, 70, 32, causal, splits)

# paged: 16-key pages under 32-key tiles (a lookup per row; 5 pages, so the last tile reaches past the cache) and 32-key pages
# under 16-key tiles (one lookup per tile)
@pytest.mark.parametrize("page,cfg,Nmax", [(16, FwdConfig(16, 32, 1), 80), (32, FwdConfig(16, 16, 1), 96)], ids=["page16-tile32", "page32-tile16"])
@pytest.mark.parametrize("Nq,causal,splits", [(1, False, 2), (3, True, 1), slow(2, True, 4)])
@slow_on("gfx1100", keep=lambda p: p["page"] == 16)
@all_targets(keep=lambda p: p["page"] == 16 and p["Nq"] == 3)
def test_paged(emu, rng, page, cfg, Nmax, Nq, causal, splits): check(rng, 3, 4, 2, Nq, Nmax, 32, causal, splits, page=page, cfg=cfg)

@slow_on("gfx1100")   # sm_80's by default, the others with FA_UOP_SLOW=1 (CI time)
@all_targets(keep=lambda p: False)
def test_head_dim_256(emu, rng):
  """the cache path at Gemma's head dim, its default tile (64-key tiles where K and V fit beside Q: fa_uop.config.fitting), split"""
  check(rng, 2, 4, 2, 3, 70, 256, True, 2, cfg=default_decode_config(target_for("PYTHON"), 256, 6))

@slow_on("gfx1100", "sm_80")   # gfx1201's by default (RDNA4: its default splits here), the others with FA_UOP_SLOW=1 (CI time)
@all_targets(keep=lambda p: p["emu"] == "gfx1201")
def test_split_head_dim(emu, rng):
  """past the head dim where a forward masking every tile splits (Target.splits: RDNA past 128), the decoding kernel's default is the
  forward's split tile in blocks of 32 rows: at D=176 unevenly (two groups of 96 columns, 16 phantom), paged, a GQA group of 8 rows
  over two row groups, causal, not split"""
  t, D = target_for("PYTHON"), 176
  cfg = default_decode_config(t, D, 8)
  assert (cfg.split == 2) == t.splits(D, True), cfg
  check(rng, 2, 8, 1, 1, 48, D, True, 1, page=16, cfg=cfg)

@pytest.mark.parametrize("H,Hkv", [(4, 4), (4, 1), slow(8, 2)], ids=["mha", "mqa", "gqa4"])
@slow_on("gfx1100", keep=lambda p: p["Hkv"] == 1)
def test_heads(emu, rng, H, Hkv): check(rng, 2, H, Hkv, 2, 50, 32, True, 2)

@pytest.mark.parametrize("D,dtype", [(64, dtypes.bfloat16), (16, dtypes.half), slow(128, dtypes.half), slow(128, dtypes.bfloat16)],
                         ids=["d64-bf16", "d16-fp16", "d128-fp16", "d128-bf16"])
def test_head_dims_and_dtypes(emu, rng, D, dtype): check(rng, 2, 2, 1, 1, 40, D, True, 2, dtype=dtype)

@slow_on("gfx1100")
def test_chunked_prefill(emu, rng):
  """many new queries: packed rows over several row blocks of the default tile (4 warps), causal, a short and a long sequence"""
  t = target_for("PYTHON")
  cfg = default_decode_config(t, 32, 2 * 20)
  assert cfg.warps == 4
  check(rng, 2, 4, 2, 20, 80, 32, True, 2, cfg=cfg, seqlens=[23, 80])

def test_out_of_range_lengths_and_pages_are_clamped(emu, rng):
  """lengths below 0 or past the cache and block-table entries outside the pool are clamped, never read outside (the emulator
  raises on an out-of-bounds access); a sequence of length 0 and causal queries before the first key give 0 and -inf"""
  r, seed = rng
  (q, qn), (k, kn), (v, vn), table = cache(r, 4, 2, 1, 3, 64, 32, dtypes.half, page=16)
  table[0, 1], table[2, 3] = -7, 10 ** 6
  seqlens = np.array([-5, 1000, 0, 2], dtype=np.int32)
  o, lse = run_decode(q, k, v, seqlens, table, True, 2, FwdConfig(16, 32, 1))
  ref_o, ref_lse = kvcache_ref(qn, kn, vn, seqlens, table, True)
  assert np.isneginf(ref_lse[[0, 2]]).all() and np.isneginf(ref_lse[3, :, 0]).all() and np.isfinite(ref_lse[1]).all()
  assert (o[[0, 2]] == 0).all() and np.isneginf(lse[[0, 2]]).all() and (o[3, :, 0] == 0).all(), f"seed {seed}"
  np.testing.assert_allclose(o[1], ref_o[1], atol=TOL[dtypes.half]["abs"], err_msg=f"seed {seed}")
  np.testing.assert_allclose(o[3, :, 1:], ref_o[3, :, 1:], atol=TOL[dtypes.half]["abs"], err_msg=f"seed {seed}")

@slow_on("gfx1100")
def test_splits_agree(emu, rng):
  """the split count changes only float rounding: 1, 2, 5 and 8 (more than the 6 tiles: empty splits) against each other"""
  r, seed = rng
  (q, _), (k, _), (v, _), _ = cache(r, 2, 4, 2, 2, 96, 32, dtypes.half)
  seqlens = lengths(r, 2, 96)
  outs = [run_decode(q, k, v, seqlens, None, True, s, FwdConfig(16, 16, 1)) for s in (1, 2, 5, 8)]
  for o, lse in outs[1:]:
    assert (np.isneginf(lse) == np.isneginf(outs[0][1])).all(), f"seed {seed}, lengths {seqlens}"
    fin = np.isfinite(lse)
    assert np.abs(o - outs[0][0]).max() <= 2e-3 and np.abs(lse[fin] - outs[0][1][fin]).max() <= 1e-5, f"seed {seed}, lengths {seqlens}"

def test_api(emu, rng):
  """the public function end to end, with the automatic split and tile, return_lse, a non-int32 length tensor and a scale"""
  r, seed = rng
  (q, qn), (k, kn), (v, vn), table = cache(r, 2, 4, 2, 2, 64, 32, dtypes.half, page=16)
  seqlens = lengths(r, 2, 64)
  o, lse = flash_attention_with_kvcache(q, k, v, Tensor(seqlens.astype(np.int64), device="PYTHON"), Tensor(table, device="PYTHON"),
                                        causal=True, scale=0.3, return_lse=True)
  assert o.shape == (2, 4, 2, 32) and o.dtype == dtypes.half and lse.shape == (2, 4, 2) and lse.dtype == dtypes.float32
  assert_kv_close(host(o), lse.numpy(), *kvcache_ref(qn, kn, vn, seqlens, table, True, 0.3), dtypes.half, f"(seed {seed})")
  assert not isinstance(flash_attention_with_kvcache(q, k, v, Tensor(seqlens, device="PYTHON"), Tensor(table, device="PYTHON")), tuple)

def test_new_lengths_build_nothing(emu, rng, monkeypatch):
  """a decode loop under TinyJit: the kernels are built once; each step's new lengths (and K/V written into the cache) are read
  at run time, and every step is right"""
  built = []
  real = fa_uop.api.flash_decode
  monkeypatch.setattr(fa_uop.api, "flash_decode", lambda *a, **kw: built.append(1) or real(*a, **kw))
  fa_uop.api._decode_builders.cache_clear()
  r, seed = rng
  (q, qn), (k, kn), (v, vn), _ = cache(r, 2, 4, 2, 1, 48, 32, dtypes.half)
  sl = Tensor([5, 9], dtype=dtypes.int32, device="PYTHON").contiguous().realize()
  step = TinyJit(lambda q, k, v, sl: flash_attention_with_kvcache(q, k, v, sl, causal=True, num_splits=2).realize())
  for i in range(4):
    seqlens = np.array([5 + 7 * i, 9 + 11 * i], dtype=np.int32)
    sl.assign(Tensor(seqlens, device="PYTHON")).realize()
    o = host(step(q, k, v, sl))
    ref_o, _ = kvcache_ref(qn, kn, vn, seqlens, None, True)
    assert np.abs(o - ref_o).max() <= TOL[dtypes.half]["abs"], f"step {i} (seed {seed})"
  assert len(built) == 1

def test_split_heuristic():
  """no split where the blocks fill the GPU 4 times; else enough for about 4 blocks per multiprocessor, each split at least 4 tiles
  long, a multiple of 8 past 8"""
  assert decode_splits(blocks=528, n_tiles=512, multiprocessors=132) == 1
  assert decode_splits(blocks=64, n_tiles=64, multiprocessors=132) == 8      # B=8, 8 KV heads, 4k cache on the H100
  assert decode_splits(blocks=8, n_tiles=2048, multiprocessors=132) == 64    # B=1, 128k cache
  assert decode_splits(blocks=200, n_tiles=2048, multiprocessors=132) == 3
  assert decode_splits(blocks=8, n_tiles=8, multiprocessors=132) == 2 and decode_splits(1, 3, 132) == 1
  assert decode_splits(blocks=1, n_tiles=10 ** 6, multiprocessors=132) == 128

def test_default_tile():
  assert [default_decode_config(SM80, 128, rows) for rows in (1, 4, 16, 17, 40, 256)] == \
    [FwdConfig(16, 64, 1)] * 3 + [FwdConfig(32, 64, 2), FwdConfig(64, 64, 4), FwdConfig(64, 64, 4)]

@pytest.mark.parametrize("page", [None, 16], ids=["dense", "paged"])
def test_write_kvcache(emu, rng, page):
  """new keys and values land at positions seqlens[b] + i (dropped past the cache), in place; nothing else changes"""
  from fa_uop import write_kvcache
  r, seed = rng
  B, Hkv, Nmax, D, Nnew = 3, 2, 32, 16, 3
  _, (kc, kcn), (vc, vcn), table = cache(r, B, 2, Hkv, 1, Nmax, D, dtypes.half, page)
  (k, kn), (v, vn) = rand(r, (B, Hkv, Nnew, D), dtypes.half), rand(r, (B, Hkv, Nnew, D), dtypes.half)
  seqlens = np.array([0, 13, Nmax - 1], dtype=np.int32)
  ko, vo = write_kvcache(kc, vc, k, v, Tensor(seqlens, device="PYTHON"), None if table is None else Tensor(table, device="PYTHON"))
  Tensor.realize(ko, vo)
  for got, before, new in ((kc, kcn, kn), (vc, vcn, vn)):  # the caches themselves were written
    want = before.copy()
    for b in range(B):
      for i in range(Nnew):
        n = seqlens[b] + i
        if n >= Nmax: continue
        if table is None: want[b, :, n] = new[b, :, i]
        else: want[table[b, n // page], :, n % page] = new[b, :, i]
    np.testing.assert_array_equal(host(got), want, err_msg=f"seed {seed}")

def test_mods(emu, rng):
  """a bottom-right window, softcap, ALiBi as a score_mod and key padding as a mask_mod, over the cache's positions; split 2"""
  r, seed = rng
  B, H, Hkv, Nq, Nmax, D = 3, 4, 2, 2, 96, 32
  (q, qn), (k, kn), (v, vn), _ = cache(r, B, H, Hkv, Nq, Nmax, D, dtypes.half)
  seqlens, pad = lengths(r, B, Nmax), np.array([5, 60, 20], dtype=np.int32)
  slopes = np.array([0.5, 0.25, 0.125, 0.0625], dtype=np.float32)
  o, lse = flash_attention_with_kvcache(q, k, v, Tensor(seqlens, device="PYTHON"), causal=True, return_lse=True, num_splits=2,
                                        config=FwdConfig(16, 16, 1), window=(40, None), softcap=6.0, mod_args=(Tensor(slopes, device="PYTHON"), Tensor(pad, device="PYTHON")),
                                        score_mod=lambda s, b, h, q_idx, kv_idx, sl, p: s + sl[h] * (kv_idx - q_idx).cast(dtypes.float),
                                        mask_mod=lambda b, h, q_idx, kv_idx, sl, p: kv_idx >= p[b])
  bb = np.arange(B)[:, None, None, None]
  ref = kvcache_ref(qn, kn, vn, seqlens, None, True, window=(40, None), keep=lambda qp, kp: kp >= pad[bb],
                    score=lambda s, qp, kp: 6.0 * np.tanh(s / 6.0) + slopes[None, :, None, None] * (kp - qp))
  assert_kv_close(host(o), lse.numpy(), *ref, dtypes.half, f"(seed {seed}, lengths {seqlens})")

def test_window_visits_only_its_tiles(emu, monkeypatch):
  """decoding one query with a window of 16 keys reads the same tiles whatever the length of the cache"""
  import tinygrad.runtime.ops_python as emulator
  calls = []
  real = emulator.generic_wmma_helper
  monkeypatch.setattr(emulator, "generic_wmma_helper", lambda *a, **kw: calls.append(1) or real(*a, **kw))
  q = Tensor.randn(1, 2, 1, 16, device="PYTHON").cast(dtypes.half).contiguous().realize()
  kv = Tensor.randn(1, 1, 256, 16, device="PYTHON").cast(dtypes.half).contiguous().realize()
  counts = []
  for n, window in ((64, (15, None)), (256, (15, None)), (64, None), (256, None)):
    calls.clear()
    flash_attention_with_kvcache(q, kv, kv, Tensor([n], dtype=dtypes.int32, device="PYTHON"), window=window, num_splits=1, config=FwdConfig(16, 16, 1)).realize()
    counts.append(len(calls))
  assert counts[0] == counts[1] and counts[3] == 4 * counts[2] and counts[1] * 8 <= counts[3], counts

@pytest.mark.parametrize("causal,mods", [slow(False, "none"), (True, "alibi-window")], ids=["full", "causal-alibi-window"])
@slow_on("gfx1100")   # the route is above the targets, whose decoding kernels the tests above cover
def test_flash_attention_takes_the_split_kv_path(emu, rng, monkeypatch, poisoned, causal, mods):
  """flash_attention at a decode shape (3 queries, 130 keys: three splits of the keys, the last of 2, where splits may be one tile
  long) runs the decoding kernels with no argument asking for them, top-left aligned as flash_attention is (a score_mod and window reading q_idx see positions 0..2), and its
  gradients, of o and of lse, are those of attention (through the combine and the split kernel)"""
  from fa_uop import flash_attention
  from fa_uop.reference import attention_ref, attention_bwd_ref
  r, seed = rng
  built = []
  monkeypatch.setattr(fa_uop.api, "flash_decode", lambda *a, **kw: built.append(kw["top_left"]) or flash_decode(*a, **kw))
  fa_uop.api._decode_builders.cache_clear()
  monkeypatch.setattr(fa_uop.config, "DECODE_MIN_TILES", 1)   # three splits of 64-key tiles at a quarter of the keys (CI time)
  splits, plan = [], fa_uop.api.split_kv_plan
  monkeypatch.setattr(fa_uop.api, "split_kv_plan", lambda *a: (p:=plan(*a)) and splits.append(p[1]) or p)
  (q, qn), (k, kn), (v, vn) = rand(r, (1, 4, 3, 16), dtypes.half), rand(r, (1, 2, 130, 16), dtypes.half), rand(r, (1, 2, 130, 16), dtypes.half)
  slopes = np.array([0.5, 0.25, 0.125, 0.0625], np.float32)
  kw = dict(window=(None, 1), mod_args=(Tensor(slopes, device="PYTHON"),),
            score_mod=lambda s, b, h, qi, kj, sl: s + sl[h] * (kj - qi).cast(dtypes.float)) if mods != "none" else {}
  for t in (q, k, v): t.requires_grad = True
  o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, **kw)
  do = r.standard_normal(o.shape)
  grads = ((o.float() * Tensor(do.astype(np.float32), device="PYTHON")).sum() + lse.sum() * 0.5).gradient(q, k, v)
  i, j = np.arange(3)[:, None], np.arange(130)[None, :]
  keep = (j <= i + 1) if mods != "none" else None
  score = (lambda s: s + slopes[None, :, None, None] * (j - i)) if mods != "none" else None
  ref_o, ref_lse = attention_ref(qn, kn, vn, causal, keep=keep, score=score)
  assert_close(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
  refs = attention_bwd_ref(qn, kn, vn, do, causal, dlse=np.full(ref_lse.shape, 0.5), keep=keep, score=score,
                           dscore=(lambda s: np.ones_like(s)) if score else None)
  for name, g, ref in zip("qkv", grads, refs):
    assert np.linalg.norm(host(g) - ref) / np.linalg.norm(ref) <= 5e-3, f"d{name} (seed {seed})"
  # causal, or the window's right edge: the 3 queries see 3 or 4 keys from the left, one tile, so no split (the unsplit kernel's gradient)
  assert built and all(built) and splits == [1 if causal or mods != "none" else 3], f"not the split-KV path as planned: {built}, {splits}"

def test_split_kv_route():
  """flash_attention's choice (fa_uop.config.split_kv): the decoding kernels where a forward block's 64 rows would hold fewer queries,
  or where its blocks cannot fill the GPU and the keys split; the forward elsewhere"""
  from fa_uop.config import split_kv
  plan = (FwdConfig(16, 64, 1), 8)
  assert split_kv(plan, 4096, 132, 1) == plan                       # one query: always
  assert split_kv(plan, 64, 132, 256) == plan                       # 64 blocks on 132 SMs, the keys split 8 ways
  assert split_kv((plan[0], 1), 64, 132, 256) is None               # they do not split: the forward
  assert split_kv(plan, 4096, 132, 256) is None                     # enough blocks: the forward
