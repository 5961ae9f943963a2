import math
import numpy as np, pytest
from tinygrad import Tensor, dtypes
from fa_uop import flash_attention, FwdConfig
from fa_uop.mods import tile_plan
from fa_uop.reference import attention_ref, attention_bwd_ref
from conftest import qkv, host, assert_close, slow, slow_on, TOL, all_targets, unread_buffers

CFG = FwdConfig(32, 32, 2)

def window_keep(Nq:int, Nk:int, left, right, causal:bool) -> np.ndarray:
  i, j = np.arange(Nq)[:, None], np.arange(Nk)[None, :]
  keep = np.ones((Nq, Nk), bool)
  if left is not None: keep &= j >= i - left
  if right is not None: keep &= j <= i + right
  if causal: keep &= j <= i
  return keep

def check_rows(o, lse, ref_o, ref_lse, dtype, msg):
  """assert_close, where rows that keep no key must be exactly output 0 and logsumexp -inf"""
  empty = np.isneginf(ref_lse)
  assert (o[empty] == 0).all() and np.isneginf(lse[empty]).all(), f"rows with no key {msg}"
  assert_close(np.where(empty[..., None], 0, o), np.where(empty, 0, lse), ref_o, np.where(empty, 0, ref_lse), dtype, msg)

def fwd(rng, B, H, Hkv, Nq, Nk, D, dtype=dtypes.half, keep=None, score=None, qmul=1.0, cfg=CFG, **kw):
  r, seed = rng
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtype)
  if qmul != 1.0:
    q = (q.float() * qmul).cast(dtype).contiguous().realize()
    qn = host(q)
  o, lse = flash_attention(q, k, v, return_lse=True, config=cfg, **kw)
  ref_o, ref_lse = attention_ref(qn, kn, vn, kw.get("causal", False), keep=keep, score=score)
  check_rows(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtype, f"(seed {seed})")

def test_tile_plan_against_the_definition():
  """every tile a row keeps something of is visited, each once; every tile an edge or the column tail crosses is masked"""
  for first in range(-3, 40, 5):
    for rows in (1, 16):
      for n in (1, 16, 33):
        for T in (8, 16):
          for left in (None, 0, 10, 17):
            for right in (None, 0, 9):
              for tail in (True, False):
                p = tile_plan(first, first + rows - 1, n, T, left, right, tail)
                tiles = [p.tile(i) for i in range(p.total)]
                kept = lambda i, j: (left is None or j >= i - left) and (right is None or j <= i + right)
                need = {t for t in range(math.ceil(n / T)) if any(kept(i, j) for i in range(first, first + rows) for j in range(t * T, min(t * T + T, n)))}
                edge = {t for t in need if (tail and t * T + T > n) or not all(kept(i, j) for i in range(first, first + rows) for j in range(t * T, t * T + T))}
                assert len(tiles) == len(set(tiles)) and set(tiles) == need and edge <= set(tiles[:p.n_masked]), (first, rows, n, T, left, right, tail)

@pytest.mark.parametrize("causal,window", [slow(True, (20, None)), (False, (5, 7)), slow(False, (None, 3)), (True, (40, 10)), slow(False, (0, 0)),
                                           slow(True, (3, None)), slow(False, (100, None))],
                         ids=["causal-left20", "both-5-7", "right3", "causal-left40-right10", "diagonal", "causal-left3", "left100"])
@slow_on("gfx1100", keep=lambda p: p["window"] == (5, 7))
def test_window(emu, rng, causal, window):
  """one- and two-sided windows, with causal, widths below and above a 32-key tile, Nq != Nk, GQA"""
  fwd(rng, 1, 2, 1, 70, 90, 32, keep=window_keep(70, 90, *window, causal), causal=causal, window=window)

def test_window_rows_with_no_key(emu, rng):
  """the diagonal window (0, 0) with more queries than keys: queries 40..49 keep nothing, output 0 and logsumexp -inf there"""
  fwd(rng, 1, 2, 1, 50, 40, 32, keep=window_keep(50, 40, 0, 0, False), window=(0, 0))

@pytest.mark.parametrize("dtype", [dtypes.half, slow(dtypes.bfloat16)], ids=["fp16", "bf16"])
def test_softcap_on_large_scores(emu, rng, dtype):
  """scores in the hundreds, capped at 5: exp of the uncapped scores would overflow"""
  fwd(rng, 1, 2, 1, 40, 50, 32, dtype=dtype, qmul=16.0, score=lambda s: 5.0 * np.tanh(s / 5.0), causal=True, softcap=5.0)

def test_alibi_score_mod(emu, rng):
  """ALiBi: a per-head slope times the distance, read from a slopes tensor"""
  slopes = np.array([0.5, 0.25, 0.125, 0.0625], dtype=np.float32)
  i, j = np.arange(40)[:, None], np.arange(40)[None, :]
  fwd(rng, 1, 4, 2, 40, 40, 32, score=lambda s: s + slopes[None, :, None, None] * (j - i), causal=True,
      score_mod=lambda s, b, h, q_idx, kv_idx, sl: s + sl[h] * (kv_idx - q_idx).cast(dtypes.float), mod_args=(Tensor(slopes, device="PYTHON"),))

# and with two m-tiles per warp (Q's fragments read from LDS, as at 128x32x4, the H100's config for this mask)
@pytest.mark.parametrize("cfg", [CFG, FwdConfig(32, 32, 1)], ids=str)
@slow_on("gfx1100", keep=lambda p: p["cfg"].warps == 1)   # a document mask_mod with CFG on gfx1100 by default: test_everything_at_once
def test_document_mask(emu, rng, cfg):
  """packed sequences: a query sees the keys of its own document only, from per-token document ids"""
  r, _ = rng
  doc = np.sort(r.integers(0, 4, (2, 64))).astype(np.int32)
  fwd(rng, 2, 1, 1, 64, 64, 32, keep=doc[:, None, :, None] == doc[:, None, None, :], causal=True, cfg=cfg,
      mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]), mod_args=(Tensor(doc, device="PYTHON"),))

def test_key_padding_and_empty_rows(emu, rng):
  """key padding from per-batch lengths, one of them 0 (every row of that batch keeps nothing), bf16"""
  lens = np.array([37, 0], dtype=np.int32)
  fwd(rng, 2, 2, 1, 30, 50, 32, dtype=dtypes.bfloat16, keep=np.arange(50)[None, None, None, :] < lens[:, None, None, None],
      mask_mod=lambda b, h, q_idx, kv_idx, n: kv_idx < n[b], mod_args=(Tensor(lens, device="PYTHON"),))

@slow_on("gfx1100")   # the block map's plan is the same code on every target
def test_mask_mod_within_one_tile(emu, rng):
  """key padding where the keys (forward, dQ) and the queries (dK/dV) fit one tile with a tail: the map's only column tile is
  always masked, and no unmasked stage may be built (its tile index, then a constant, was loaded outside the loop that never
  ran, past the key tail: found by the SDPA drop-in's tests)"""
  lens = np.array([13, 20], dtype=np.int32)
  kw = dict(keep=np.arange(20)[None, None, None, :] < lens[:, None, None, None], mask_mod=lambda b, h, q_idx, kv_idx, n: kv_idx < n[b],
            mod_args=(Tensor(lens, device="PYTHON"),))
  fwd(rng, 2, 1, 1, 17, 20, 16, **kw)
  bwd(rng, 2, 1, 1, 17, 20, 16, **kw)

@all_targets
def test_everything_at_once(emu, rng):
  """window, softcap, a score_mod and a mask_mod together, GQA"""
  r, _ = rng
  doc = np.sort(r.integers(0, 2, (1, 60))).astype(np.int32)
  keep = window_keep(60, 60, 25, None, True)[None, None] & (doc[:, None, :, None] == doc[:, None, None, :])
  score = lambda s: 8.0 * np.tanh(s / 8.0) - 0.01 * np.abs(np.arange(60)[None, :] - np.arange(60)[:, None])
  fwd(rng, 1, 2, 1, 60, 60, 32, keep=keep, score=score, causal=True, window=(25, None), softcap=8.0,
      score_mod=lambda s, b, h, q_idx, kv_idx, d: s - 0.01 * (kv_idx - q_idx).cast(dtypes.float).maximum((q_idx - kv_idx).cast(dtypes.float)),
      mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]), mod_args=(Tensor(doc, device="PYTHON"),))

@slow_on("gfx1100")
def test_window_visits_tiles_in_proportion_to_n(emu, monkeypatch):
  """a causal window of one tile visits O(N) tiles, full causal O(N²): the emulator's tensor-core calls, counted. With 32-row
  blocks over 32-key tiles, N=64 and 128: the window visits 1 + 2·(n-1) tiles of n row blocks (3, 7), causal n(n+1)/2 (3, 10)"""
  import tinygrad.runtime.ops_python as emulator
  calls = []
  real = emulator.generic_wmma_helper
  monkeypatch.setattr(emulator, "generic_wmma_helper", lambda *a, **kw: calls.append(1) or real(*a, **kw))
  def mmas(N, window):
    q = Tensor.randn(1, 1, N, 16, device="PYTHON").cast(dtypes.half).contiguous().realize()
    calls.clear()
    flash_attention(q, q, q, causal=True, window=window, config=CFG).realize()
    return len(calls)
  w1, w2, c1, c2 = mmas(64, (31, None)), mmas(128, (31, None)), mmas(64, None), mmas(128, None)
  per = c1 // 3
  assert per > 0 and (w1, w2, c1, c2) == (3 * per, 7 * per, 3 * per, 10 * per), (w1, w2, c1, c2)

# *** gradients ***

GTOL = {dtypes.half: dict(rel=2e-3, abs=1.5e-2), dtypes.bfloat16: dict(rel=1.5e-2, abs=8e-2)}

def bwd(rng, B, H, Hkv, Nq, Nk, D, dtype=dtypes.half, keep=None, score=None, dscore=None, qmul=1.0, **kw):
  """loss = Σ o·dO through flash_attention with the modifications, against the float64 backward reference"""
  r, seed = rng
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtype)
  if qmul != 1.0:
    q = (q.float() * qmul).cast(dtype).contiguous().realize()
    qn = host(q)
  do = r.standard_normal((B, H, Nq, D)).astype(np.float32)
  for t in (q, k, v): t.requires_grad = True
  (flash_attention(q, k, v, config=CFG, **kw).float() * Tensor(do, device="PYTHON")).sum().backward()
  ref = attention_bwd_ref(qn, kn, vn, do, kw.get("causal", False), keep=keep, score=score, dscore=dscore)
  for name, g, want in zip(("dq", "dk", "dv"), (q.grad, k.grad, v.grad), ref):
    g = host(g)
    assert np.isfinite(g).all(), f"{name}: non-finite (seed {seed})"
    if np.linalg.norm(want) > 1e-4:
      assert np.linalg.norm(g - want) / np.linalg.norm(want) <= GTOL[dtype]["rel"], f"{name} rel err (seed {seed})"
    assert np.abs(g - want).max() <= GTOL[dtype]["abs"], f"{name} max abs err {np.abs(g - want).max():.2e} (seed {seed})"

@pytest.mark.parametrize("causal,window,Nq,Nk", [(True, (20, None), 70, 90), slow(False, (5, 7), 70, 90), (False, (0, 0), 50, 40),
                                                 slow(True, (40, 10), 64, 64)], ids=["causal-left20", "both-5-7", "empty-rows", "causal-both"])
# by default: the empty rows on gfx1100, the rest on sm_80 (CI time)
@slow_on("gfx1100", "sm_80", keep=lambda p: (p["window"] == (0, 0)) == (p["emu"] == "gfx1100"))
def test_window_gradients(emu, rng, causal, window, Nq, Nk):
  """dK/dV walk the queries that see their keys (the window mirrored), dQ the keys; rows that keep nothing get zero gradients"""
  bwd(rng, 1, 2, 1, Nq, Nk, 32, keep=window_keep(Nq, Nk, *window, causal), causal=causal, window=window)

@slow_on("gfx1100")   # sm_80 by default (CI time)
def test_softcap_gradients_on_large_scores(emu, rng):
  """the softcap's derivative (1 - tanh²) from an overflow-free tanh: score / cap reaches about 60, past where exp(2x) overflows
  float32 (44). A small cap rather than larger queries: dK = scale·dSᵀQ grows with Q and so would its fp16 rounding."""
  bwd(rng, 1, 2, 1, 40, 50, 32, qmul=4.0, score=lambda s: 0.25 * np.tanh(s / 0.25), dscore=lambda s: 1 - np.tanh(s / 0.25) ** 2, causal=True,
      softcap=0.25)

@slow_on("gfx1100")   # sm_80 by default (CI time)
def test_softcap_then_score_mod_gradients(emu, rng):
  """a score_mod that is not linear in the score, on the softcapped score: its derivative (tinygrad's UOp gradient, at the capped
  score) chained with the softcap's 1 - tanh²"""
  cap, g = 3.0, lambda y: y - 0.1 * y * y
  bwd(rng, 1, 2, 1, 40, 50, 32, qmul=2.0, score=lambda s: g(cap * np.tanh(s / cap)),
      dscore=lambda s: (1 - 0.2 * cap * np.tanh(s / cap)) * (1 - np.tanh(s / cap) ** 2), causal=True, softcap=cap,
      score_mod=lambda s, b, h, q_idx, kv_idx: s - 0.1 * s * s)

# the mods' gradients are built above the targets: with FA_UOP_SLOW=1 (CI time); by default test_kernels_get_only_the_buffers_they_read
# checks the same mods' dq, dk and dv on sm_80 in fp16
@slow_on("gfx1100", "sm_80")
def test_score_and_mask_mod_gradients(emu, rng):
  """ALiBi from per-head slopes and a document mask, GQA (dK/dV sum over the group), bf16"""
  r, _ = rng
  slopes = np.array([0.5, 0.25], dtype=np.float32)
  doc = np.sort(r.integers(0, 3, (1, 48))).astype(np.int32)
  i, j = np.arange(48)[:, None], np.arange(48)[None, :]
  bwd(rng, 1, 2, 1, 48, 48, 32, dtype=dtypes.bfloat16, keep=doc[:, None, :, None] == doc[:, None, None, :],
      score=lambda s: s + slopes[None, :, None, None] * (j - i), dscore=lambda s: np.ones_like(s), causal=True,
      score_mod=lambda s, b, h, q_idx, kv_idx, sl, d: s + sl[h] * (kv_idx - q_idx).cast(dtypes.float),
      mask_mod=lambda b, h, q_idx, kv_idx, sl, d: d[b, q_idx].eq(d[b, kv_idx]),
      mod_args=(Tensor(slopes, device="PYTHON"), Tensor(doc, device="PYTHON")))

@pytest.mark.parametrize("mask,causal,D", [("padding", False, 64), slow("document", True, 64), slow("padding", True, 128),
                                           slow("document", False, 128)], ids=["padding", "document-causal", "padding-causal-d128", "document-d128"])
# by default where the emulator failed, gfx1201 (sm_80's with FA_UOP_SLOW=1, CI time); the map's plan is above the targets, FA_UOP_SLOW=1
# runs the others
@slow_on("gfx1100", "sm_80")
@all_targets(keep=lambda p: p["mask"] == "padding" and p["emu"] == "gfx1201")
def test_mask_mod_over_two_tiles(emu, rng, mask, causal, D):
  """a mask_mod reading mod_args over two 32-wide tiles of the 33 keys (forward, dQ) and queries (dK/dV), GQA: the block map's
  unmasked stage, of one trip or none, is folded into the masked one. As a loop of at most one trip, tinygrad placed a constant the
  code after it needs in its body, and the emulator never made it where no tile was unmasked (key padding at 21: KeyError, issue 29)"""
  r, _ = rng
  if mask == "padding":
    arg = np.array([21], dtype=np.int32)
    kw = dict(keep=np.arange(33)[None, None, None, :] < arg[:, None, None, None], mask_mod=lambda b, h, q_idx, kv_idx, n: kv_idx < n[b])
  else:
    arg = np.sort(r.integers(0, 3, (1, 33))).astype(np.int32)
    kw = dict(keep=arg[:, None, :, None] == arg[:, None, None, :], mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]))
  bwd(rng, 1, 2, 1, 33, 33, D, causal=causal, mod_args=(Tensor(arg, device="PYTHON"),), **kw)

# *** block maps of a mask_mod ***

@pytest.mark.parametrize("keys", [True, False], ids=["queries-x-keys", "keys-x-queries"])
@slow_on("gfx1100")   # the map kernels are built for gfx1100 by test_compile's masked kernels and run by test_everything_at_once
def test_block_map_lists_the_tiles(emu, rng, keys):
  """the classify and compact kernels against the map computed here: per row block, its partial tiles then its full ones, each from
  the last down, with the sequence tails (a key tail masks; in the transposed map neither tail matters) and a per-head mask"""
  from fa_uop.blockmap import block_map
  from fa_uop.mods import Mods
  r, seed = rng
  B, H, Nq, Nk, TR, TC = 2, 2, 40, 50, 16, 16
  doc = np.sort(r.integers(0, 3, (B, 64))).astype(np.int32)
  mods = Mods(causal=True, mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]) | (h > 0) & (kv_idx < 8), n_args=1)
  G, slots = (1, 3) if keys else (2, 5)
  counts, idx, order = [x.numpy() for x in block_map(mods, (Tensor(doc, device="PYTHON"),), "PYTHON", B, H, Nq, Nk, TR, TC, keys=keys, group=G, slots=slots)]
  kept = lambda b, h, i, j: j <= i and (doc[b, i] == doc[b, j] or (h > 0 and j < 8))
  nR, nC = math.ceil((Nq if keys else Nk) / TR), math.ceil((Nk if keys else Nq) / TC)
  assert counts.shape == (B, H, nR, 2) and idx.shape == (B, H, nR, nC)
  for b in range(B):
    for h in range(H):
      for rb in range(nR):
        st = []
        for t in range(nC):
          if keys: pairs = [(i, j) for i in range(rb * TR, min(rb * TR + TR, Nq)) for j in range(t * TC, t * TC + TC)]
          else: pairs = [(i, j) for j in range(rb * TR, min(rb * TR + TR, Nk)) for i in range(t * TC, min(t * TC + TC, Nq))]
          k = [j < Nk and kept(b, h, i, j) for i, j in pairs]
          st.append(0 if not any(k) else 2 if all(k) else 1)
        part, full = [t for t in reversed(range(nC)) if st[t] == 1], [t for t in reversed(range(nC)) if st[t] == 2]
        assert list(counts[b, h, rb]) == [len(part), len(full)], (b, h, rb, st, seed)
        assert list(idx[b, h, rb, :len(part) + len(full)]) == part + full, (b, h, rb, st, seed)
  # the schedule: blocks of G heads each (grid head j = b·H/G + head group), a block's work its tiles over its heads plus OVERHEAD; head
  # by head, each head's longest first (then lower row block), unless that starts a block later than LATEST of all the work less its own
  from fa_uop.blockmap import OVERHEAD, LATEST
  HX = H // G
  work = np.array([[OVERHEAD + counts[j // HX, j % HX * G:j % HX * G + G, rb].sum() for rb in range(nR)] for j in range(B * HX)])
  places = [sorted(range(nR), key=lambda rb: (-work[j, rb], rb)) for j in range(B * HX)]
  before = [np.concatenate([[0], np.cumsum(work[j, places[j]])]) for j in range(B * HX)]
  heads_before, latest = np.concatenate([[0], np.cumsum(work.sum(1))]), work.sum() * round(LATEST * 64) // 64
  want = [j * nR + rb for *_, j, _, rb in sorted((min(heads_before[j] + before[j][m], latest - slots * work[j, rb]), j, m, rb)
                                                 for j in range(B * HX) for m, rb in enumerate(places[j]))]
  assert order.tolist() == want, (order.tolist(), want, seed)

@pytest.mark.parametrize("keys", [True, False], ids=["queries-x-keys", "keys-x-queries"])
@slow_on("gfx1100")   # the classify kernel is the same code on every target
def test_block_map_of_positions(emu, rng, keys):
  """a sequence-sharded call's causal window over global positions (at_positions, Mods.span) is classified from each tile's position
  ranges: against the status of each tile's elements computed here, exact where a tile's positions are contiguous, else partial where
  the ranges overlap (never full where a pair is hidden, nor empty where one is kept); zigzag's chunks of 24 straddle tiles of 16, and
  the rows are one device's of a random ring step's keys"""
  from fa_uop.blockmap import block_map
  from fa_uop.mods import Mods, at_positions
  from fa_uop.shard import order
  r, seed = rng
  N, P, TR, TC, left = 96, 2, 16, 16, int(r.integers(20, 60))
  pos = order(N, P, "zigzag").reshape(P, N // P)
  d, s = int(r.integers(0, P)), int(r.integers(0, P))
  pq, pk = pos[d], pos[(d - s) % P]
  nq, nk = len(pq) - int(r.integers(0, 10)), len(pk) - int(r.integers(0, 10))   # tails
  mods = at_positions(Mods(causal=True, window=(left, None)))
  assert mods.span == (left, 0)
  bm = block_map(mods, (Tensor(pq[:nq].astype(np.int32), device="PYTHON"), Tensor(pk[:nk].astype(np.int32), device="PYTHON")), "PYTHON", 1, 1,
                 nq, nk, TR, TC, keys=keys)
  counts, idx = bm[0].numpy()[0, 0], bm[1].numpy()[0, 0]
  rows, cols = (pq[:nq], pk[:nk]) if keys else (pk[:nk], pq[:nq])
  for rb in range(math.ceil(len(rows) / TR)):
    rp, got = rows[rb * TR:rb * TR + TR], [0] * math.ceil(len(cols) / TC)
    for t in idx[rb, :counts[rb, 0]]: got[t] = 1
    for t in idx[rb, counts[rb, 0]:counts[rb].sum()]: got[t] = 2
    for t in range(len(got)):
      cp = cols[t * TC:t * TC + TC]
      i, j = (rp[:, None], cp[None, :]) if keys else (cp[None, :], rp[:, None])
      k = (j <= i) & (j >= i - left)
      tail = keys and t * TC + TC > nk
      exact = 0 if not k.any() else 2 if k.all() and not tail else 1
      contiguous = all((np.diff(x) == 1).all() for x in (rp, cp))
      assert got[t] == exact if contiguous else got[t] in (exact, 1), (rb, t, got[t], exact, d, s, nq, nk, left, seed)

@slow_on("gfx1100")
def test_document_mask_visits_only_its_documents(emu, monkeypatch):
  """causal attention over 4 documents of one tile each visits the 4 diagonal tiles of the 10 full causal does (tensor-core calls)"""
  import tinygrad.runtime.ops_python as emulator
  calls = []
  real = emulator.generic_wmma_helper
  monkeypatch.setattr(emulator, "generic_wmma_helper", lambda *a, **kw: calls.append(1) or real(*a, **kw))
  N = 128
  q = Tensor.randn(1, 1, N, 16, device="PYTHON").cast(dtypes.half).contiguous().realize()
  doc = Tensor((np.arange(N) // (N // 4))[None].astype(np.int32), device="PYTHON")
  def mmas(**kw):
    calls.clear()
    flash_attention(q, q, q, causal=True, config=CFG, **kw).realize()
    return len(calls)
  full, docs = mmas(), mmas(mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]), mod_args=(doc,))
  assert docs * 10 == full * 4, (docs, full)

@slow_on("gfx1100")   # what a kernel is handed is decided above the targets: sm_80 covers it
def test_kernels_get_only_the_buffers_they_read(emu, rng):
  """mod_args that no mod reads, or only the score_mod does, never reach a kernel (block map, forward, backward, decoding), and the
  results are those of the mods as written (the kept buffers in their places)"""
  from fa_uop import flash_attention_with_kvcache
  r, _ = rng
  slopes, junk = np.array([0.5, 0.25], dtype=np.float32), np.zeros(7, dtype=np.float32)
  doc = np.sort(r.integers(0, 3, (1, 48))).astype(np.int32)
  i, j = np.arange(48)[:, None], np.arange(48)[None, :]
  args = tuple(Tensor(x, device="PYTHON") for x in (slopes, junk, doc))
  mods = dict(score_mod=lambda s, b, h, q_idx, kv_idx, sl, _, d: s + sl[h] * (kv_idx - q_idx).cast(dtypes.float),
              mask_mod=lambda b, h, q_idx, kv_idx, sl, _, d: d[b, q_idx].eq(d[b, kv_idx]), mod_args=args)
  (_, kn, vn), (q, k, v) = qkv(r, 1, 2, 1, 48, 48, 32, dtypes.half)
  o = flash_attention(q, k, v, causal=True, config=CFG, **mods)
  grads = (o.float() * Tensor(np.ones(o.shape, np.float32), device="PYTHON")).sum().gradient(q, k, v)
  dec = flash_attention_with_kvcache(q[:, :, -4:], k, v, Tensor([48], dtype=dtypes.int32, device="PYTHON"), causal=True, **mods)
  assert unread_buffers(o, *grads, dec) == []
  # a mask reading none of its buffers: the block map's kernels and the forward get none
  assert unread_buffers(flash_attention(q, k, v, causal=True, config=CFG, mask_mod=lambda b, h, q_idx, kv_idx, d: kv_idx >= 0,
                                                    mod_args=(args[2],))) == []
  qn = host(q)
  keep, score = doc[:, None, :, None] == doc[:, None, None, :], lambda s: s + slopes[None, :, None, None] * (j - i)
  ref_o, ref_lse = attention_ref(qn, kn, vn, True, keep=keep, score=score)
  refs = attention_bwd_ref(qn, kn, vn, np.ones(ref_o.shape), True, keep=keep, score=score, dscore=lambda s: np.ones_like(s))
  z = np.zeros(ref_lse.shape)
  check_rows(host(o), z, ref_o, z, dtypes.half, "forward")
  check_rows(host(dec), z[:, :, -4:], ref_o[:, :, -4:], z[:, :, -4:], dtypes.half, "decoding")
  for name, g, want in zip(("dq", "dk", "dv"), grads, refs):   # dk and dv summed over the GQA group
    assert np.linalg.norm(host(g) - want) / np.linalg.norm(want) <= GTOL[dtypes.half]["rel"], name

# *** past D=128, a window's or a block map's tiles in one masked stage ***

@pytest.mark.parametrize("mod", ["window", "document"])
@slow_on("gfx1100", "sm_80", keep=lambda p: (p["mod"] == "document") == (p["emu"] == "gfx1100"))   # one each by default (CI time)
def test_one_masked_stage_past_d128(emu, rng, mod):
  """past D=128 the backward kernels (and RDNA's forward: Target.stages) visit every tile of a window's plan or a block map masked, in
  one stage (TilePlan.one_stage), the full tiles too: the output, logsumexp and gradients at D=144 at the default configs (several
  query and key tiles, partial and full, GQA, tails) against float64"""
  from fa_uop.mods import Mods
  r, seed = rng
  Nq, Nk, D = 100, 110, 144
  (qn, kn, vn), (q, k, v) = qkv(r, 1, 2, 1, Nq, Nk, D, dtypes.half)
  if mod == "window":
    keep, kw = window_keep(Nq, Nk, 60, None, True), dict(causal=True, window=(60, None))
  else:
    docs = np.repeat(np.arange(3), [25, 70, 15]).astype(np.int32)[None]
    keep, kw = docs[:, None, :Nq, None] == docs[:, None, None, :], dict(mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]),
                                                                        mod_args=(Tensor(docs, device="PYTHON"),))
  assert Mods(causal=kw.get("causal", False), window=kw.get("window", (None, None)), mask_mod=kw.get("mask_mod")).masks_more
  for t in (q, k, v): t.requires_grad = True
  o, lse = flash_attention(q, k, v, return_lse=True, **kw)
  do = r.standard_normal((1, 2, Nq, D))
  grads = (o.float() * Tensor(do.astype(np.float32), device="PYTHON")).sum().gradient(q, k, v)
  ref_o, ref_lse = attention_ref(qn, kn, vn, kw.get("causal", False), keep=keep)
  check_rows(host(o), lse.numpy().astype(np.float64), ref_o, ref_lse, dtypes.half, f"(seed {seed})")
  for name, g, want in zip(("dq", "dk", "dv"), grads, attention_bwd_ref(qn, kn, vn, do, kw.get("causal", False), keep=keep)):
    g, t = host(g), GTOL[dtypes.half]
    assert np.linalg.norm(g - want) / np.linalg.norm(want) <= t["rel"], f"{name} rel err (seed {seed})"
    assert np.abs(g - want).max() <= t["abs"], f"{name} max abs err {np.abs(g - want).max():.2e} (seed {seed})"

# *** head dim 256 ***

@pytest.mark.slow   # 2-3 min a target on the emulator: by default the forward on every target (test_forward) and the backward on sm_80
def test_head_dim_256(emu, rng):
  """Gemma's head dim through flash_attention at its default configs (smaller tiles past D=128: fa_uop.config.fitting): causal,
  tails on both sides (two query blocks), GQA, a key-padding mask_mod; the output, logsumexp and gradients against float64"""
  r, seed = rng
  Nq, Nk, n = 70, 75, np.array([61], np.int32)
  (qn, kn, vn), (q, k, v) = qkv(r, 1, 2, 1, Nq, Nk, 256, dtypes.half)
  keep = np.arange(Nk)[None, None, None, :] < n[:, None, None, None]
  do = r.standard_normal((1, 2, Nq, 256))
  for t in (q, k, v): t.requires_grad = True
  o, lse = flash_attention(q, k, v, causal=True, return_lse=True, mask_mod=lambda b, h, qi, kj, m: kj < m[b], mod_args=(Tensor(n, device="PYTHON"),))
  grads = (o.float() * Tensor(do.astype(np.float32), device="PYTHON")).sum().gradient(q, k, v)
  assert_close(host(o), host(lse), *attention_ref(qn, kn, vn, True, keep=keep), dtypes.half, f"(seed {seed})")
  for name, g, want in zip(("dq", "dk", "dv"), grads, attention_bwd_ref(qn, kn, vn, do, True, keep=keep)):
    g, t = host(g), GTOL[dtypes.half]
    assert np.linalg.norm(g - want) / np.linalg.norm(want) <= t["rel"], f"{name} rel err (seed {seed})"
    assert np.abs(g - want).max() <= t["abs"], f"{name} max abs err {np.abs(g - want).max():.2e} (seed {seed})"

# *** the backward kernels' split layout under a block map ***

@pytest.mark.slow   # CI time: the split runs by default in test_backward, the listed tiles of a block map in the tests above
@pytest.mark.parametrize("cfg,D", [("32x32x4s2", 32), ("64x32x8s2", 32), ("32x32x4s2", 48)], ids=str)
def test_split_with_a_block_map(emu, rng, cfg, D):
  """dK/dV and dQ with their warps split along the head dim (at D=48 unevenly) where a block map lists the tiles (a document mask_mod
  over 3 tiles, a tile of one document skipped) and GQA runs them per head: the gradients of flash_attention_backward, outputs
  poisoned, against float64"""
  from fa_uop import flash_attention_backward, BwdConfig
  r, seed = rng
  Nq = Nk = 70
  (qn, kn, vn), (q, k, v) = qkv(r, 1, 2, 1, Nq, Nk, D, dtypes.half)
  docs = np.repeat(np.arange(4), [20, 35, 5, 10]).astype(np.int32)[None]
  keep = docs[:, None, :, None] == docs[:, None, None, :]
  kw = dict(causal=True, mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(Tensor(docs, device="PYTHON"),))
  o, lse = flash_attention(q, k, v, return_lse=True, **kw)
  do = Tensor(r.standard_normal((1, 2, Nq, D)).astype(np.float16), device="PYTHON")
  grads = flash_attention_backward(q, k, v, o, lse, do, configs=(BwdConfig.parse(cfg), BwdConfig.parse(cfg)), **kw)
  for name, g, want in zip(("dq", "dk", "dv"), grads, attention_bwd_ref(qn, kn, vn, host(do), True, keep=keep)):
    g = host(g)
    assert np.isfinite(g).all() and np.abs(g - want).max() <= 1.5e-2 and np.linalg.norm(g - want) / np.linalg.norm(want) <= 2e-3, f"{name} (seed {seed})"
