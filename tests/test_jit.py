"""Every kernel fa_uop launches, as tinygrad users run a step: captured by TinyJit, then replayed on new data, equal to the same call
run eagerly (and to float64). On the emulator (sm_80, small shapes) and, marked gpu, on a real GPU (DEV=CUDA or AMD) with every
forward config the tuner may pick there: tinygrad's CUDA graph launches each kernel with every buffer of its call."""
import numpy as np, pytest
from tinygrad import Tensor, TinyJit, Device, Context, dtypes
from fa_uop import flash_attention, flash_attention_with_kvcache, write_kvcache, FwdConfig, target_for
from fa_uop.config import candidates
from fa_uop.reference import attention_ref
from fa_uop.sdpa import patch
from conftest import TOL, assert_close, unread_buffers, host, device_tensor

def _gpu() -> str:
  if Device.DEFAULT.split(":")[0] not in ("CUDA", "NV", "AMD"): pytest.skip("needs a GPU (DEV=CUDA or DEV=AMD)")
  return Device.DEFAULT

@pytest.fixture(params=["emu", pytest.param("gpu", marks=pytest.mark.gpu)])
def dev(request):
  """(device, scale): the emulator of sm_80 at small shapes, or the GPU at larger ones"""
  if request.param == "gpu": yield _gpu(), 8
  else:
    with Context(DEV="PYTHON::sm_80"): yield "PYTHON", 1

def rand(r, shape, device, dtype=dtypes.half) -> Tensor: return device_tensor(r.standard_normal(shape), dtype, device)


def replays_match(step, make, n:int=3) -> list[list[np.ndarray]]:
  """step jitted and run n times (run, capture, replays) on fresh inputs make(i); each result equal to step's run eagerly on the
  same inputs; first, every kernel of a run must take every buffer it is handed (as tinygrad's CUDA graph needs). Returns the jitted
  results"""
  jit, got = TinyJit(step), []
  assert unread_buffers(*[t for t in step(*make(-1)) if t is not None]) == [], "kernels the CUDA graph would refuse"
  for i in range(n):
    ins = make(i)
    out = [host(t) for t in jit(*ins)]   # copied out: a replay writes the same buffers
    want = [host(t) for t in step(*ins)]
    for j, (a, b) in enumerate(zip(out, want)):
      assert a.shape == b.shape and np.allclose(a, b, rtol=1e-3, atol=1e-3, equal_nan=True), f"call {i}, output {j}: max diff {np.abs(a - b).max()}"
    got.append(out)
  assert jit.cnt >= 2, "the step was never replayed"
  return got

def _configs(device:str, D:int) -> list[FwdConfig|None]:
  """None (the default) and, on a GPU, every candidate the tuner may pick there"""
  return [None] if device == "PYTHON" else [None, *candidates(target_for(device), D)]

@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.slow_on("emu", keep=lambda p: p["D"] == 64)   # the emulator: one head dim (one config there)
def test_forward_every_config(dev, D):
  """the forward (GQA, tails on both sides, causal and not) at each config, and its lse"""
  device, s = dev
  r = np.random.default_rng()
  B, H, Hkv, Nq, Nk = 1, 2, 1, 17 * s, 13 * s + 5
  for cfg in _configs(device, D):
    for causal in (False, True):
      step = lambda q, k, v: flash_attention(q, k, v, causal=causal, return_lse=True, config=cfg)
      ins = lambda i: [rand(r, sh, device) for sh in ((B, H, Nq, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
      jit, inputs = TinyJit(step), [ins(i) for i in range(3)]
      for q, k, v in inputs:
        o, lse = (host(t) for t in jit(q, k, v))
        assert_close(o, lse, *attention_ref(host(q), host(k), host(v), causal), dtypes.half, f"{cfg} causal={causal}")
      assert jit.cnt == 3, cfg

def test_training_step(dev):
  """autograd through flash_attention inside the jit (forward, delta, dK/dV, dQ kernels), a mask_mod's block map too"""
  device, s = dev
  r = np.random.default_rng()
  B, H, Hkv, N, D = 1, 2, 1, 9 * s + 3, 64 if device != "PYTHON" else 32   # the emulator's time goes with D
  mask = {"mask_mod": lambda b, h, q_idx, kv_idx, n: kv_idx < n[b]}
  for kw in ({"causal": True}, mask) if device != "PYTHON" else (mask,):   # the emulator: one (slow) backward suffices
    def step(q, k, v, do, n):
      for t in (q, k, v): t.requires_grad = True
      o = flash_attention(q, k, v, mod_args=(n,) if "mask_mod" in kw else (), **kw)
      return [o, *(o.float() * do).sum().gradient(q, k, v)]
    def make(i):
      return [*(rand(r, sh, device) for sh in ((B, H, N, D), (B, Hkv, N, D), (B, Hkv, N, D), (B, H, N, D))),
              Tensor(np.array([N - 3 - 5 * i], np.int32), device=device).realize()]
    replays_match(step, make)

def test_sequence_sharded_step(dev):
  """a call sharded over the sequence of two devices (the ring: each step's keys copied from the other device, the merge's tinygrad
  function), causal in the zigzag layout, jitted and replayed: its forward on the emulator, a training step (the ring's backward
  sending dK and dV home too) on two GPUs"""
  from fa_uop import shard
  device, s = dev
  if device == "PYTHON": devs = tuple(f"PYTHON::sm_80:{i}" if i else "PYTHON::sm_80" for i in range(2))
  else:
    devs = (device, f"{device.split(':')[0]}:1")
    try: Device[devs[1]]
    except Exception: pytest.skip(f"needs a second GPU ({devs[1]})")
  r = np.random.default_rng()
  B, H, Hkv, N, D = 1, 2, 1, 16 * s, 16 if device == "PYTHON" else 128
  def step(q, k, v, do):   # (the emulator: the forward alone, the ring's backward under the jit on the GPU; test_shard eagerly)
    o = flash_attention(q, k, v, causal=True, layout="zigzag")
    return [o, *((o.float() * do).sum().gradient(q, k, v) if device != "PYTHON" else ())]
  make = lambda i: [shard.zigzag(rand(r, sh, device), devs) for sh in ((B, H, N, D), (B, Hkv, N, D), (B, Hkv, N, D), (B, H, N, D))]
  replays_match(step, make)

def test_ring_kernels_read_what_they_are_handed():
  """the ring's training step hands each compiled kernel only buffers it reads (tinygrad's CUDA graph launches a kernel with every one
  it is handed and refused both of these on two H200s: docs/journal.md 2026-11-29): a second call without causal, whose Mods equals the
  first's (at_positions' cache returns the first: its kernels once got key positions no mod reads), and a dK/dV grid of one block (GQA,
  one row block: its schedule's load of one element compiled away)"""
  from fa_uop import shard
  devs = ("PYTHON::sm_80", "PYTHON::sm_80:1")
  r = np.random.default_rng()
  with Context(DEV="PYTHON::sm_80"):
    for causal, grad in ((False, False), (False, False), (True, True)):   # the forward alone reads positions
      q, k, v, do = (shard.zigzag(rand(r, sh, "PYTHON"), devs) for sh in ((1, 2, 8, 16), (1, 1, 8, 16), (1, 1, 8, 16), (1, 2, 8, 16)))
      for t in (q, k, v): t.requires_grad = grad
      o = flash_attention(q, k, v, causal=causal, layout="zigzag")
      assert unread_buffers(o, *((o.float() * do).sum().gradient(q, k, v) if grad else ())) == [], f"causal={causal}"

def test_ring_copies_read_no_jit_input():
  """TinyJit captures the ring's copies of K and V to the next device from buffers of its own, never from a TinyJit input: tinygrad's
  CUDA graph replays a copy reading another device's shard of an input with the copy's own device's shard (the replays' o was off by
  30-70% on two H200s, docs/journal.md 2026-11-29), so shard.rotate clones a realized tensor first. The emulator runs no graph: what
  it can check is the captured copies' sources. The keys' positions are no copies: constants, so the block maps are built once"""
  from tinygrad.uop.ops import Ops
  from tinygrad.engine.jit import get_call_arg_uops
  from fa_uop import shard
  devs = ("PYTHON::sm_80", "PYTHON::sm_80:1")
  r = np.random.default_rng()
  with Context(DEV="PYTHON::sm_80"):
    jit = TinyJit(lambda q, k, v: flash_attention(q, k, v, causal=True, layout="zigzag").realize())
    for _ in range(3): jit(*[shard.zigzag(rand(r, (1, 1, 8, 16), "PYTHON"), devs) for _ in range(3)])
  srcs = [get_call_arg_uops(c)[1].src[0] for c in jit.captured.linear.src if c.src[0].op is Ops.COPY]
  assert len(srcs) >= 4 and not any(u.op is Ops.PARAM for u in srcs), [u.op for u in srcs]
  # and the steps' block maps, over constant positions, were built by the first call and are not rebuilt by the replays
  names = [c.src[0].arg.name for c in jit.captured.linear.src if c.src[0].op is Ops.PROGRAM]
  assert any(n.startswith("fa_fwd") for n in names) and not any(n.startswith("fa_blockmap") for n in names), names

def test_eager_calls_reuse_the_schedule():
  """eager training steps on fresh data of one shape schedule once: tinygrad's schedule cache keys a call on its gradient function,
  and a new one per call (fa_uop made each call's) missed it every step (~0.1 s of host time a step at realistic sizes, the ring's
  1.4 s at N=8192). One device, then the ring over two (its first two calls build the positions it then keeps)"""
  import tinygrad.schedule as sched
  from fa_uop import shard
  r = np.random.default_rng()
  B, H, N, D = 1, 1, 8, 16
  devs = ("PYTHON::sm_80", "PYTHON::sm_80:1")
  with Context(DEV="PYTHON::sm_80"):
    for name, place, kw, warm in (("one device", lambda t: t, {}, 1), ("the ring", lambda t: shard.zigzag(t, devs), {"layout": "zigzag"}, 2)):
      for i in range(warm + 1):
        q, k, v, do = (place(rand(r, (B, H, N, D), "PYTHON")) for _ in range(4))
        for t in (q, k, v): t.requires_grad = True
        before = len(sched.schedule_cache)
        o = flash_attention(q, k, v, causal=True, **kw)
        Tensor.realize(o, *(o.float() * do).sum().gradient(q, k, v))
        if i >= warm: assert len(sched.schedule_cache) == before, f"{name}: call {i} scheduled anew"

@pytest.mark.slow_on("emu")   # the emulator runs no graph: this is the GPU's test
@pytest.mark.parametrize("dq", ["dq kernel", "dq accumulation"])
def test_readers_wait_for_inline_writes(dev, dq):
  """kernels whose only input fa_uop wrote by inline code (the forward's O and the backward's dK, dV, dQ by 16-byte stores, or dQ by
  the accumulation's atomic or bulk adds) run after the writer in the jit: tinygrad's CUDA graph orders kernels by their STOREs alone
  (tiles.declare_written; without it the accumulation's dQ came back zeros from the second call on the H200)"""
  from fa_uop import flash_attention_backward, BwdConfig, default_bwd_configs
  device, s = dev
  r = np.random.default_rng()
  B, H, Hkv, N, D = 2, 4, 2, 40 * s + 3, 64 if device != "PYTHON" else 32
  t = target_for(device)
  cfgs = None if dq == "dq kernel" else (BwdConfig.parse("64x64x4q" if t.warpgroups else "32x16x2q"), default_bwd_configs(t, D)[1])
  def step(q, k, v, do):
    o, lse = flash_attention(q, k, v, causal=True, return_lse=True)
    return [o * 2, *(g * 2 for g in flash_attention_backward(q, k, v, o, lse, do, causal=True, configs=cfgs))]
  replays_match(step, lambda i: [rand(r, sh, device) for sh in ((B, H, N, D), (B, Hkv, N, D), (B, Hkv, N, D), (B, H, N, D))])

@pytest.mark.slow_on("emu")   # the emulator: test_sdpa and test_decode cover both eagerly, test_training_step the jitted backward
def test_sdpa_and_decode_shaped_calls(dev):
  """the SDPA drop-in (patched) with a key-padding mask, and flash_attention at a decode shape (its split-KV path), with gradients"""
  device, s = dev
  r = np.random.default_rng()
  B, H, Hkv, D, Nk = 2, 4, 2, 64, 300 * s
  def sdpa(q, k, v, m):
    with patch(): return [q.scaled_dot_product_attention(k, v, attn_mask=m)]
  replays_match(sdpa, lambda i: [rand(r, (B, H, 20, D), device), rand(r, (B, H, 33, D), device), rand(r, (B, H, 33, D), device),
                                 Tensor(r.random((B, 1, 1, 33)) > 0.3, device=device).realize()])
  def decode_shaped(q, k, v, do):
    for t in (q, k, v): t.requires_grad = True
    o, lse = flash_attention(q, k, v, return_lse=True)
    return [o, lse, *((o.float() * do).sum() + lse.sum()).gradient(q, k, v)]
  for Nq in (1, 3) if device != "PYTHON" else (3,):
    got = replays_match(decode_shaped, lambda i: [rand(r, (B, H, Nq, D), device), rand(r, (B, Hkv, Nk, D), device), rand(r, (B, Hkv, Nk, D), device),
                                                  rand(r, (B, H, Nq, D), device, dtypes.float)])
    assert np.isfinite(got[-1][0]).all()

@pytest.mark.parametrize("paged", [False, True])
@pytest.mark.slow_on("emu", keep=lambda p: p["paged"])
def test_decoding_with_changing_lengths(dev, paged):
  """a decoding step as a server runs it: the new token's K and V written into the cache, then attention against it, the lengths
  (and the page table) read at run time: one capture serves every step"""
  device, s = dev
  r = np.random.default_rng()
  B, H, Hkv, D, Nmax, P = 2, 4, 2, 64, 64 * s, 16
  pages = B * Nmax // P
  table = Tensor(r.permutation(pages).reshape(B, Nmax // P).astype(np.int32), device=device).realize() if paged else None
  shape = (pages, Hkv, P, D) if paged else (B, Hkv, Nmax, D)
  kc, vc = rand(r, shape, device), rand(r, shape, device)
  def step(q, k, v, lens):
    kc2, vc2 = write_kvcache(kc, vc, k, v, lens, block_table=table)
    return [flash_attention_with_kvcache(q, kc2, vc2, lens + 1, block_table=table, causal=True)]
  jit = TinyJit(step)
  for i in range(4):
    lens_np = r.integers(0, Nmax - 1, B).astype(np.int32)
    q, k, v = rand(r, (B, H, 1, D), device), rand(r, (B, Hkv, 1, D), device), rand(r, (B, Hkv, 1, D), device)
    o = host(jit(q, k, v, Tensor(lens_np, device=device).realize())[0])
    # the cache as the kernels saw it, read back: every position up to the new token
    kn, vn = host(kc), host(vc)
    for b in range(B):
      pos = np.arange(lens_np[b] + 1)
      rows = (lambda x: x[table.numpy()[b][pos // P], :, pos % P].transpose(1, 0, 2)) if paged else (lambda x: x[b][:, pos])
      ref, _ = attention_ref(host(q)[b:b + 1], rows(kn)[None], rows(vn)[None], False)
      assert np.abs(o[b:b + 1] - ref).max() <= TOL[dtypes.half]["abs"], f"step {i}, sequence {b}"
  assert jit.cnt == 4

@pytest.mark.gpu
def test_head_dim_256_jitted():
  """Gemma's head dim as its users run it, on the GPU: a training step (causal GQA, then a key-padding mask_mod: forward, delta, dK/dV,
  dQ, the block map), the SDPA drop-in and a decode-shaped call (split-KV, with gradients), each captured and replayed against eager
  (the emulator runs D=256 eagerly: test_mods, test_decode)"""
  device, r = _gpu(), np.random.default_rng()
  B, H, Hkv, N, D = 2, 4, 2, 333, 256
  for kw in ({"causal": True}, {"mask_mod": lambda b, h, q_idx, kv_idx, n: kv_idx < n[b]}):
    def step(q, k, v, do, n):
      for t in (q, k, v): t.requires_grad = True
      o = flash_attention(q, k, v, mod_args=(n,) if "mask_mod" in kw else (), **kw)
      return [o, *(o.float() * do).sum().gradient(q, k, v)]
    replays_match(step, lambda i: [*(rand(r, sh, device) for sh in ((B, H, N, D), (B, Hkv, N, D), (B, Hkv, N, D), (B, H, N, D))),
                                   Tensor(np.array([N - 3 - 50 * i, N - 7], np.int32), device=device).realize()])
  def sdpa(q, k, v):
    with patch(): return [q.scaled_dot_product_attention(k, v, is_causal=True)]
  replays_match(sdpa, lambda i: [rand(r, (B, H, N, D), device) for _ in range(3)])
  def decode_shaped(q, k, v, do):
    for t in (q, k, v): t.requires_grad = True
    o = flash_attention(q, k, v)
    return [o, *(o.float() * do).sum().gradient(q, k, v)]
  replays_match(decode_shaped, lambda i: [rand(r, (B, H, 1, D), device), rand(r, (B, Hkv, 4000, D), device), rand(r, (B, Hkv, 4000, D), device),
                                          rand(r, (B, H, 1, D), device, dtypes.float)])
