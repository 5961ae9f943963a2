import numpy as np, pytest
from tinygrad import dtypes
from fa_uop import FwdConfig, default_fwd_config, target_for, HEAD_DIMS
from fa_uop.config import CANDIDATES, candidates
from fa_uop.reference import attention_ref
from conftest import qkv, run_fwd, assert_close, slow, slow_on, all_targets

def check(rng, B, H, Hkv, Nq, Nk, D, causal, dtype, scale=None, cfg=None):
  r, seed = rng
  (qn, kn, vn), (q, k, v) = qkv(r, B, H, Hkv, Nq, Nk, D, dtype)
  o, lse = run_fwd(q, k, v, causal, scale, cfg)
  ref_o, ref_lse = attention_ref(qn, kn, vn, causal, scale)
  assert_close(o, lse, ref_o, ref_lse, dtype, f"(seed {seed})")

# D=64 fp16 causal and not, D=128 full fp16 and causal bf16 by default (bf16 at D=64 in test_backward's grid); the rest with
# FA_UOP_SLOW=1
HEAD_GRID = [(D, c, dt) if (D == 64 and dt == dtypes.half) or (D == 128 and c == (dt == dtypes.bfloat16)) else slow(D, c, dt)
             for D in (32, 64, 96, 128) for c in (False, True) for dt in (dtypes.half, dtypes.bfloat16)]
@pytest.mark.parametrize("D,causal,dtype", HEAD_GRID, ids=lambda x: {True: "causal", False: "full", dtypes.half: "fp16", dtypes.bfloat16: "bf16"}.get(x, str(x)))
@slow_on("gfx1100", keep=lambda p: (p["D"] == 64 and p["dtype"] == dtypes.half) or (p["D"] == 128 and p["causal"]))
@all_targets(keep=lambda p: p["D"] == 64 and p["causal"] and p["dtype"] == dtypes.half)
def test_head_dims(emu, rng, D, causal, dtype): check(rng, 1, 2, 2, 64, 64, D, causal, dtype)

@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("Nq,Nk", [(1, 1), (1, 70), (70, 1), (17, 33), (33, 17), (45, 45), (96, 40)])
@slow_on("gfx1100", keep=lambda p: p["causal"])
@all_targets(keep=lambda p: (p["Nq"], p["Nk"], p["causal"]) == (17, 33, True))
def test_tails(emu, rng, Nq, Nk, causal): check(rng, 1, 1, 1, Nq, Nk, 32, causal, dtypes.half)

@pytest.mark.parametrize("H,Hkv,causal", [(4, 2, False), (4, 1, True), slow(4, 4, True)])
@slow_on("gfx1100")   # GQA on gfx1100 by default: test_api's causal case (CI time)
def test_gqa(emu, rng, H, Hkv, causal): check(rng, 2, H, Hkv, 40, 50, 32, causal, dtypes.half)

@pytest.mark.parametrize("scale", [0.3, -0.5])
def test_scale(emu, rng, scale): check(rng, 1, 1, 1, 33, 40, 32, True, dtypes.half, scale=scale)

# the 8-warp and 128-row configs are slow to emulate: CI covers them through the static LDS-race check of every candidate (test_compile);
# the split one (a candidate past Target.fwd_split) in test_split_over_the_head_dim
@pytest.mark.parametrize("cfg", [slow(c) if c.warps == 8 or c.block_m > 64 else c for c in CANDIDATES if c.split == 1], ids=str)
# (sm_80's 64x128x4, a tuner candidate there, with FA_UOP_SLOW=1: CI time)
@slow_on("gfx1100", "sm_80", keep=lambda p: str(p["cfg"]) == "64x32x4" if p["emu"] == "gfx1100" else str(p["cfg"]) != "64x128x4")
def test_candidate_configs(emu, rng, cfg):
  """every config the tuner may pick, on a shape with several query blocks, a causal diagonal inside them and a tail"""
  if cfg not in candidates(target_for("PYTHON"), 64): pytest.skip(f"{cfg} does not fit this target")
  check(rng, 1, 1, 1, 2 * cfg.block_m + 3, 2 * cfg.block_m + 3, 64, True, dtypes.half, cfg=cfg)

# one warp of 32 rows: two m-tiles, so Q's fragments are read from LDS at each K-step (as at 128x32x4), K-steps two per loop trip
# (D=64), all unrolled (D=32) or one per trip (D=48, an odd count); causal, with tails and Nq != Nk
@pytest.mark.parametrize("D", [32, 48, 64])
@slow_on("gfx1100", keep=lambda p: p["D"] == 64)
@all_targets(keep=lambda p: p["D"] == 64)
def test_two_m_tiles_per_warp(emu, rng, D): check(rng, 1, 2, 1, 70, 45, D, True, dtypes.half, cfg=FwdConfig(32, 32, 1))

@pytest.mark.slow  # its config (64x64x4 on CUDA) runs at D=64 in test_candidate_configs
def test_default_config_d128(emu, rng):
  cfg = default_fwd_config(target_for("PYTHON"), 128)
  check(rng, 1, 1, 1, cfg.block_m + 5, 2 * cfg.block_n + 5, 128, False, dtypes.half, cfg=cfg)

@pytest.mark.parametrize("D", [d if d == 48 else slow(d) for d in HEAD_DIMS if d not in (32, 64, 96, 128)])
@all_targets
def test_other_head_dims(emu, rng, D):
  """every head dim the API accepts runs; the grid above covers the common ones in both dtypes"""
  check(rng, 1, 1, 1, 40, 40, D, True, dtypes.half)

# on sm_80 and gfx942 by default (mma.sync and wave64 MFMA; CI time), gfx1100, gfx950 and gfx1201 with FA_UOP_SLOW=1, where
# test_mods' test_head_dim_256 adds the backward and a mask_mod on every target
@slow_on("gfx1100")
@all_targets(keep=lambda p: p["emu"] == "gfx942")
def test_head_dim_256(emu, rng):
  """Gemma's head dim at the default config (past D=128 smaller tiles: fa_uop.config.fitting), causal, GQA, two query blocks with tails"""
  check(rng, 1, 2, 1, 70, 20, 256, True, dtypes.half, cfg=default_fwd_config(target_for("PYTHON"), 256, True))

# the warps split along the head dim (the output's columns) and the keys (S's columns): the row maxima of each step and the row sums meet
# in LDS, P is shared through LDS; unevenly at D=48 (two groups of 32 columns, the last 16 phantom) and with two m-tiles a warp
@pytest.mark.parametrize("cfg,D,causal", [("32x32x4s2", 64, True), ("32x32x4s2", 48, False), slow("64x32x4s2", 48, True), slow("32x64x8s4", 64, True)], ids=str)
@slow_on("gfx1100")
@all_targets(keep=lambda p: str(p["cfg"]) == "32x32x4s2" and p["causal"])
def test_split_over_the_head_dim(emu, rng, cfg, D, causal): check(rng, 1, 2, 1, 70, 45, D, causal, dtypes.half, cfg=FwdConfig.parse(cfg))
