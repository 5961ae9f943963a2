"""fa_uop as a new user meets it, on a GPU: the first call of shapes nobody tuned for (an empty tuning cache, a fresh process per
shape: graph build and compile included) and its config's speed against the tuner's pick; and decode-shaped calls through
flash_attention and the SDPA drop-in against flash_attention_with_kvcache. Kernel times: medians between CUDA events, L2 flushed.
  DEV=CUDA python3 scripts/user_checks.py first B H N D causal   (one shape; run each in a fresh process)
  DEV=CUDA python3 scripts/user_checks.py decode                 (the decode table's shapes)
  DEV=CUDA python3 scripts/user_checks.py step B H N D causal    (a TinyJit training step through autograd, against eager)
  DEV=CUDA python3 scripts/user_checks.py jit B H N D causal [dtype]   (flash_attention in TinyJit: capture, then replays on fresh
                                                                 inputs, each against eager and head 0 against float64; half or fp8e4m3)"""
import os, sys, tempfile, time
os.environ.setdefault("FA_UOP_CACHE", os.path.join(tempfile.mkdtemp(), "tune.json"))   # empty: nothing tuned before
import numpy as np
from tinygrad import Device, Tensor, dtypes
from fa_uop import flash_attention, flash_attention_with_kvcache
from fa_uop.api import fwd_config_for
from fa_uop.sdpa import patch
from fa_uop.timing import event_time

def rand(r, shape) -> Tensor: return Tensor(r.standard_normal(shape).astype(np.float32)).cast(dtypes.half).contiguous().realize()

def first(B:int, H:int, N:int, D:int, causal:bool) -> None:
  r = np.random.default_rng(0)
  q, k, v = (rand(r, (B, H, N, D)) for _ in range(3))
  Device[Device.DEFAULT].synchronize()
  st = time.perf_counter()
  flash_attention(q, k, v, causal=causal).realize()
  Device[Device.DEFAULT].synchronize()
  first_s = time.perf_counter() - st
  table = fwd_config_for(q, k, v, causal=causal)
  os.environ["FA_UOP_TUNE"] = "1"
  st = time.perf_counter()
  tuned = fwd_config_for(q, k, v, causal=causal)
  tune_s = time.perf_counter() - st
  t = {str(c): event_time(lambda: flash_attention(q, k, v, causal=causal, config=c), 30)[0] for c in (table, tuned)}
  flops = 4 * B * H * N * N * D // (2 if causal else 1)
  print(f"first B={B} H={H} N={N} D={D} causal={causal}: first call {first_s:.2f} s with {table}; tuner ({tune_s:.1f} s) picks {tuned}; "
        f"{table} {t[str(table)] * 1e3:.3f} ms ({flops / t[str(table)] / 1e12:.1f} TFLOPS), {tuned} {t[str(tuned)] * 1e3:.3f} ms: "
        f"table/tuned time {t[str(table)] / t[str(tuned)]:.3f}", flush=True)

def decode() -> None:
  r = np.random.default_rng(0)
  for H, Hkv in ((32, 8), (32, 32)):
    for B in (1, 8, 64):
      for Nk in (8192, 131072):
        if 2 * B * Hkv * Nk * 128 * 2 > 9 << 30: continue
        q, k, v = rand(r, (B, H, 1, 128)), rand(r, (B, Hkv, Nk, 128)), rand(r, (B, Hkv, Nk, 128))
        lens = Tensor(np.full(B, Nk, np.int32)).realize()
        nbytes = 2 * B * Hkv * Nk * 128 * 2
        def sdpa():
          with patch(): return q.scaled_dot_product_attention(k, v, enable_gqa=True).realize()
        calls = {"kvcache": lambda: flash_attention_with_kvcache(q, k, v, lens).realize(), "flash_attention": lambda: flash_attention(q, k, v).realize(),
                 "sdpa": sdpa}
        want = flash_attention_with_kvcache(q, k, v, lens).float().numpy()
        errs = {n: float(np.abs(f().float().numpy() - want).max()) for n, f in calls.items()}
        gbps = {n: nbytes / event_time(f, 30)[0] / 1e9 for n, f in calls.items()}
        print(f"decode B={B} H={H} Hkv={Hkv} Nk={Nk}: " + ", ".join(f"{n} {g:.0f} GB/s" for n, g in gbps.items()) +
              f"; flash_attention/kvcache {gbps['flash_attention'] / gbps['kvcache']:.3f}, sdpa/kvcache {gbps['sdpa'] / gbps['kvcache']:.3f}; "
              f"max diff from kvcache {max(errs.values()):.1e}", flush=True)

def step(B:int, H:int, N:int, D:int, causal:bool) -> None:
  from tinygrad import TinyJit
  r = np.random.default_rng(0)
  def train(q, k, v):
    for t in (q, k, v): t.requires_grad = True
    o = flash_attention(q, k, v, causal=causal)
    return [o, *o.float().square().mean().gradient(q, k, v)]
  jit = TinyJit(train)
  for i in range(4):
    ins = [rand(r, (B, H, N, D)) for _ in range(3)]
    got = [t.float().numpy() for t in jit(*ins)]
    want = [t.float().numpy() for t in train(*ins)]
    diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
    print(f"step {i} B={B} H={H} N={N} D={D} causal={causal} ({fwd_config_for(*ins, causal=causal)}): jitted vs eager max diff {diff:.1e}, "
          f"finite {all(np.isfinite(a).all() for a in got)}", flush=True)

def jit(B:int, H:int, N:int, D:int, causal:bool, dtype:str="half") -> None:
  from tinygrad import TinyJit
  from fa_uop.reference import attention_ref
  r, dt = np.random.default_rng(0), getattr(dtypes, dtype)
  ins = lambda: [Tensor(r.standard_normal((B, H, N, D)).astype(np.float32)).cast(dt).contiguous().realize() for _ in range(3)]
  fn = TinyJit(lambda q, k, v: flash_attention(q, k, v, causal=causal).realize())
  for i in range(4):   # the first call runs, the second captures, the rest replay
    q, k, v = ins()
    got, eager = fn(q, k, v).float().numpy(), flash_attention(q, k, v, causal=causal).float().numpy()
    ref = attention_ref(*(x[:1, :1].float().numpy().astype(np.float64) for x in (q, k, v)), causal)[0]
    print(f"jit call {i} B={B} H={H} N={N} D={D} {dtype} causal={causal} ({fwd_config_for(q, k, v, causal=causal)}): jit == eager "
          f"{np.array_equal(got, eager)}, head 0 rel err {np.linalg.norm(got[:1, :1] - ref) / np.linalg.norm(ref):.2e}, "
          f"finite {np.isfinite(got).all()}", flush=True)

if __name__ == "__main__":
  if sys.argv[1] == "step": step(*map(int, sys.argv[2:6]), bool(int(sys.argv[6])))
  elif sys.argv[1] == "jit": jit(*map(int, sys.argv[2:6]), bool(int(sys.argv[6])), *sys.argv[7:8])
  elif sys.argv[1] == "first": first(*map(int, sys.argv[2:6]), bool(int(sys.argv[6])))
  else: decode()
