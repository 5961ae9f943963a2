import dataclasses, itertools, json
import pytest
from tinygrad import Context, Tensor, dtypes
import fa_uop.api, fa_uop.tune as tune
from fa_uop import flash_attention, FwdConfig, target_for
from fa_uop.config import candidates, default_fwd_config, shape_class
from conftest import all_targets

def test_shape_classes():
  assert shape_class(64, 1000, 1024, False) == shape_class(64, 1024, 700, False) == "d64_full_q1024_k1024"
  assert shape_class(64, 1025, 4096, True) == "d64_causal_q4096_k4096"

@pytest.mark.parametrize("d", [16, 64, 96, 128])
@all_targets
def test_candidates_fit_and_include_the_default(emu, d):
  t = target_for("PYTHON")
  cs = candidates(t, d)
  assert cs and default_fwd_config(t, d) in cs and default_fwd_config(t, d, causal=True) in cs
  for c in cs: c.check(t, d)

def test_tuner_times_once_then_reads_the_cache(emu, tmp_path, monkeypatch):
  """first use times every candidate and keeps the fastest on disk; later uses, in this process or a new one, time nothing"""
  monkeypatch.setenv("FA_UOP_CACHE", str(tmp_path / "tune.json"))
  monkeypatch.setattr(tune, "enabled", lambda device: True)
  monkeypatch.setattr(tune, "_chosen", {})
  t = target_for("PYTHON")
  cands = candidates(t, 32)
  fake_ms = {c: 1.0 + i for i, c in enumerate(reversed(cands))}  # the last candidate is the fastest
  timed = []
  def fake_time(fn, cnt, device=None):
    cfg = fn.args[0]
    timed.append(cfg)
    return fake_ms[cfg], 0.0
  monkeypatch.setattr(tune, "event_time", fake_time)
  pick = lambda: tune.fwd_config(t, "PYTHON", (1, 1, 20, 32), 20, 1, dtypes.half, True, None, lambda cfg, q, k, v: None)
  assert pick() == cands[-1] and sorted(map(str, timed)) == sorted(map(str, cands))
  entry = json.loads((tmp_path / "tune.json").read_text())[tune.key(t, dtypes.half, 32, 20, 20, True)]
  assert entry["config"] == dataclasses.asdict(cands[-1]) and FwdConfig(**entry["config"]) == cands[-1]
  timed.clear()
  assert pick() == cands[-1] and timed == []          # this process remembers
  monkeypatch.setattr(tune, "_chosen", {})
  assert pick() == cands[-1] and timed == []          # a new process reads the file
  assert "tinygrad 0.14.0" in tune.key(t, dtypes.half, 32, 20, 20, True)

def test_tuning_leaves_the_callers_random_stream_alone(emu, tmp_path, monkeypatch):
  """weights a model draws lazily before its first (tuned) forward must not depend on whether the tuner ran"""
  monkeypatch.setenv("FA_UOP_CACHE", str(tmp_path / "tune.json"))
  monkeypatch.setattr(tune, "enabled", lambda device: True)
  monkeypatch.setattr(tune, "_chosen", {})
  monkeypatch.setattr(tune, "event_time", lambda fn, cnt, device=None: (1.0, 0.0))
  def draw(tuned:bool):
    Tensor.manual_seed(1234)
    w = Tensor.rand(64, device="PYTHON")                  # lazy, like a freshly built nn.Linear's weight
    if tuned: tune.fwd_config(target_for("PYTHON"), "PYTHON", (1, 1, 20, 32), 20, 1, dtypes.half, False, None, lambda *a: None)
    return w.numpy(), Tensor.rand(64, device="PYTHON").numpy()
  (w0, n0), (w1, n1) = draw(False), draw(True)
  assert (w0 == w1).all() and (n0 == n1).all()

def test_second_call_builds_nothing(emu, monkeypatch):
  """the same shapes and config again reuse the built kernel graph (and so tinygrad's compiled program)"""
  built = []
  real = fa_uop.api.flash_fwd
  monkeypatch.setattr(fa_uop.api, "flash_fwd", lambda *a, **kw: built.append(1) or real(*a, **kw))
  fa_uop.api._fwd_builder.cache_clear()
  q = Tensor.empty(1, 2, 48, 32, dtype=dtypes.half, device="PYTHON")
  kv = Tensor.empty(1, 1, 40, 32, dtype=dtypes.half, device="PYTHON")
  cfg = FwdConfig(32, 32, 2)
  flash_attention(q, kv, kv, causal=True, config=cfg)
  flash_attention(q, kv, kv, causal=True, config=cfg)
  assert len(built) == 1
  flash_attention(q, kv, kv, causal=False, config=cfg)
  assert len(built) == 2

def test_gfx950_candidates_use_its_lds():
  """the 128-row configs of 80 and 128 KB at D=128 are tried where the LDS holds them: on gfx950 (160 KB), not gfx942 or sm_80"""
  from fa_uop import CDNA3, CDNA4, SM80, FwdConfig
  big = {FwdConfig(128, 64, 4), FwdConfig(128, 128, 8)}
  assert big <= set(candidates(CDNA4, 128)) and not big & set(candidates(CDNA3, 128)) and not big & set(candidates(SM80, 128))

def test_blocks_per_sm_only_where_the_renderer_takes_them():
  """a config's blocks per multiprocessor (__launch_bounds__'s second argument) is tried on the Hopper target, whose renderer writes
  it, and refused elsewhere before anything is built; blocks whose LDS does not fit the multiprocessor are refused too"""
  from fa_uop import SM80, SM90A, RDNA3
  three = FwdConfig(64, 64, 4, 3)
  assert three in candidates(SM90A, 128) and str(three) == "64x64x4x3"
  assert three not in candidates(SM80, 128) and three not in candidates(RDNA3, 64)
  for t, msg in ((SM80, "not taken by sm_80"), (RDNA3, "not taken by gfx1100")):
    with pytest.raises(ValueError, match=msg): three.check(t, 64)
  with pytest.raises(ValueError, match="do not fit"): FwdConfig(128, 128, 8, 3).check(SM90A, 128)
  from fa_uop import BwdConfig
  BwdConfig(64, 32, 4, 2).check(SM90A, 128)
  with pytest.raises(ValueError, match="not taken by sm_80"): BwdConfig(64, 32, 4, 2).check(SM80, 128)
  with Context(DEV="PYTHON::sm_80"):
    q = Tensor.empty(1, 1, 64, 64, dtype=dtypes.half)
    with pytest.raises(ValueError, match="not taken"): flash_attention(q, q, q, config=three)

def test_the_default_is_the_tables_nearest_pick(monkeypatch):
  """tuning is opt-in (FA_UOP_TUNE=1); by default a target's config is its table's pick for the nearest shape class (same head dim,
  the modifications' own rows, else causal's or full's; the nearest length buckets), and a head dim the table lacks gets the fixed
  default. Every pick in the table can run on its target"""
  from fa_uop import SM90A
  from fa_uop.tuned import TABLE
  monkeypatch.delenv("FA_UOP_TUNE", raising=False)
  assert not tune.enabled("CUDA") and not tune.enabled("AMD")
  monkeypatch.setenv("FA_UOP_TUNE", "1")
  assert tune.enabled("CUDA") and not tune.enabled("PYTHON")
  rows = TABLE["sm_90a"]
  for c, cfg in rows.items(): FwdConfig.parse(cfg).check(SM90A, int(c.split("_")[0][1:]))
  at = lambda d, nq, nk, causal, mods="": default_fwd_config(SM90A, d, causal, nq, nk, mods)
  assert at(128, 2000, 2000, True) == FwdConfig.parse(rows["d128_causal_q4096_k4096"])            # bucket 4096
  assert at(64, 100000, 100000, False) == FwdConfig.parse(rows["d64_full_q16384_k16384"])         # past the table: its nearest
  assert at(128, 700, 9000, False) in (FwdConfig.parse(rows["d128_full_q1024_k1024"]), FwdConfig.parse(rows["d128_full_q4096_k4096"]))
  assert at(128, 5000, 5000, True, "causal_m") == FwdConfig.parse(rows["d128_causal_q16384_k16384"])  # a mask: causal's rows
  assert at(96, 4096, 4096, False) == default_fwd_config(SM90A, 96, False)                       # no D=96 rows
  # a persistent pick (its tiles alike, timed without modifications; D=128 N=1024) only for calls without any: with one, the same
  # config not persistent; no causal row persistent
  p = FwdConfig.parse(rows["d128_full_q1024_k1024"])
  assert p.persistent and at(128, 1024, 1024, False) == at(128, 300, 700, False) == p
  for tag in ("w", "c", "s", "m", "c_s"): assert at(128, 1024, 1024, False, tag) == dataclasses.replace(p, persistent=False), tag
  assert not any(FwdConfig.parse(c).persistent for k, c in rows.items() if "_causal_" in k)
  from fa_uop import SM80
  assert default_fwd_config(SM80, 128, False, 4096, 4096) == default_fwd_config(SM80, 128)   # no table: the fixed default
  # fp8 (the same arch; the table measured 16-bit inputs): not the table's picks but fp8's own, whose P·V is 8-bit wgmma on Vᵀ at every
  # length: the two consumer warpgroups' ping-pong at D=256 and at D=128 from 4096 keys (224 keys a step there), else one consumer
  # warpgroup in two blocks an SM
  for d, n, causal in itertools.product((128, 256), (1024, 4096, 16384), (False, True)):
    cfg = default_fwd_config(SM90A.fp8, d, causal, n, n)
    assert cfg.reads_vt(SM90A.fp8, d) and cfg.pingpong == (d == 256 or n >= 4096), (d, n, cfg)
    assert cfg == (FwdConfig(128, 224 if d == 128 else 128, 8, tma=True, ring=2, pingpong=True) if cfg.pingpong else
                   FwdConfig(64, 128, 4, 2, tma=True, ring=2))
  # a modification beyond causal (window, softcap, score_mod, mask_mod) steps a wide key tile back to 128 keys and its descriptors to
  # the add (d was timed at 224 keys), the rest of it kept (they spill there: fa_uop.config.default_fwd_config); causal alone keeps it
  for t, d, n, causal in itertools.product((SM90A, SM90A.fp8), (64, 128, 256), (4096, 16384), (False, True)):
    if d == 64 and t is SM90A.fp8: continue
    plain = default_fwd_config(t, d, causal, n, n, "causal" if causal else "")
    for tag in ("w", "c", "s", "m", "w_c_s_m"):
      got = default_fwd_config(t, d, causal, n, n, f"causal_{tag}" if causal else tag)
      assert got == (dataclasses.replace(plain, block_n=128, rebuilt=False) if plain.block_n > 128 else plain), (t.arch, d, n, causal, tag, got)
  assert any(default_fwd_config(t, d, False, 16384, 16384).block_n > 128 for t, d in ((SM90A, 64), (SM90A, 128), (SM90A.fp8, 128)))
  # by a producer warpgroup's ring where the target has bulk copies (its twin has none: cp.async), and within Hopper's LDS
  assert default_fwd_config(SM90A.fp8, 128).ring and default_fwd_config(SM90A.fp8, 256).ring and not default_fwd_config(SM90A.portable().fp8, 128).tma
  for d in (128, 256): default_fwd_config(SM90A.fp8, d).check(SM90A.fp8, d)

def test_rdna_keys_shrink_under_modifications():
  """on RDNA a modification beyond causal takes the forward's keys (and dK/dV's queries a warp) a step to 16 past fwd_warp's fourth
  head dim, and the tuner's candidates with them (their work a score held beside S spilled at 32: fa_uop.target.Target.fwd_keys);
  causal alone, dQ and every other target as without"""
  from fa_uop import RDNA3, RDNA4, CDNA3, CDNA4, SM80, SM90A
  from fa_uop.config import default_bwd_configs
  for t, d, tag in itertools.product((RDNA3, RDNA4, CDNA3, CDNA4, SM80, SM90A), (64, 80, 96, 112, 128, 256), ("w", "c", "s", "m", "w_c_s_m")):
    shrinks = t in (RDNA3, RDNA4) and 128 >= d > t.fwd_warp[3]
    # (with GQA beyond causal the backward takes no producer's ring, causal alone's on Hopper at D=128: compared with the kernels
    # without it; one head a KV head under a window or mask_mod: test_hopper's test_backward_defaults_take_the_ring_where_it_runs)
    plain_f, (plain_kv, plain_q) = default_fwd_config(t, d, True, mods="causal"), default_bwd_configs(t, d, "causal", one_device=False)
    f, (kv, q) = default_fwd_config(t, d, True, mods=f"causal_{tag}"), default_bwd_configs(t, d, f"causal_{tag}", group=2)
    assert f == (dataclasses.replace(plain_f, block_n=16) if shrinks else plain_f), (t.arch, d, tag, f)
    # (Hopper's D=64 dK/dV drops its rebuilt descriptors there: timed without modifications only)
    plain_kv = dataclasses.replace(plain_kv, rebuilt=False)
    assert kv == (dataclasses.replace(plain_kv, block_n=16 * plain_kv.split) if shrinks and plain_kv.block_n // plain_kv.split > 16
                  else plain_kv) and q == plain_q, (t.arch, d, tag, kv, q)
    cs = candidates(t, d, f"causal_{tag}")
    # (CDNA's less its blocks of 8 warps at 128 keys: Target.fwd_block_keys)
    assert f in cs and all(c.block_n <= 16 for c in cs) if shrinks else \
      cs == [c for c in candidates(t, d) if c.block_n * c.warps // c.split <= t.fwd_block_keys[1]], (t.arch, d, tag, cs)
  assert FwdConfig(128, 128, 8) in candidates(CDNA4, 64) and FwdConfig(128, 128, 8) not in candidates(CDNA4, 64, "causal_w")
  # without a tag, as with causal alone: RDNA3's dK/dV at D=112 (split unevenly since 2026-11-28, 16 queries a warp either way)
  kv_w, kv = default_bwd_configs(RDNA3, 112, "causal_w")[0], default_bwd_configs(RDNA3, 112)[0]
  assert kv_w.block_n // kv_w.split == 16 and kv == default_bwd_configs(RDNA3, 112, "causal")[0] and kv.block_n // kv.split == 16
