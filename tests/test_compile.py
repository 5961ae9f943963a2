"""The generated HIP and CUDA source, built by the real compilers: the instructions we meant are there, and no LDS race."""
import math, os, re, shutil, functools
import pytest
from tinygrad import UOp, dtypes
from fa_uop import SM80, RDNA3, RDNA4, CDNA3, CDNA4, flash_fwd, flash_bwd_delta, flash_bwd_dkdv, flash_bwd_dq, default_fwd_config, default_bwd_configs, FwdConfig
from fa_uop.config import candidates
from conftest import slow
from fa_uop.compile import build, linear, render, compile_source, lds_hazards, renderer, amd_clang, resources

AMD = {"gfx1100": RDNA3, "gfx1201": RDNA4, "gfx942": CDNA3, "gfx950": CDNA4}
HAVE = {**{a: amd_clang() for a in AMD}, "sm_90": shutil.which("nvcc")}
TARGETS = {**AMD, "sm_90": SM80}

def fwd_sink(target, D, causal, dtype=dtypes.half, cfg=None, Nq=1000, Nk=1000, H=4, Hkv=2):
  shapes = [((2, H, Nq, D), dtype), ((2, Hkv, Nk, D), dtype), ((2, Hkv, Nk, D), dtype), ((2, H, Nq, D), dtype), ((2, H, Nq), dtypes.float)]
  ps = [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  return flash_fwd(*ps, target=target, cfg=cfg or default_fwd_config(target, D), causal=causal)

@functools.cache
def built(arch, D, causal, dtype=dtypes.half, portable=False):
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch} (.ci/run installs clang-22; nvcc comes with the image)")
  t = TARGETS[arch].portable() if portable else TARGETS[arch]
  sink = fwd_sink(t, D, causal, dtype)
  return build(sink, arch), lds_hazards(linear(sink, arch))

# the MMA and the cross-lane exchange each target's fast path must compile to
EXPECT = {"gfx1100": ("v_wmma_f32_16x16x16_f16", "ds_bpermute_b32"), "gfx1201": ("v_wmma_f32_16x16x16_f16", "ds_bpermute_b32"),
          "gfx942": ("v_mfma_f32_16x16x16_f16", "ds_bpermute_b32"), "gfx950": ("v_mfma_f32_16x16x32_f16", "ds_bpermute_b32"),
          "sm_90": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "shfl.sync.bfly")}
BF16 = {"gfx1100": "v_wmma_f32_16x16x16_bf16", "gfx1201": "v_wmma_f32_16x16x16_bf16", "gfx942": "v_mfma_f32_16x16x16_bf16",
        "gfx950": "v_mfma_f32_16x16x32_bf16", "sm_90": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"}

# gfx1100 at D=64 by default (its D=128 forward with FA_UOP_SLOW=1, CI time), sm_90 at both
@pytest.mark.parametrize("arch,D,causal", [(a, D, c) if (D, c) == (64, False) or (a, D, c) == ("sm_90", 128, True) else slow(a, D, c)
                                           for a in ("gfx1100", "sm_90") for D, c in ((64, False), (128, True), (64, True), (128, False))])
def test_fast_path(arch, D, causal):
  out, hazards = built(arch, D, causal)
  assert all(ins in out for ins in EXPECT[arch]), f"{arch} output lacks one of {EXPECT[arch]}"
  assert hazards == []

@pytest.mark.parametrize("arch", list(TARGETS))
def test_bf16(arch):
  """bf16 builds with the target's MMA; on sm_90 its output leaves in 16-byte stores as fp16's does (tinygrad alone stores bf16 an
  element at a time), fp16 too"""
  out, hazards = built(arch, 64, True, dtypes.bfloat16)
  assert BF16[arch] in out, f"no {BF16[arch]}"
  assert hazards == []
  if arch == "sm_90":
    for o in (out, built(arch, 64, True)[0]): assert "st.global.v4.b32" in o and "st.global.u16" not in o and "st.global.v4.u16" not in o

@pytest.mark.parametrize("arch", ["gfx1100", "sm_90"])
def test_portable_twin_builds_without_shuffles(arch):
  """the twin the emulator runs also builds for the real targets, exchanging lanes through LDS with no race"""
  out, hazards = built(arch, 64, True, portable=True)
  assert "ds_bpermute" not in out and "shfl" not in out and hazards == []

# the twin's default config by default (test_portable_twin_builds_without_shuffles), its every candidate with FA_UOP_SLOW=1: CI time
# (all with FA_UOP_SLOW=1, CI time: the defaults' kernels are checked by the sm_90a build tests, every candidate runs on the GPU in test_jit)
@pytest.mark.parametrize("arch,portable", [slow("sm_90", False), slow("sm_90", True), slow("gfx1100", False)], ids=["sm_90", "sm_90-twin", "gfx1100"])
def test_no_lds_race_in_any_candidate(arch, portable):
  """every config the tuner may pick (at D=64, and the defaults at D=16 and 128, and a split along the head dim at 48, uneven), causal
  so both KV stages are there: no LDS race and no read of LDS nothing wrote"""
  t = TARGETS[arch].portable() if portable else TARGETS[arch]
  for D, cfgs in ((64, candidates(t, 64)), (16, [default_fwd_config(t, 16, True)]), (128, [default_fwd_config(t, 128, False)]),
                  (48, [FwdConfig(32, 32, 4, split=2)])):
    for cfg in cfgs: assert lds_hazards(linear(fwd_sink(t, D, True, cfg=cfg), arch)) == [], f"{cfg} at D={D}"

def test_hazard_check_finds_async_copies_read_too_early():
  """async copies that are never committed, or never waited for, must show as reads before the data lands"""
  import fa_uop.target as T
  from dataclasses import replace
  from tinygrad.uop.ops import Ops
  def no_commit(*args):
    u = T._cuda_copy16(*args)
    return u.replace(arg=u.arg.replace("\\ncp.async.commit_group;", ""))
  no_wait = lambda anchor, *_: UOp(Ops.CUSTOM, dtypes.void, (anchor,), arg="/* no wait */")
  for t in (replace(SM80, copy16=no_commit), replace(SM80, copy_wait=no_wait)):
    assert any("async copy" in h for h in lds_hazards(linear(fwd_sink(t, 64, True), "sm_90")))

def test_hazard_check_finds_a_missing_barrier(monkeypatch):
  """the race the first H100 run showed (next stage's K/V stores before this stage's last reads) must be visible to the check"""
  monkeypatch.setattr(UOp, "barrier", lambda self, *src: self)
  assert lds_hazards(linear(fwd_sink(SM80, 64, True), "sm_90")) != []

def bwd_sinks(target, D, causal, dtype=dtypes.half, Nq=1000, Nk=900, H=4, Hkv=2, cfgs=None):
  """the dK/dV and dQ kernels on a GQA shape with tails (at cfgs, else the default configs; a producer's ring's tensor maps last)"""
  q, do, dq = [((2, H, Nq, D), dtype)] * 3
  kv = ((2, Hkv, Nk, D), dtype)
  rows = ((2, H, Nq), dtypes.float)
  ps = lambda shapes: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  c_kv, c_q = cfgs or default_bwd_configs(target, D)
  maps = lambda c: [((32,), dtypes.uint64)] * c.tma
  return (flash_bwd_dkdv(*ps([q, kv, kv, do, rows, rows, kv, kv, *maps(c_kv)]), target=target, cfg=c_kv, causal=causal),
          flash_bwd_dq(*ps([q, kv, kv, do, rows, rows, dq, *maps(c_q)]), target=target, cfg=c_q, causal=causal))

# gfx1100's backward kernels build by default with the mods (test_masked_kernels); these plain ones with FA_UOP_SLOW=1
@pytest.mark.parametrize("arch,dtype", [slow("gfx1100", dtypes.half), slow("gfx1100", dtypes.bfloat16), ("sm_90", dtypes.half), ("sm_90", dtypes.bfloat16)],
                         ids=["gfx1100-fp16", "gfx1100-bf16", "sm_90-fp16", "sm_90-bf16"])
def test_backward_kernels(arch, dtype):
  """both backward kernels build with the real compilers, use the target's MMA (and on sm_90 ldmatrix and cp.async), no LDS race"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  mma = {"gfx1100": f"v_wmma_f32_16x16x16_{'f16' if dtype == dtypes.half else 'bf16'}",
         "sm_90": f"mma.sync.aligned.m16n8k16.row.col.f32.{'f16.f16' if dtype == dtypes.half else 'bf16.bf16'}.f32"}[arch]
  # fp16 at D=128 non-causal: the dK/dV kernel LLVM 15 crashed on when its K-steps were a loop (clang-22 builds it)
  for name, sink in zip(("dK/dV", "dQ"), bwd_sinks(TARGETS[arch], 128 if dtype == dtypes.half else 64, dtype != dtypes.half, dtype)):
    out = build(sink, arch)
    assert mma in out, f"{name}: no {mma}"
    if arch == "sm_90": assert "ldmatrix" in out and "cp.async" in out and "st.global.v4.b32" in out and "st.global.u16" not in out, f"{name}: fast paths missing"
    assert lds_hazards(linear(sink, arch)) == [], name

@pytest.mark.parametrize("arch,N", [("sm_90", 128), slow("gfx1100", 128), slow("sm_90", 320)])
def test_one_loop_per_range(arch, N):
  """every loop is opened once and closed once. tinygrad's valid simplification may rewrite a loop bound that depends on the
  block index into a second RANGE of the same id; at Nq = Nk = 128 the causal dK/dV kernel once rendered with an unclosed
  brace (nvrtc: expected a "}")"""
  from collections import Counter
  from tinygrad.uop.ops import Ops
  t = TARGETS[arch]
  sinks = (*bwd_sinks(t, 64, True, Nq=N, Nk=N, H=2, Hkv=2), fwd_sink(t, 64, True, Nq=N, Nk=N, H=2, Hkv=2))
  for name, sink in zip(("dK/dV", "dQ", "forward"), sinks):
    lin = linear(sink, arch)
    ids = Counter(u.arg for u in lin if u.op is Ops.RANGE)
    assert all(n == 1 for n in ids.values()), f"{name}: {ids}"
    assert sum(u.op is Ops.RANGE for u in lin) == sum(u.op is Ops.END for u in lin), name

def decode_sinks(target, D, causal, splits, page=None, dtype=dtypes.half, B=2, H=8, Hkv=2, Nq=1, Nmax=1024):
  """the decoding kernel (a dense cache, or paged with 16-key pages) and, split, the combine"""
  from fa_uop import flash_decode, flash_combine
  from fa_uop.config import default_decode_config
  kv = ((B * Nmax // page + 3, Hkv, page, D) if page else (B, Hkv, Nmax, D), dtype)
  outs = [((B, H, Nq, splits, D), dtypes.float), ((B, H, Nq, splits), dtypes.float)] if splits > 1 else [((B, H, Nq, D), dtype), ((B, H, Nq), dtypes.float)]
  shapes = [((B, H, Nq, D), dtype), kv, kv, ((B,), dtypes.int32), *([((B, Nmax // page), dtypes.int32)] if page else []), *outs]
  ps = [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  table = ps.pop(4) if page else None
  sinks = [flash_decode(*ps[:4], table, *ps[4:], target=target, cfg=default_decode_config(target, D, H // Hkv * Nq), causal=causal)]
  if splits > 1:
    sinks.append(flash_combine(*[UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(outs + [((B, H, Nq, D), dtype), ((B, H, Nq), dtypes.float)])]))
  return sinks

DECODE = {"d128-causal-split8-paged": (128, True, 8, 16), "d64-dense": (64, False, 1, None), "d128-paged": (128, False, 1, 16),
          "d32-causal-split4": (32, True, 4, None)}

@pytest.mark.parametrize("arch,case", [(a, c) if c == "d64-dense" or (a == "sm_90" and c.startswith("d128-causal")) else slow(a, c)
                                       for a in ("gfx1100", "sm_90") for c in DECODE])
def test_decode_kernels(arch, case):
  """the decoding kernel (GQA rows packed, 4 query heads per KV head) and the combine build with the real compilers: the target's
  MMA, cross-lane exchange and (sm_90) async copies and ldmatrix, no LDS race"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  D, causal, splits, page = DECODE[case]
  sinks = decode_sinks(TARGETS[arch], D, causal, splits, page)
  out = build(sinks[0], arch)
  assert all(ins in out for ins in EXPECT[arch]), f"{arch} decode lacks one of {EXPECT[arch]}"
  if arch == "sm_90": assert "ldmatrix" in out and "cp.async" in out
  assert lds_hazards(linear(sinks[0], arch)) == []
  for sink in sinks[1:]: build(sink, arch)

@pytest.mark.parametrize("arch", list(TARGETS))
def test_delta_kernel_builds(arch):
  """the backward's delta kernel builds on every target with its loads of O and dO vectorized, keeps its products in registers (no
  scratch) and has no LDS race"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  ps = [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate((((2, 3, 1000, 128), dtypes.half),) * 2 + (((2, 3, 1000), dtypes.float),) * 2)]
  sink = flash_bwd_delta(*ps, target=TARGETS[arch])
  out = build(sink, arch)
  assert ("ld.global.v4.u16" in out and ".local" not in out) if arch == "sm_90" else (re.search("global_load_(b128|dwordx4)", out) and not resources(out)["scratch"])
  assert lds_hazards(linear(sink, arch)) == []

MODS = {"window": (100, None), "softcap": 30.0, "score_mod": lambda s, b, h, qi, kj, sl, d: s + sl[h] * (kj - qi).cast(dtypes.float),
        "mask_mod": lambda b, h, qi, kj, sl, d: d[b, qi].eq(d[b, kj])}

def masked_mods(only=tuple(MODS)):
  """causal and the MODS named in only, reading two mod_args (ALiBi's slopes, the document ids)"""
  from fa_uop.mods import Mods
  return Mods(causal=True, **{k: v for k, v in MODS.items() if k in only}, n_args=2)

def masked_configs(target, D, only=tuple(MODS)) -> tuple:
  """the forward's, dK/dV's and dQ's default configs under masked_mods(only), as the entry points take them"""
  tag = masked_mods(only).tag
  return default_fwd_config(target, D, True, mods=tag), *default_bwd_configs(target, D, tag)

def masked_sinks(target, D=64, N=320, H=4, Hkv=2, only=tuple(MODS), fwd_cfg=None):
  """the forward and both backward kernels with a causal window, softcap, an ALiBi score_mod reading a slopes buffer and a
  document mask_mod reading document ids, through its block maps (or causal with those of them named in only), the forward at fwd_cfg
  where given (a tuner candidate); then the kernels that build a block map"""
  from fa_uop.blockmap import classify, compact, head_sort, schedule
  mods = masked_mods(only)
  q, kv, rows = ((2, H, N, D), dtypes.half), ((2, Hkv, N, D), dtypes.half), ((2, H, N), dtypes.float)
  args = [((H,), dtypes.float), ((2, N), dtypes.int32)]
  bm = lambda TR, TC, hx=H: [((2, 1, math.ceil(N / TR), 2), dtypes.int32), ((2, 1, math.ceil(N / TR), math.ceil(N / TC)), dtypes.int32),
                             ((2 * hx * math.ceil(N / TR),), dtypes.int32)]
  bmap = lambda *a: bm(*a) if mods.masks_more else []   # the attention kernels' block maps, where their mods need one
  ps = lambda shapes: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  c_fwd, c_kv, c_q = masked_configs(target, D, only)
  c_fwd = fwd_cfg or c_fwd
  status = ((2, 1, math.ceil(N / 64), math.ceil(N / 64)), dtypes.int32)
  return (flash_fwd(*ps([q, kv, kv, q, rows, *args, *bmap(c_fwd.block_m, c_fwd.block_n)]), target=target, cfg=c_fwd, mods=mods),
          flash_bwd_dkdv(*ps([q, kv, kv, q, rows, rows, kv, kv, *args, *bmap(c_kv.block_m, c_kv.block_n, Hkv)]), target=target, cfg=c_kv, mods=mods),
          flash_bwd_dq(*ps([q, kv, kv, q, rows, rows, q, *args, *bmap(c_q.block_m, c_q.block_n)]), target=target, cfg=c_q, mods=mods),
          classify(*ps([status, *args]), mods=mods, nq=N, nk=N, TR=64, TC=64, keys=True),
          compact(*ps(bm(64, 64)[:2] + [status])),
          head_sort(*ps([(n:=(2 * H * math.ceil(N / 64),), dtypes.int64), (n, dtypes.int64), (n, dtypes.int32), ((2 * H,), dtypes.int64), bm(64, 64)[0]]),
                    HX=H, G=1, nC=math.ceil(N / 64)),
          schedule(*ps([(n, dtypes.int32), (n, dtypes.int64), (n, dtypes.int64), (n, dtypes.int32), ((2 * H,), dtypes.int64)]), slots=264))

# gfx1100's with FA_UOP_SLOW=1 (CI time): the mods sit above the targets, sm_90's build runs by default, and gfx1100's plain kernels
# build with no LDS race in test_fast_path while its masked ones run on the emulator in test_mods
@pytest.mark.parametrize("arch", [slow("gfx1100"), "sm_90"])
def test_masked_kernels(arch):
  """a windowed, softcapped, ALiBi- and document-masked forward and backward (with block maps) and the block map kernels build with the real compilers and the target's MMA, with no LDS
  race, and every loop opened and closed once (the window's block-dependent tile ranges meet tinygrad's valid simplification)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  from collections import Counter
  from tinygrad.uop.ops import Ops
  for name, sink in zip(("forward", "dK/dV", "dQ", "block map classify", "block map compact", "block map head_sort", "block map schedule"),
                        masked_sinks(TARGETS[arch])):
    out = build(sink, arch)
    assert name.startswith("block map") or EXPECT[arch][0] in out, f"{name}: no {EXPECT[arch][0]}"
    lin = linear(sink, arch)
    assert lds_hazards(lin) == [], name
    ids = Counter(u.arg for u in lin if u.op is Ops.RANGE)
    assert all(n == 1 for n in ids.values()) and sum(u.op is Ops.RANGE for u in lin) == sum(u.op is Ops.END for u in lin), name

@pytest.mark.parametrize("arch", [slow("gfx1100"), "sm_90"])
def test_dropin_mask_kernels(arch):
  """the SDPA drop-in's mods build with the real compilers: a boolean (B, 1, 1, S) key-padding mask read as bools (the forward
  and its block map's classify kernel) and an additive (1, H, L, 1) float bias as a score_mod"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  from fa_uop.sdpa import _mask_mods
  from fa_uop.mods import Mods
  from fa_uop.blockmap import classify
  N, D, H, target = 200, 64, 4, TARGETS[arch]
  cfg = default_fwd_config(target, D)
  q, kv, rows = ((2, H, N, D), dtypes.half), ((2, H, N, D), dtypes.half), ((2, H, N), dtypes.float)
  ps = lambda shapes: [UOp.placeholder(s, dt, i) for i, (s, dt) in enumerate(shapes)]
  keep, bias = Mods(mask_mod=_mask_mods(True, (True, False, False, True))[0], n_args=1), Mods(score_mod=_mask_mods(False, (False, True, True, False))[1], n_args=1)
  nR, nC = math.ceil(N / cfg.block_m), math.ceil(N / cfg.block_n)
  sinks = (flash_fwd(*ps([q, kv, kv, q, rows, ((2, 1, 1, N), dtypes.bool), ((2, 1, nR, 2), dtypes.int32), ((2, 1, nR, nC), dtypes.int32),
                               ((2 * H * nR,), dtypes.int32)]), target=target, cfg=cfg, mods=keep),
           classify(*ps([((2, 1, nR, nC), dtypes.int32), ((2, 1, 1, N), dtypes.bool)]), mods=keep, nq=N, nk=N, TR=cfg.block_m, TC=cfg.block_n, keys=True),
           flash_fwd(*ps([q, kv, kv, q, rows, ((1, H, N, 1), dtypes.float)]), target=target, cfg=cfg, mods=bias))
  for sink in sinks:
    out = build(sink, arch)
    assert sink is sinks[1] or EXPECT[arch][0] in out
    assert lds_hazards(linear(sink, arch)) == []

# the resource rows clang-22 gives each kernel at D=128 (docs/performance.md's AMD table): (VGPRs, AGPRs, LDS bytes), with no scratch
# anywhere (issue 32). Asserted as bounds, the LDS exactly: a kernel that takes more registers (fewer waves a SIMD) or any scratch fails;
# one that takes fewer lowers its row (FA_UOP_ROWS=1 prints them). B=2 H=4 Hkv=2 N=1000 causal (the query tail's guards are what spilled RDNA3's dK/dV), decoding
# 8 query heads a KV head of 1024 keys, split 8 ways and paged
ROWS: dict[str, dict[str, tuple[int, int, int]]] = {
  "gfx1100": {"forward D=128": (188, 0, 39936), "dK/dV": (149, 0, 62464), "dQ": (178, 0, 57344), "decode": (161, 0, 18944), "combine": (22, 0, 0)},
  "gfx1201": {"forward D=128": (247, 0, 34816), "dK/dV": (240, 0, 62464), "dQ": (178, 0, 57344), "decode": (232, 0, 13056), "combine": (12, 0, 0)},
  "gfx942": {"forward D=128": (252, 0, 32768), "dK/dV": (300, 44, 57344), "dQ": (248, 0, 53248), "decode": (271, 15, 36864), "combine": (25, 0, 0)},
  "gfx950": {"forward D=128": (164, 0, 34816), "dK/dV": (242, 0, 62464), "dQ": (180, 0, 57344), "decode": (213, 0, 39168), "combine": (25, 0, 0),
             "forward D=48": (78, 0, 14336)}}

# the masked kernels (D=64, and 112, whose keys a step shrink on RDNA under them: Target.fwd_keys) that still use scratch (issue 32; none
# since softcap's derivative in closed form, RDNA3's dK/dV had spilled 111 VGPRs at D=64). Asserted exactly
MASKED_SPILLS: dict[str, tuple[str, ...]] = {}

# the masked kernels with FA_UOP_SLOW=1 (CI time: the rewrite of each takes seconds)
@pytest.mark.parametrize("arch,masked", [(a, m) if not m else slow(a, m) for a in AMD for m in (False, True)])
def test_amd_kernels(arch, masked):
  """every kernel on the four AMD targets builds with clang-22 and runs on the target's MMA with no LDS race: the forward (D=128
  and, on gfx950, D=48 on its narrow 16x16x16 MFMA), both backward kernels, the decoding kernel, split and paged, and its combine,
  each within its resource row (ROWS) and without scratch; or the masked kernels with block maps (D=64 and 112), without scratch but where
  MASKED_SPILLS says"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = TARGETS[arch]
  sinks = {f"masked {k}{' D=112' * (D == 112)}": x for D in (64, 112) for k, x in zip(("forward", "dK/dV", "dQ"), masked_sinks(t, D)[:3])} if masked else \
    {"forward D=128": fwd_sink(t, 128, True), **dict(zip(("dK/dV", "dQ"), bwd_sinks(t, 128, True))), **dict(zip(("decode", "combine"), decode_sinks(t, 128, True, 8, 16)))}
  if arch == "gfx950" and not masked: sinks["forward D=48"] = fwd_sink(t.narrowed(48), 48, False)
  used = {}
  for name, sink in sinks.items():
    out = build(sink, arch)
    mma = "v_mfma_f32_16x16x16_f16" if arch == "gfx950" and name.endswith(("D=48", "D=112")) else EXPECT[arch][0]   # its narrow MFMA there
    assert name == "combine" or mma in out, f"{name}: no {mma}"
    assert lds_hazards(linear(sink, arch)) == [], name
    used[name] = r = resources(out)
    assert (r["scratch"] == 0 and r["vgpr_spill"] == 0) != (name in MASKED_SPILLS.get(arch, ())), (name, r)
  if os.environ.get("FA_UOP_ROWS"): print(arch, {n: (r["vgpr"], r["agpr"], r["lds"]) for n, r in used.items()})
  for name, r in used.items() if not masked else ():
    vgpr, agpr, lds = ROWS[arch][name]
    assert r["vgpr"] <= vgpr and r["agpr"] <= agpr and r["lds"] == lds, (name, r, ROWS[arch][name])
  # MI300X's forward at D=128 in two 4-wave blocks a CU: half its 64 KB of LDS and, a wave64 lane, at most half its 512 VGPRs
  if arch == "gfx942" and not masked: assert used["forward D=128"]["lds"] <= 32768 and used["forward D=128"]["vgpr"] <= 256, used

@pytest.mark.parametrize("arch", ["gfx942", "gfx1201", slow("gfx950"), slow("gfx1100")])
def test_amd_d256_without_scratch(arch):
  """head dim 256 at the default tiles (64 KB targets: dK/dV split along the head dim, 16x32x2s2): the forward, both backward kernels
  and the decoding kernel build without scratch (RDNA4's causal dQ as rendered spills 3 VGPRs: AmdFit builds it in another form)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = TARGETS[arch]
  sinks = {"forward": fwd_sink(t, 256, True), **dict(zip(("dK/dV", "dQ"), bwd_sinks(t, 256, True))), "decode": decode_sinks(t, 256, True, 8, 16)[0]}
  used = {name: resources(build(sink, arch)) for name, sink in sinks.items()}
  assert all(r["scratch"] == 0 and r["vgpr_spill"] == 0 for r in used.values()), used

def fitted_sink(t, D, kernel):
  """a kernel of amd_resources' --every survey by its name there: dq, dkdv (causal or not), masked fwd"""
  if kernel == "masked fwd": return masked_sinks(t, D)[0]
  return bwd_sinks(t, D, kernel.endswith("causal"))[kernel.startswith("dq")]

# the kernels of the survey that clang-22 builds with scratch as rendered, each 2-6 VGPRs held from the prologue for the epilogue
# (docs/journal.md 2026-11-28, twenty-ninth session). One by default: each builds two to four times
FITTED = [("gfx1100", 112, "dq"), slow("gfx1100", 128, "dq"), slow("gfx1100", 240, "dkdv"), slow("gfx1100", 240, "masked fwd"),
          slow("gfx1201", 256, "dq causal")]

@pytest.mark.parametrize("arch,D,kernel", FITTED)
def test_amd_fit(arch, D, kernel):
  """as rendered the kernel uses scratch; fitted (AmdFit) it builds without, another form, with the same MMAs and LDS"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  sink = fitted_sink(AMD[arch], D, kernel)
  plain, fitted = compile_source(render(sink, arch), arch), build(sink, arch)
  assert resources(plain)["scratch"] > 0 and resources(fitted)["scratch"] == 0 and resources(fitted)["vgpr_spill"] == 0
  assert render(sink, arch, fit=True) != render(sink, arch) and resources(fitted)["lds"] == resources(plain)["lds"]
  assert len(re.findall(r"v_wmma", fitted)) == len(re.findall(r"v_wmma", plain)) > 0

def assemble(asm:str, arch:str) -> bytes:
  """an AMD code object (ELF) clang-22 assembles from a kernel's assembly"""
  import subprocess, tempfile
  with tempfile.TemporaryDirectory() as d:
    with open(f"{d}/k.s", "w") as f: f.write(asm)
    subprocess.run([amd_clang(), "--target=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-c", "-o", f"{d}/k.o", f"{d}/k.s"], check=True, capture_output=True)
    with open(f"{d}/k.o", "rb") as f: return f.read()

def test_amd_forms_build():
  """every form AmdFit may render a kernel in builds, with the same MMAs and LDS, and its code object's scratch (amd_scratch, by which the
  device's renderer measures) is what the assembly says: the dQ of gfx1100 at 112 (as rendered 20 bytes, uniform none) and a dK/dV"""
  from fa_uop.target import AMD_FORMS, amd_scratch
  if not HAVE["gfx1100"]: pytest.skip("no compiler for gfx1100")
  for sink in (fitted_sink(RDNA3, 112, "dq"), bwd_sinks(RDNA3, 64, True)[0]):
    r, lst, built = renderer("gfx1100"), linear(sink, "gfx1100"), []
    for form in AMD_FORMS:
      asm = compile_source(src:=r.render_as(lst, form), "gfx1100")
      assert amd_scratch(assemble(asm, "gfx1100")) == resources(asm)["scratch"], form
      built.append((len(re.findall(r"v_wmma", asm)), resources(asm)["lds"], src))
    assert len({b[:2] for b in built}) == 1 and len({b[2] for b in built}) == len(AMD_FORMS), [b[:2] for b in built]
  assert "__builtin_amdgcn_readfirstlane" in built[1][2] and "__builtin_amdgcn_sched_barrier(0)" in built[2][2]

def test_amd_device_renderer_fits(monkeypatch):
  """a real AMD device's renderer (amd_renderer) fits a kernel with the device's compiler: here one that builds with clang-22 into a
  code object, as comgr would, and the form it keeps is the one fa_uop.compile's checks keep"""
  from tinygrad.helpers import Target as TgTarget
  from tinygrad.renderer.cstyle import HIPCCRenderer
  from fa_uop import target as tgt
  if not HAVE["gfx1100"]: pytest.skip("no compiler for gfx1100")
  dev = type("Dev", (), {"renderer": HIPCCRenderer(TgTarget("AMD", arch="gfx1100"))})()
  monkeypatch.setattr(tgt, "Device", {"AMD": dev})
  tgt.amd_renderer("AMD")
  built = []
  dev.renderer.compiler = type("Comgr", (), {"compile_cached": lambda self, src: built.append(src) or assemble(compile_source(src, "gfx1100"), "gfx1100")})()
  sink = fitted_sink(RDNA3, 112, "dq")
  assert dev.renderer.render(linear(sink, "gfx1100")) == render(sink, "gfx1100", fit=True) != render(sink, "gfx1100") and len(built) >= 2
  assert type(dev.renderer)(dev.renderer.target).fit   # as tinygrad's compile workers rebuild it

@pytest.mark.parametrize("arch,D", [("gfx1201", 176), slow("gfx1100", 176), slow("gfx1100", 224), slow("gfx1201", 224), slow("gfx1201", 240),
                                    slow("gfx942", 176)])
def test_amd_wide_backward_without_scratch(arch, D):
  """past D=128 both backward kernels split along the head dim (dK/dV 32x32x4s2 where RDNA's LDS holds it, to 224, then 16x32x2s2;
  dQ 16x32x2s2), at 176 (11 pieces of 16 columns) and 240 unevenly, the second group's last 16 columns phantom (BwdConfig.cols): causal
  and not, without scratch (RDNA at e001de9, dK/dV unsplit and dQ 32x16x2: gfx1100's dK/dV at 176 153-247 VGPRs spilled, its dQ at 224
  4-16; at 38b6979 gfx1201's causal dK/dV at 240 6; issue 32)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = TARGETS[arch]
  assert [str(c) for c in default_bwd_configs(t, D)] == ["32x32x4s2" if D <= 224 else "16x32x2s2", "16x32x2s2"] or arch == "gfx942"
  used = {f"{name}{' causal' * c}": resources(build(sink, arch)) for c in (False, True) for name, sink in zip(("dK/dV", "dQ"), bwd_sinks(t, D, c))}
  assert all(r["scratch"] == 0 and r["vgpr_spill"] == 0 for r in used.values()), used

@pytest.mark.parametrize("arch,D", [("gfx1201", 224), slow("gfx1100", 208), slow("gfx1100", 256), slow("gfx1201", 256)])
def test_rdna_wide_forward_without_scratch(arch, D):
  """past Target.fwd_split (176) RDNA's forward splits its warps along the head dim (32x32x4s2: a warp's output 16 x D/2 columns, the
  row maxima and P through LDS): causal fp16, bf16 and with a window, softcap, ALiBi and a document mask, without scratch and without
  an LDS race (at 64x16x4, gfx1100's bf16 forward at 208-256 spilled 50-133 VGPRs, its masked one 57-96; issue 32)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = TARGETS[arch]
  assert str(default_fwd_config(t, D, True)) == "32x32x4s2"
  sinks = {"fp16": fwd_sink(t, D, True), "bf16": fwd_sink(t, D, True, dtypes.bfloat16), "masked": masked_sinks(t, D)[0]}
  used = {name: resources(build(sink, arch)) for name, sink in sinks.items()}
  assert all(r["scratch"] == 0 and r["vgpr_spill"] == 0 for r in used.values()), used
  assert lds_hazards(linear(sinks["fp16"], arch)) == []

def fp8_fwd_sink(target, D, cfg=None):
  """the forward on 8-bit inputs in the target's fp8 format at its default config or cfg (causal, GQA, a bf16 output, the descales last)"""
  dt = target.fp8.in_dtypes[0]
  sh = [((2, 4, 1000, D), dt), ((2, 2, 1000, D), dt), ((2, 2, 1000, D), dt), ((2, 4, 1000, D), dtypes.bfloat16), ((2, 4, 1000), dtypes.float)]
  ps = [UOp.placeholder(s, d, i) for i, (s, d) in enumerate(sh + [((2, 2), dtypes.float)] * 3)]
  return flash_fwd(*ps, target=target, cfg=cfg or default_fwd_config(target.fp8, D, True), causal=True)

def fp8_decode_sink(target, D):
  """the decoding of 4 rows a KV head from a paged 8-bit cache (16-key pages), not split, at its default tile: a bf16 output, the
  descales after the table"""
  from fa_uop import flash_decode
  from fa_uop.config import default_decode_config
  dt = target.fp8.in_dtypes[0]
  sh = [((2, 8, 1, D), dt), ((67, 2, 16, D), dt), ((67, 2, 16, D), dt), ((2,), dtypes.int32), ((2, 64), dtypes.int32), ((2, 8, 1, D), dtypes.bfloat16),
        ((2, 8, 1), dtypes.float)]
  p = [UOp.placeholder(s, d, i) for i, (s, d) in enumerate(sh + [((2, 2), dtypes.float)] * 3)]
  return flash_decode(*p[:5], *p[5:], target=target, cfg=default_decode_config(target.fp8, D, 4), causal=True)

def rule_sink(t, D, kernel):
  """one kernel at the defaults the entry points take: the masked ones (masked_sinks), dK/dV, the paged decoding of 64 rows a KV head,
  and the 8-bit forward and paged decoding"""
  if kernel.startswith("masked"): return masked_sinks(t, D)[("masked fwd", "masked dkdv", "masked dq").index(kernel)]
  if kernel == "dkdv": return bwd_sinks(t, D, False)[0]
  if kernel == "decode paged": return decode_sinks(t, D, False, 1, 16, H=32, Hkv=2, Nq=4)[0]
  return fp8_fwd_sink(t, D) if kernel == "fp8 fwd" else fp8_decode_sink(t, D)

# kernels that used scratch until a rule of the configs or stages changed (docs/journal.md 2026-11-28, twenty-eighth session): RDNA's
# backward under a window or mask_mod in one stage (Target.bwd_one_stage), RDNA3's keys under modifications past 64 (Target.fwd_warp),
# dK/dV split unevenly where no even split is held, RDNA's forward under modifications split past 128 (Target.splits), the decoding split
# there too, RDNA4's fp8 forward at 16 keys past 96, CDNA's fp8 decoding at 32 keys past 8192 elements. One by default (CI time)
@pytest.mark.parametrize("arch,D,kernel", [("gfx1201", 32, "masked dq"), slow("gfx1100", 80, "masked fwd"), slow("gfx1201", 80, "dkdv"),
                                           slow("gfx1100", 160, "masked fwd"), slow("gfx1100", 256, "decode paged"), slow("gfx1201", 112, "fp8 fwd"),
                                           slow("gfx942", 256, "fp8 decode"), slow("gfx950", 192, "fp8 decode")])
def test_amd_rules_without_scratch(arch, D, kernel):
  """each of those kernels builds with clang-22 without scratch (issue 32)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  r = resources(build(rule_sink(AMD[arch], D, kernel), arch))
  assert r["scratch"] == 0 and r["vgpr_spill"] == 0, r

def test_rdna3_forward_without_scratch():
  """gfx1100's forward keeps everything in VGPRs at D=64 and 96 too (D=128: ROWS), its LDS tiles padded, not swizzled (Target.lds_pad)"""
  if not HAVE["gfx1100"]: pytest.skip("no compiler for gfx1100")
  used = {D: resources(build(fwd_sink(RDNA3, D, True), "gfx1100")) for D in (64, 96)}
  assert all(r["scratch"] == 0 and r["vgpr_spill"] == 0 for r in used.values()), used

@pytest.mark.parametrize("arch", ["gfx1201", slow("gfx1100"), slow("gfx942"), slow("gfx950")])
def test_amd_tuner_candidates_without_scratch(arch):
  """every forward config the tuner may time on an AMD target at D=128 builds without scratch (RDNA's candidates are those of one
  m-tile a warp and up to 32 keys: Target.fwd_warp; docs/runs/2026-11-27_amd32/)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = TARGETS[arch]
  used = {str(c): resources(build(fwd_sink(t, 128, True, cfg=c), arch)) for c in candidates(t, 128)}
  assert len(used) >= 3 and all(r["scratch"] == 0 for r in used.values()), used   # RDNA: 3 at D=128 (64x16x4, 64x32x4, 128x32x8)

@pytest.mark.parametrize("arch,D,kind", [slow("gfx950", 112, "masked"), slow("gfx950", 192, "masked"), slow("gfx942", 256, "fp8")])
def test_cdna_block_candidates_without_scratch(arch, D, kind):
  """the configs the tuner times on CDNA under a window, softcap, ALiBi and a document mask, and gfx942's 8-bit ones, build without
  scratch: a block of 8 warps (two waves a SIMD) holds at most 64 keys a step there, 32 in gfx942's 8-bit forward (Target.fwd_block_keys:
  128x128x8 spilled 2 and 6 VGPRs on gfx950 at D=112 and 192, 8-bit 128x64x8 on gfx942 at 256 9)"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  t = AMD[arch]
  cs = candidates(t, D, masked_mods().tag) if kind == "masked" else candidates(t.fp8, D)
  assert ("128x128x8" if kind == "masked" else "128x64x8") not in map(str, cs) and len(cs) >= 3
  sink = lambda c: masked_sinks(t, D, fwd_cfg=c)[0] if kind == "masked" else fp8_fwd_sink(t, D, cfg=c)
  used = {str(c): resources(build(sink(c), arch)) for c in cs}
  assert all(r["scratch"] == 0 for r in used.values()), used

def test_device_library_calls_are_inlined():
  """the checks build AMD kernels as tinygrad's runtime does, with ROCm's device library functions inlined: no call is left (a call
  made LLVM spill every live VGPR around it, which the runtime's build never does)"""
  if not HAVE["gfx942"]: pytest.skip("no compiler for gfx942")
  out = build(fwd_sink(CDNA3, 64, True), "gfx942")
  assert "s_swappc" not in out and "v_exp_f32" in out

@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc")
def test_cuda_kernels_are_built_by_nvrtc_too():
  """the CUDA compile checks build every kernel with NVRTC too, tinygrad's compiler on the GPU, which refuses C that nvcc takes: a
  kernel whose inline code used a GNU statement expression built here and failed on the H100 (docs/journal.md 2026-11-27). NVRTC is
  there (the test extras install PyPI's nvidia-cuda-nvrtc), builds the forward, and refuses that expression where nvcc builds it"""
  from tinygrad.device import CompileError
  from fa_uop.compile import nvrtc
  src = render(fwd_sink(SM80, 64, True), "sm_80")
  assert nvrtc(src, "sm_80"), "no libnvrtc loads: pip install nvidia-cuda-nvrtc (the test extras), or set NVRTC_PATH"
  bad = src.replace('extern "C"', '__device__ unsigned fa_gnu(unsigned x) { return ({ unsigned r = x + 1; r; }); }\nextern "C"', 1)
  assert bad != src and compile_source(src, "sm_80")
  with pytest.raises(CompileError, match="expected an expression"): compile_source(bad, "sm_80")
  with pytest.raises(CompileError): nvrtc(bad, "sm_80")

@pytest.mark.parametrize("arch", ["gfx942", slow("gfx1100"), slow("gfx1201"), slow("gfx950"), "sm_90"])
def test_dq_accumulation_builds(arch):
  """the dK/dV kernel with the dQ accumulation (32x32x2q at D=64, GQA, tails) builds with the real compilers: its adds are the target's
  float32 atomics (AMD's global_atomic_add_f32, sm_80's atom.global.add.f32; Hopper's bulk reduce-adds: test_hopper), no scratch, no LDS race"""
  if not HAVE[arch]: pytest.skip(f"no compiler for {arch}")
  from test_hopper import dq_acc_sink
  sink = dq_acc_sink("32x32x2q", 64, target=TARGETS[arch])
  out = build(sink, arch)
  assert ("global_atomic_add_f32" if arch in AMD else "atom.global.add.f32") in out
  if arch in AMD: assert resources(out)["scratch"] == 0
  assert lds_hazards(linear(sink, arch)) == []

def custom_writes(sink:UOp) -> set[int]:
  """the global buffers (their slots) the kernel's inline code writes: 16-byte stores from LDS, atomic and bulk adds"""
  from tinygrad.uop.ops import Ops
  return {x.src[0].buf_uop.arg.slot for u in sink.toposort() if u.op is Ops.CUSTOM and any(w in u.arg for w in ("st.global", "atomic", "cp.reduce"))
          for x in u.src if x.op is Ops.INDEX and x.src[0].buf_uop.op is Ops.PARAM}

@pytest.mark.parametrize("arch", ["sm_90", "sm_90a", "gfx942"])
def test_inline_writes_are_declared(arch):
  """every global buffer a kernel writes by inline code (CUSTOM: tinygrad cannot see into it) is among the buffers tinygrad counts it
  as writing (ProgramInfo.outs, from STOREs), which TinyJit's CUDA graph orders the kernels by: a kernel reading the buffer after would
  otherwise run beside the writer (the dQ accumulation's dQ read as zeros on the H200; the forward's O, dK/dV and dQ by 16-byte stores)"""
  from tinygrad.uop.ops import ProgramInfo
  from tinygrad.codegen import full_rewrite_to_sink
  from fa_uop import SM90A
  from fa_uop.api import FwdConfig
  from test_hopper import dq_acc_sink
  t = SM90A if arch == "sm_90a" else TARGETS[arch]
  sinks = {"forward": fwd_sink(t, 128, True), **dict(zip(("dK/dV", "dQ"), bwd_sinks(t, 64, True))),
           "dK/dV+dQ": dq_acc_sink("64x64x4q" if arch.startswith("sm") else "32x32x2q", 64, target=t),
           **dict(zip(("decode", "combine"), decode_sinks(t, 128, True, 8, 16)))}
  for name, sink in sinks.items():
    written = custom_writes(sink)
    # decoding stores as tinygrad does; AMD has no inline stores, only the accumulation's atomics
    assert written or name in ("decode", "combine") or (arch.startswith("gfx") and name != "dK/dV+dQ"), f"{name}: no inline writes"
    outs = ProgramInfo.from_sink(full_rewrite_to_sink(sink, renderer(arch))).outs
    assert written <= set(outs), (name, written, outs)
