#!/usr/bin/env python3
"""Time fa_uop's attention forward next to its peers and check it against tinygrad's own SDPA in float32.

Env: B, H, HKV (default H), N, NK (default N), D, CAUSAL, DTYPE (half|bfloat16, or for MODE=fwd fp8e4m3|fp8e5m2 (the fnuz ones on
gfx942), descales 1, checked against float32 of the dequantized inputs, peers the Triton tutorial's only), CNT (timed runs), VERIFY
(default 1), JSON=1, PEERS (comma list from tinygrad,torch_flash,torch_cudnn,torch_flex,triton,triton_fp8; default: tinygrad, plus
torch's where torch sees a GPU; for fp8, triton_fp8 on a GPU. triton, triton_fp8: the forward of Triton's fused-attention tutorial
in fp16 or fp8 e5m2 whatever DTYPE is (its row says which), from .whl/triton_fused_attention.py or FA_UOP_TRITON_TUTORIAL, not in
the repository; plain cases, H == HKV, N == NK a multiple of 128, see scripts/torch_peer.py),
WINDOW=left,right (a side "none" or empty: unbounded), SOFTCAP=c, MASK=document|alibi|padding (built-in mods, data from seed 0:
DOCS documents per packed sequence, default 4; ALiBi slopes 2^(-8(h+1)/H) as a score_mod; key lengths per batch entry in
[NK/2, NK]): TFLOPS then count only the pairs kept, and the check is against a float32 reference with the same modifications,
MODE (fwd, bwd, fwdbwd or a comma list of them: the backward is timed from a saved forward, TFLOPS 2.5x the forward's FLOPs),
CONFIG (BMxBNxWARPS[xBLOCKS per SM][t: bulk tensor copies[rN: by a producer warpgroup, a ring of N[p][P]]][d], FwdConfig's names, else the tuner's choice), BWD_CONFIG (the backward's, for dK/dV and dQ: one, or two
comma-separated, tr<N> on Hopper: a producer's ring of Q and dO for dK/dV, of K and V for dQ; else the defaults), SWEEP=1 (the FlashAttention-2 paper's grid: D in 64,128, H=2048/D,
N in 1024,4096,16384, B=16384/N, causal and not; a table, JSON lines and a PNG plot under OUT, default ./out), SHARD=batch|heads|seq
(fa_uop's inputs over DEVICES devices, default 2; seq: sharded over the sequence, the ring, in LAYOUT=contiguous|zigzag).
With no GPU present it runs a small shape on tinygrad's emulator (DEV=PYTHON::sm_80). Exits non-zero if a check fails."""
import os, shutil, sys
if "DEV" not in os.environ:  # pick the device before tinygrad reads DEV
  os.environ["DEV"] = "CUDA" if shutil.which("nvidia-smi") else "AMD" if os.path.exists("/dev/kfd") else "PYTHON::sm_80"
import dataclasses, json, math, tempfile, time
import numpy as np
from tinygrad import Tensor, Device, TinyJit, dtypes, Context
from tinygrad.helpers import getenv
from fa_uop import flash_attention, flash_attention_backward, flash_attention_with_kvcache, FwdConfig, BwdConfig, default_fwd_config, target_for, tune
from fa_uop.api import decode_plan, fwd_config_for
from fa_uop import blockmap, shard
from fa_uop.reference import kvcache_ref
from fa_uop.timing import event_time, wall_time

DEV = Device.DEFAULT
EMULATED = DEV.startswith("PYTHON")
DEFAULTS = dict(B=1, H=2, HKV=1, N=64, D=64, CNT=1) if EMULATED else dict(B=4, H=16, N=4096, D=128, CNT=20)
PEERS = ("tinygrad",) if EMULATED else ("tinygrad", "torch_flash", "torch_cudnn", "torch_flex")
FP8_PEERS = () if EMULATED else ("triton_fp8",)
# the format a peer runs in whatever DTYPE is: the Triton tutorial's kernel takes fp16 or fp8 e5m2 only
PEER_DTYPE = {"triton": "half", "triton_fp8": "fp8e5m2"}

def conf(name:str) -> int: return getenv(name, DEFAULTS.get(name, 0))

@dataclasses.dataclass(frozen=True)
class Case:
  """what a run masks and changes: causal, a window, a softcap and one of the built-in MASK examples, whose data (document ids,
  key lengths, slopes) come from seed 0, so that every implementation of a run sees the same"""
  causal: bool = False
  window: tuple[int|None, int|None]|None = None
  softcap: float|None = None
  mask: str|None = None
  @property
  def plain(self) -> bool: return self.window is None and self.softcap is None and self.mask is None
  def __str__(self) -> str:
    return " ".join(x for x in (f"causal={self.causal}", self.window and f"window={self.window}", self.softcap and f"softcap={self.softcap}",
                                self.mask and f"mask={self.mask}") if x)

  def data(self, B:int, H:int, N:int, Nk:int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    if self.mask == "document":
      if N != Nk: raise ValueError(f"MASK=document packs queries and keys alike: N and NK must agree, got {N} and {Nk}")
      docs = min(getenv("DOCS", 4), N)
      cuts = [np.sort(rng.choice(np.arange(1, N), docs - 1, replace=False)) for _ in range(B)]
      return dict(doc=np.stack([np.searchsorted(c, np.arange(N), "right") for c in cuts]).astype(np.int32))
    if self.mask == "padding": return dict(lens=rng.integers(Nk // 2, Nk + 1, B).astype(np.int32))
    if self.mask == "alibi": return dict(slopes=(2.0 ** (-8.0 * np.arange(1, H + 1) / H)).astype(np.float32))
    return {}

  def kwargs(self, data:dict[str, np.ndarray]) -> dict:
    """flash_attention's keyword arguments: made once per run (new functions would be new kernels and new block maps)"""
    kw = dict(causal=self.causal, window=self.window, softcap=self.softcap)
    args = tuple(Tensor(x).realize() for x in data.values())
    if self.mask == "document": kw.update(mask_mod=lambda b, h, q_idx, kv_idx, d: d[b, q_idx].eq(d[b, kv_idx]), mod_args=args)
    if self.mask == "padding": kw.update(mask_mod=lambda b, h, q_idx, kv_idx, n: kv_idx < n[b], mod_args=args)
    if self.mask == "alibi": kw.update(score_mod=lambda s, b, h, q_idx, kv_idx, sl: s + sl[h] * (kv_idx - q_idx).cast(dtypes.float), mod_args=args)
    return kw

  def rows(self, data:dict[str, np.ndarray], b:int, N:int, Nk:int) -> tuple[np.ndarray, np.ndarray]:
    """the keys query i of batch entry b keeps: lo[i]..hi[i], none where lo > hi (each mask here keeps an interval of a row)"""
    i = np.arange(N)
    lo, hi = np.zeros(N, np.int64), np.full(N, Nk - 1, np.int64)
    if self.causal: hi = np.minimum(hi, i)
    if self.window and self.window[0] is not None: lo = np.maximum(lo, i - self.window[0])
    if self.window and self.window[1] is not None: hi = np.minimum(hi, i + self.window[1])
    if self.mask == "document":
      d = data["doc"][b]
      lo, hi = np.maximum(lo, np.searchsorted(d, d, "left")), np.minimum(hi, np.searchsorted(d, d, "right") - 1)
    if self.mask == "padding": hi = np.minimum(hi, data["lens"][b] - 1)
    return lo, hi

  def pairs(self, data:dict[str, np.ndarray], B:int, N:int, Nk:int) -> int:
    """query-key pairs kept, summed over the batch: what TFLOPS count"""
    return sum(int(np.maximum(hi - lo + 1, 0).sum()) for lo, hi in (self.rows(data, b, N, Nk) for b in range(B)))

  def reference(self, data:dict[str, np.ndarray], q:Tensor, k:Tensor, v:Tensor) -> Tensor:
    """batch entry 0 in float32 through tinygrad, with the scores made and masked in full: q (1, h, N, D), k and v their KV heads"""
    G, (N, D), Nk = q.shape[1] // k.shape[1], q.shape[2:], k.shape[2]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    s = q @ k.transpose(-1, -2) * (1 / math.sqrt(D))
    if self.softcap is not None: s = (s / self.softcap).tanh() * self.softcap
    i, j = Tensor.arange(N).reshape(N, 1), Tensor.arange(Nk).reshape(1, Nk)
    if self.mask == "alibi": s = s + Tensor(data["slopes"][:q.shape[1]]).reshape(1, -1, 1, 1) * (j - i).float()
    lo, hi = (Tensor(x.astype(np.int32)).reshape(N, 1) for x in self.rows(data, 0, N, Nk))
    s = ((j >= lo) & (j <= hi)).where(s, -math.inf)
    m = s.max(-1, keepdim=True).detach()
    p = (s - m.isinf().where(0, m)).exp()
    return (p @ v) / p.sum(-1, keepdim=True).maximum(1e-30)   # a row that keeps nothing: 0

  def spec(self, data:dict[str, np.ndarray]) -> str:
    """the case as an .npz file for scripts/torch_peer.py (FlexAttention builds the same masks and scores from it)"""
    path = tempfile.mkstemp(suffix=".npz")[1]
    left, right = self.window or (None, None)
    np.savez(path, left=-1 if left is None else left, right=-1 if right is None else right, softcap=self.softcap or 0.0, **data)
    return path

def case_from_env() -> Case:
  w = getenv("WINDOW", "")
  window = tuple(None if x.strip().lower() in ("", "none") else int(x) for x in w.split(",")) if w else None
  if window is not None and (len(window) != 2 or any(x is not None and x < 0 for x in window)):
    raise ValueError(f"WINDOW must be left,right with each side an int >= 0 or none, got {w!r}")
  mask = getenv("MASK", "") or None
  if mask not in (None, "document", "alibi", "padding"): raise ValueError(f"MASK must be document, alibi or padding, got {mask!r}")
  return Case(bool(getenv("CAUSAL", 0)), window, float(getenv("SOFTCAP", "0")) or None, mask)

def sharding() -> tuple[tuple[str, ...], int]|None:
  """SHARD=batch|heads|seq: fa_uop's inputs sharded over DEVICES (default 2) devices of DEV's kind, (devices, axis); else None.
  seq: over the sequence (the ring), in LAYOUT=contiguous|zigzag (default zigzag under CAUSAL, else contiguous)"""
  if not (s:=getenv("SHARD", "")): return None
  if s not in ("batch", "heads", "seq"): raise ValueError(f"SHARD must be batch, heads or seq, got {s!r}")
  base = DEV.rsplit(":", 1)[0] if DEV.count(":") in (1, 3) else DEV   # CUDA:1 -> CUDA, PYTHON::sm_80:1 -> PYTHON::sm_80
  return tuple(f"{base}:{i}" for i in range(getenv("DEVICES", 2))), {"batch": 0, "heads": 1, "seq": 2}[s]

def layout() -> str: return getenv("LAYOUT", "zigzag" if getenv("CAUSAL", 0) else "contiguous")

def place(ts:list[Tensor], kw:dict) -> tuple[list[Tensor], dict, str]:
  """ts sharded as SHARD asks (the mods' buffers whole on each device), and the timing's device(s) in words"""
  if (sh:=sharding()) is None: return ts, kw, DEV
  devs, axis = sh
  if "mod_args" in kw: kw = {**kw, "mod_args": tuple(t.shard(devs) for t in kw["mod_args"])}
  if axis == 2:
    lay = layout()
    return [(shard.zigzag(t, devs) if lay == "zigzag" else t.shard(devs, axis=2)).realize() for t in ts], {**kw, "layout": lay}, \
      f"{len(devs)} devices, sequence sharded ({lay})"
  return [t.shard(devs, axis=axis).realize() for t in ts], kw, f"{len(devs)} devices, {'batch' if axis == 0 else 'heads'} sharded"

def timed(fn, cnt:int, ts:list[Tensor]) -> tuple[float, float]:
  """event_time (a call's kernels between two CUDA events, TinyJit's replay, the L2 flushed: the peers' statistic, do_bench's), or for
  sharded inputs the median wall time of TinyJit's replays with every device synchronized (per-kernel timing would run the devices
  one after the other; an eager sharded call is ~0.1 s of host time). Not gpu_time: each kernel between its own events counts its
  launch's host latency (61 us for the one-thread tensor-map kernel on the H200, a call 348 us against 271: docs/runs/2026-11-28g_short/)"""
  return event_time(fn, cnt, ts[0].device) if isinstance(ts[0].device, str) else wall_time(TinyJit(fn), cnt, ts[0].device)

def one(t:Tensor) -> Tensor:
  """a sharded result gathered, to check it (zigzag's rows back in sequence order)"""
  if isinstance(t.device, str): return t
  return shard.unzigzag(t, device=DEV) if shard.axis(t) == 2 and layout() == "zigzag" else t.to(DEV)

def torch_peer(backend:str, mode:str, shape, case:Case, dtype_name:str, spec:str="") -> float|None:
  """median time (triton's do_bench) of torch's SDPA with one backend, or of its FlexAttention compiled, forward, backward or
  both, measured in a process of its own (scripts/torch_peer.py); None where torch, its GPU or the backend's support for the shape
  or the modifications is missing"""
  import subprocess
  args = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts", "torch_peer.py"), backend, mode,
          *map(str, shape), "1" if case.causal else "0", dtype_name, spec]
  out = subprocess.run(args, capture_output=True, text=True).stdout.strip().splitlines()
  if not out or out[-1].startswith("none"):
    print(f"{backend} {mode}: {out[-1] if out else 'no answer'}", file=sys.stderr)
    return None
  return float(out[-1])

def peer_row(res:dict, peer:str, psec:float, sec:float, flops:float) -> dict:
  """a peer's row, printed beside fa_uop's time sec: fa_uop's row with the peer's time and no fa_uop-only fields"""
  dt = PEER_DTYPE.get(peer, res["dtype"])
  print(f"{peer:12s} {psec*1e3:9.3f} ms GPU {flops/psec*1e-12:8.2f} TFLOPS | fa_uop is {psec/sec:.2f}x" +
        (f" | {peer} in {dt}, fa_uop in {res['dtype']}" if peer in PEER_DTYPE else ""), flush=True)
  return dict(res, impl=peer, dtype=dt, ms=psec * 1e3, tflops=flops / psec * 1e-12,
              **{k: None for k in ("compile_s", "ok", "config", "wall_ms", "host_ms") if k in res})

def peers_of(res:dict, peers, mode:str, case:Case, data:dict, shape, dtype_name:str, sec:float, flops:float, tinygrad) -> list[dict]:
  """the peers' rows: tinygrad's SDPA timed by tinygrad() (plain cases only: it has no softcap or score mods), torch's in
  scripts/torch_peer.py"""
  rows, spec = [], "" if case.plain else case.spec(data)
  for peer in peers:
    if peer == "tinygrad":
      if not case.plain: continue
      psec = tinygrad()
    else: psec = torch_peer(peer, mode, shape, case, dtype_name, spec)
    if psec is not None: rows.append(peer_row(res, peer, psec, sec, flops))
  if spec: os.remove(spec)
  return rows

def map_cost(run, sec:float, cnt:int) -> float:
  """device seconds a call spends building its mask_mod's block maps: a call that builds them, less one that finds them cached"""
  def fresh():
    blockmap.clear_cache()
    run()
  return max(0.0, event_time(fresh, max(1, min(cnt, 5)))[0] - sec)

def measure_bwd(B:int, H:int, Hkv:int, N:int, Nk:int, D:int, case:Case, dtype_name:str, cnt:int, verify:bool, peers, with_fwd:bool) -> list[dict]:
  """one shape's backward (with_fwd: forward and backward): fa_uop and its peers, as rows (fa_uop's last).
  TFLOPS count 2.5x (3.5x with the forward) the forward's FLOPs, 4·D per kept pair, as the FlashAttention papers do."""
  dtype = {"half": dtypes.half, "bfloat16": dtypes.bfloat16}[dtype_name]
  mode = "fwdbwd" if with_fwd else "bwd"
  data = case.data(B, H, N, Nk)
  kw = case.kwargs(data)
  if (bc:=getenv("BWD_CONFIG", "")):
    cs = [BwdConfig.parse(c) for c in bc.split(",")]
    bkw = dict(configs=(cs[0], cs[-1]))
  else: bkw = {}
  flops = (3.5 if with_fwd else 2.5) * 4 * D * H * case.pairs(data, B, N, Nk)
  print(f"{DEV} {mode}: B={B} H={H} Hkv={Hkv} N={N} Nk={Nk} D={D} {case} {dtype_name}, {cnt} timed runs", flush=True)
  q, k, v, do = [Tensor.randn(*s, dtype=dtypes.float32).cast(dtype).contiguous().realize() for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D), (B, H, N, D))]
  (q, k, v, do), kw, where = place([q, k, v, do], kw)
  st = time.perf_counter()
  with Context(CACHELEVEL=0):
    o, lse = [t.realize() for t in flash_attention(q, k, v, return_lse=True, **kw)]
    grads = flash_attention_backward(q, k, v, o, lse, do, **kw, **bkw)
    Tensor.realize(*grads)
  Device[DEV].synchronize()
  compile_s = time.perf_counter() - st
  def run():
    o_, lse_ = flash_attention(q, k, v, return_lse=True, **kw) if with_fwd else (o, lse)
    Tensor.realize(*flash_attention_backward(q, k, v, o_, lse_, do, **kw, **bkw))
  sec, wall = timed(run, cnt, [q])
  bmap = map_cost(run, sec, cnt) if "mask_mod" in kw else None
  res = dict(impl="fa_uop", mode=mode, dev=DEV, B=B, H=H, Hkv=Hkv, N=N, Nk=Nk, D=D, causal=case.causal, window=case.window, softcap=case.softcap,
             mask=case.mask, dtype=dtype_name, ms=sec * 1e3, tflops=flops / sec * 1e-12, compile_s=compile_s, max_abs_err=None, rel_err=None, ok=True,
             wall_ms=wall * 1e3, block_map_ms=None if bmap is None else bmap * 1e3)
  print(f"fa_uop       {sec*1e3:9.3f} ms GPU {flops/sec*1e-12:8.2f} TFLOPS | {wall*1e3:8.3f} ms wall/call | first call (build+compile) {compile_s:.2f} s | {where}" +
        ("" if bmap is None else f" | block maps {bmap*1e3:.3f} ms once (cached)"), flush=True)
  def tinygrad() -> float|None:
    if B * H * N * Nk * 4 > 4 << 30: return None  # its backward keeps several float32 N×Nk tensors
    gqa = dict(enable_gqa=True) if Hkv != H else {}
    qt, kt, vt = [x.detach() for x in (q, k, v)]
    for t in (qt, kt, vt): t.requires_grad = True
    def tg():
      out = qt.scaled_dot_product_attention(kt, vt, is_causal=case.causal, **gqa)
      Tensor.realize(*(out * do).sum().gradient(qt, kt, vt))
    return timed(tg, max(1, min(cnt, 3)), [q])[0]  # forward and backward: tinygrad recomputes its forward for the gradient anyway
  rows = peers_of(res, peers, mode, case, data, (B, H, Hkv, N, Nk, D), dtype_name, sec, flops, tinygrad)
  if verify:
    G = H // Hkv
    nh = max(G, min(H, (2 << 30) // (N * Nk * 4)) // G * G)   # whole groups of the first batch entry, within 2 GB of scores
    qs, ks, vs = [one(x)[:1, :n].float().detach() for x, n in ((q, nh), (k, nh // G), (v, nh // G))]
    for t in (qs, ks, vs): t.requires_grad = True
    ref = (case.reference(data, qs, ks, vs) * one(do)[:1, :nh].float()).sum().gradient(qs, ks, vs)
    rel_tol, abs_tol = (2e-2, 6e-2) if dtype == dtypes.bfloat16 else (5e-3, 2e-2)
    worst_rel, worst_abs, ok = 0.0, 0.0, True
    for g, r, n in zip(grads, ref, (nh, nh // G, nh // G)):
      g, r = one(g)[:1, :n].float().numpy().astype(np.float64), r.numpy().astype(np.float64)
      rel, mab = float(np.linalg.norm(g - r) / np.linalg.norm(r)), float(np.abs(g - r).max() / np.abs(r).max())
      worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mab)
      ok = ok and bool(np.isfinite(g).all()) and rel <= rel_tol and mab <= abs_tol
    res.update(max_abs_err=worst_abs, rel_err=worst_rel, ok=ok)
    print(f"verify dq, dk, dv vs tinygrad's autograd of a float32 reference (batch 0, heads 0..{nh-1}): worst max abs err / max |ref| "
          f"{worst_abs:.3e} (tolerance {abs_tol:.0e}), worst rel err {worst_rel:.3e} (tolerance {rel_tol:.0e}): {'ok' if ok else 'FAILED'}", flush=True)
  return rows + [res]

FP8 = {"fp8e4m3": dtypes.fp8e4m3, "fp8e5m2": dtypes.fp8e5m2, "fp8e4m3fnuz": dtypes.fp8e4m3fnuz, "fp8e5m2fnuz": dtypes.fp8e5m2fnuz}

def measure(B:int, H:int, Hkv:int, N:int, Nk:int, D:int, case:Case, dtype_name:str, cnt:int, verify:bool, peers) -> list[dict]:
  """one shape: fa_uop and its peers, as rows (fa_uop's last). TFLOPS: 4·D per kept pair."""
  dtype = {"half": dtypes.half, "bfloat16": dtypes.bfloat16, **FP8}[dtype_name]
  if (fp8:=dtype in FP8.values()): peers = [p for p in peers if p in PEER_DTYPE]   # torch's SDPA has no fp8: the Triton tutorial's only
  data = case.data(B, H, N, Nk)
  kw = case.kwargs(data)
  flops = 4 * D * H * case.pairs(data, B, N, Nk)
  print(f"{DEV}: B={B} H={H} Hkv={Hkv} N={N} Nk={Nk} D={D} {case} {dtype_name}, {cnt} timed runs", flush=True)
  q, k, v = [Tensor.randn(*s, dtype=dtypes.float32).cast(dtype).contiguous().realize() for s in ((B, H, N, D), (B, Hkv, Nk, D), (B, Hkv, Nk, D))]
  (q, k, v), kw, where = place([q, k, v], kw)
  target = target_for(DEV)
  # cold build+compile of one kernel (tinygrad's disk cache off), then the tuner's choice (or CONFIG) for the timed runs
  st = time.perf_counter()
  with Context(CACHELEVEL=0): flash_attention(q, k, v, config=default_fwd_config(target.for_dtype(dtype), D, case.causal), **kw).realize()
  Device[DEV].synchronize()
  compile_s = time.perf_counter() - st
  st = time.perf_counter()
  cfg = FwdConfig.parse(c) if (c:=getenv("CONFIG", "")) else fwd_config_for(q, k, v, **kw)
  tune_s = time.perf_counter() - st
  # a decode-shaped call's split-KV path (the decoding kernels' tile and splits) is flash_attention's own choice: no config then
  call = lambda: flash_attention(q, k, v, config=cfg if isinstance(cfg, FwdConfig) else None, **kw).realize()
  cfg_name = str(cfg) if isinstance(cfg, FwdConfig) else f"split-KV {cfg[0]}, {cfg[1]} splits"
  out = call()
  sec, wall = timed(call, cnt, [q])
  bmap = map_cost(call, sec, cnt) if "mask_mod" in kw else None
  # host time of a call: build (cached), schedule and launch; launches are asynchronous at DEBUG=0, so no device time is in it
  Device[DEV].synchronize()
  st = time.perf_counter()
  for _ in range(5): call()
  host = (time.perf_counter() - st) / 5
  Device[DEV].synchronize()
  res = dict(impl="fa_uop", mode="fwd", dev=DEV, B=B, H=H, Hkv=Hkv, N=N, Nk=Nk, D=D, causal=case.causal, window=case.window, softcap=case.softcap,
             mask=case.mask, dtype=dtype_name, ms=sec * 1e3, tflops=flops / sec * 1e-12, compile_s=compile_s, max_abs_err=None, rel_err=None, ok=True,
             config=cfg_name, wall_ms=wall * 1e3, host_ms=host * 1e3, block_map_ms=None if bmap is None else bmap * 1e3)
  print(f"fa_uop       {sec*1e3:9.3f} ms GPU {flops/sec*1e-12:8.2f} TFLOPS | {wall*1e3:8.3f} ms wall/call, {host*1e3:6.2f} ms host | {where} | config {cfg_name} "
        f"(tuning {tune_s:.1f} s) | cold build+compile {compile_s:.2f} s" + ("" if bmap is None else f" | block map {bmap*1e3:.3f} ms once (cached)"), flush=True)
  def tinygrad() -> float|None:
    if B * H * N * Nk * 4 > 8 << 30 or fp8: return None  # tinygrad's SDPA materializes the float32 scores; past 8 GB it would not fit
    gqa = dict(enable_gqa=True) if Hkv != H else {}
    return timed(lambda: q.scaled_dot_product_attention(k, v, is_causal=case.causal, **gqa).realize(), max(1, min(cnt, 5)), [q])[0]
  rows = peers_of(res, peers, "fwd", case, data, (B, H, Hkv, N, Nk, D), dtype_name, sec, flops, tinygrad)
  if verify:
    # the float32 reference holds the N×Nk scores: check as many heads of the first batch entry as fit in 4 GB
    nh = max(1, min(H, (4 << 30) // (N * Nk * 4)))
    nh = nh - nh % (H // Hkv) if nh >= H // Hkv else nh
    qs, ks, vs = one(q)[:1, :nh], one(k)[:1, :max(1, nh * Hkv // H)], one(v)[:1, :max(1, nh * Hkv // H)]
    ref = case.reference(data, qs.float(), ks.float(), vs.float()).numpy().astype(np.float64)
    got = one(out)[:1, :nh].float().numpy().astype(np.float64)
    max_abs, rel = float(np.abs(got - ref).max()), float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    # bf16 rounds P to 8 bits of mantissa before P·V (fp8 to 3 or 2: issue 31's bar is 3e-2 for e4m3); the max abs bound is what
    # catches a race that spoils a few rows
    rel_tol, abs_tol = (1e-2, 5e-2) if dtype == dtypes.bfloat16 else (3e-2, 1e-1) if "e4m3" in dtype_name else (6e-2, 2e-1) if fp8 else (4e-3, 1e-2)
    res.update(max_abs_err=max_abs, rel_err=rel, ok=bool(np.isfinite(got).all() and rel <= rel_tol and max_abs <= abs_tol))
    print(f"verify vs a float32 reference (batch 0, heads 0..{nh-1}): max abs err {max_abs:.3e} (tolerance {abs_tol:.0e}), "
          f"rel err {rel:.3e} (tolerance {rel_tol:.0e}): {'ok' if res['ok'] else 'FAILED'}", flush=True)
  return rows + [res]

def measure_decode(B:int, H:int, Hkv:int, Nq:int, Nk:int, D:int, causal:bool, page:int, dtype_name:str, cnt:int, verify:bool, peers,
                   splits:int=0, cfg:FwdConfig|None=None) -> list[dict]:
  """one decoding shape: Nq new queries per sequence against a KV cache of Nk keys (all valid), dense or paged (page > 0, pages
  shuffled over the pool); fa_uop and its peers as rows (fa_uop's last). Time: the median over cnt runs of all the kernels of a
  call between two events (fa_uop.timing.event_time: L2 flushed, no launch time counted, as triton's do_bench times torch's
  peers); GB/s = bytes of K and V / time."""
  dtype = {"half": dtypes.half, "bfloat16": dtypes.bfloat16}[dtype_name]
  kv_bytes = 2 * B * Hkv * Nk * D * dtype.itemsize
  print(f"{DEV} decode: B={B} H={H} Hkv={Hkv} Nq={Nq} Nk={Nk} D={D} causal={causal} page={page or '-'} {dtype_name}, {cnt} timed runs", flush=True)
  rng = np.random.default_rng(0)
  q = Tensor.randn(B, H, Nq, D, dtype=dtypes.float32).cast(dtype).contiguous().realize()
  if page:
    assert Nk % page == 0, f"NK={Nk} must be a multiple of PAGE={page}"
    table_np = rng.permutation(B * (Nk // page)).reshape(B, Nk // page).astype(np.int32)
    k, v = [Tensor.randn(B * (Nk // page), Hkv, page, D, dtype=dtypes.float32).cast(dtype).contiguous().realize() for _ in range(2)]
    table = Tensor(table_np).realize()
  else:
    k, v = [Tensor.randn(B, Hkv, Nk, D, dtype=dtypes.float32).cast(dtype).contiguous().realize() for _ in range(2)]
    table = None
  seqlens = Tensor.full((B,), Nk, dtype=dtypes.int32).contiguous().realize()
  call = lambda: flash_attention_with_kvcache(q, k, v, seqlens, table, causal=causal, num_splits=splits, config=cfg).realize()
  st = time.perf_counter()
  with Context(CACHELEVEL=0): out = call()
  Device[DEV].synchronize()
  compile_s = time.perf_counter() - st
  sec, wall = event_time(call, cnt)
  cfg, used = decode_plan(target_for(DEV), DEV, q.shape, Hkv, Nk, splits, cfg)
  res = dict(impl="fa_uop", mode="decode", dev=DEV, B=B, H=H, Hkv=Hkv, N=Nq, Nk=Nk, D=D, causal=causal, page=page, dtype=dtype_name,
             ms=sec * 1e3, gbps=kv_bytes / sec * 1e-9, splits=used, config=str(cfg), compile_s=compile_s, max_abs_err=None, rel_err=None, ok=True, wall_ms=wall * 1e3)
  print(f"fa_uop       {sec*1e6:9.1f} us GPU {kv_bytes/sec*1e-9:8.1f} GB/s | config {cfg}, splits {used} | {wall*1e3:8.3f} ms wall/call | "
        f"first call (build+compile) {compile_s:.2f} s", flush=True)
  rows = []
  for peer in peers:
    if causal and Nq > 1: continue  # torch's and tinygrad's SDPA align causal top-left; the cache aligns it bottom-right
    if peer == "tinygrad":
      if kv_bytes > 2 << 30: continue
      kd, vd = (k, v) if table is None else [Tensor(x.numpy()[table_np].transpose(0, 2, 1, 3, 4).reshape(B, Hkv, Nk, D)) for x in (k, v)]
      gqa = dict(enable_gqa=True) if Hkv != H else {}
      psec, _ = event_time(lambda: q.scaled_dot_product_attention(kd, vd, is_causal=causal, **gqa).realize(), max(1, min(cnt, 5)))
    else: psec = torch_peer(peer, "fwd", (B, H, Hkv, Nq, Nk, D), Case(causal), dtype_name)  # torch reads a dense cache of the same bytes
    if psec is None: continue
    print(f"{peer:12s} {psec*1e6:9.1f} us GPU {kv_bytes/psec*1e-9:8.1f} GB/s | fa_uop is {psec/sec:.2f}x", flush=True)
    rows.append(dict(res, impl=peer, ms=psec * 1e3, gbps=kv_bytes / psec * 1e-9, **{x: None for x in ("splits", "config", "compile_s", "ok", "wall_ms")}))
  if verify:
    # the first KV head of the first and last sequences, with the query heads that read it, in float64
    G, got = H // Hkv, out.float().numpy()
    worst_abs, worst_rel = 0.0, 0.0
    for b in (0, B - 1):
      # only KV head 0 of sequence b comes to the host: the sequence's slice, or the pool's head 0 gathered through the table
      dense = lambda x: x[b:b + 1, :1].float().numpy() if table is None else \
        x[:, :1].float().numpy()[table_np[b]].transpose(1, 0, 2, 3).reshape(1, 1, Nk, D)
      kn, vn = dense(k), dense(v)
      ref, _ = kvcache_ref(q[b:b + 1, :G].float().numpy(), kn, vn, np.array([Nk]), None, causal)
      diff = got[b:b + 1, :G] - ref
      worst_abs, worst_rel = max(worst_abs, float(np.abs(diff).max())), max(worst_rel, float(np.linalg.norm(diff) / np.linalg.norm(ref)))
    rel_tol, abs_tol = (1e-2, 5e-2) if dtype == dtypes.bfloat16 else (4e-3, 1e-2)
    res.update(max_abs_err=worst_abs, rel_err=worst_rel, ok=bool(np.isfinite(got).all() and worst_rel <= rel_tol and worst_abs <= abs_tol))
    print(f"verify vs float64 (KV head 0 of sequences 0 and {B-1}): max abs err {worst_abs:.3e} (tolerance {abs_tol:.0e}), rel err "
          f"{worst_rel:.3e} (tolerance {rel_tol:.0e}): {'ok' if res['ok'] else 'FAILED'}", flush=True)
  return rows + [res]

SWEEP_SHAPES = [(16384 // N, 2048 // D, N, D, causal) for D in (64, 128) for causal in (False, True) for N in (1024, 4096, 16384)]
# the decode grid: batch, cache length, (H, Hkv) at D=128, where K and V fit in 9 GB
DECODE_SWEEP = [(B, Nk, H, Hkv) for H, Hkv in ((32, 8), (32, 32)) for B in (1, 8, 64) for Nk in (1024, 8192, 32768, 131072)
                if 2 * B * Hkv * Nk * 128 * 2 <= 9 << 30 and str(Hkv) in getenv("SWEEP_HKV", "8,32").split(",")]

def plot(rows:list[dict], path:str, x:str="N", y:str="tflops", panel=lambda r: f"D={r['D']} {'causal' if r['causal'] else 'full'}") -> bool:
  """y against x (log 2), a line per implementation, a panel per panel(row); False where matplotlib is missing"""
  try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
  except ImportError: return False
  panels = list(dict.fromkeys(panel(r) for r in rows))
  fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), squeeze=False)
  for ax, name in zip(axes[0], panels):
    for impl in dict.fromkeys(r["impl"] for r in rows):
      pts = sorted((r[x], r[y]) for r in rows if r["impl"] == impl and panel(r) == name)
      if pts: ax.plot(*zip(*pts), marker="o", label=impl)
    ax.set_xscale("log", base=2); ax.set_xlabel(x); ax.set_ylabel(y); ax.set_title(name)
    ax.grid(alpha=.3); ax.legend(fontsize=8)
  fig.suptitle(f"attention {rows[0].get('mode', 'fwd')}, {rows[0]['dtype']}, {DEV}"); fig.tight_layout(); fig.savefig(path, dpi=120)
  return True

def sweep_decode(dtype_name:str, cnt:int, verify:bool, peers, page:int) -> int:
  """DECODE_SWEEP, one new query, D=128: a table of GB/s with fa_uop ÷ FA2, JSON lines and a plot under OUT"""
  out = getenv("OUT", "out")
  os.makedirs(out, exist_ok=True)
  rows = []
  for B, Nk, H, Hkv in DECODE_SWEEP: rows += measure_decode(B, H, Hkv, 1, Nk, 128, False, page, dtype_name, cnt, verify, peers)
  with open(f"{out}/sweep_decode_{dtype_name}.jsonl", "w") as f: f.writelines(json.dumps(r) + "\n" for r in rows)
  print(f"\n| B | Nk | H | Hkv | fa_uop GB/s | splits | " + " | ".join(f"{p} GB/s" for p in peers) + " | fa_uop ÷ FA2 | ok |")
  print("|" + "---|" * (8 + len(peers)))
  for B, Nk, H, Hkv in DECODE_SWEEP:
    got = {r["impl"]: r for r in rows if (r["B"], r["Nk"], r["H"], r["Hkv"]) == (B, Nk, H, Hkv)}
    f = got["fa_uop"]
    ratio = f"{f['gbps'] / got['torch_flash']['gbps']:.2f}" if "torch_flash" in got else "–"
    print(f"| {B} | {Nk} | {H} | {Hkv} | {f['gbps']:.0f} | {f['splits']} | " + " | ".join(f"{got[p]['gbps']:.0f}" if p in got else "–" for p in peers) +
          f" | {ratio} | {f['ok']} |")
  shown = plot(rows, f"{out}/sweep_decode_{dtype_name}.png", x="Nk", y="gbps", panel=lambda r: f"B={r['B']} H={r['H']} Hkv={r['Hkv']}")
  print(f"decode: rows in {out}/sweep_decode_{dtype_name}.jsonl" + (f", plot {out}/sweep_decode_{dtype_name}.png" if shown else " (no matplotlib: no plot)"))
  return 0 if all(r["ok"] is not False for r in rows) else 1

def run_modes(modes:list[str], B, H, Hkv, N, Nk, D, case:Case, dtype_name, cnt, verify, peers) -> list[dict]:
  rows = []
  for m in modes:
    if m == "fwd": rows += measure(B, H, Hkv, N, Nk, D, case, dtype_name, cnt, verify, peers)
    elif m in ("bwd", "fwdbwd"): rows += measure_bwd(B, H, Hkv, N, Nk, D, case, dtype_name, cnt, verify, peers, m == "fwdbwd")
    else: raise ValueError(f"MODE must be fwd, bwd or fwdbwd (a comma list), or decode, got {m!r}")
  return rows

def sweep(modes:list[str], dtype_name:str, cnt:int, verify:bool, peers) -> int:
  out = getenv("OUT", "out")
  os.makedirs(out, exist_ok=True)
  rows = []
  for B, H, N, D, causal in SWEEP_SHAPES: rows += run_modes(modes, B, H, H, N, N, D, Case(causal), dtype_name, cnt, verify, peers)
  with open(f"{out}/sweep_{dtype_name}.jsonl", "w") as f: f.writelines(json.dumps(r) + "\n" for r in rows)
  print(f"\n| mode | D | N | B | H | causal | fa_uop TFLOPS | config | " + " | ".join(f"{p} TFLOPS" for p in peers) + " | fa_uop ÷ FA2 | ok |")
  print("|" + "---|" * (9 + len(peers)))
  for m in modes:
    for B, H, N, D, causal in SWEEP_SHAPES:
      got = {r["impl"]: r for r in rows if (r["mode"], r["N"], r["D"], r["causal"]) == (m, N, D, causal)}
      f = got["fa_uop"]
      ratio = f"{f['tflops'] / got['torch_flash']['tflops']:.2f}" if "torch_flash" in got else "–"
      print(f"| {m} | {D} | {N} | {B} | {H} | {causal} | {f['tflops']:.1f} | {f.get('config', '–')} | " +
            " | ".join(f"{got[p]['tflops']:.1f}" if p in got else "–" for p in peers) + f" | {ratio} | {f['ok']} |")
  for m in modes:
    mrows = [r for r in rows if r["mode"] == m]
    shown = plot(mrows, f"{out}/sweep_{dtype_name}_{m}.png")
    print(f"{m}: rows in {out}/sweep_{dtype_name}.jsonl" + (f", plot {out}/sweep_{dtype_name}_{m}.png" if shown else " (no matplotlib: no plot)"))
  return 0 if all(r["ok"] is not False for r in rows) else 1

def main() -> int:
  cnt, dtype_name, verify = conf("CNT"), getenv("DTYPE", "half"), bool(getenv("VERIFY", 1))
  peers = [p for p in getenv("PEERS", ",".join(FP8_PEERS if dtype_name in FP8 else PEERS)).split(",") if p]
  modes = [m for m in getenv("MODE", "fwd").split(",") if m]
  if dtype_name in FP8 and (modes != ["fwd"] or getenv("SWEEP", 0) or getenv("NQ", 0)): sys.exit(f"DTYPE={dtype_name} times the forward only (MODE=fwd)")
  B, H, N, D = conf("B"), conf("H"), conf("N"), conf("D")
  if "decode" in modes:
    if modes != ["decode"]: raise ValueError(f"MODE=decode runs alone, got {modes}")
    if getenv("SWEEP", 0): return sweep_decode(dtype_name, cnt, verify, peers, getenv("PAGE", 0))
    cfg = FwdConfig.parse(c) if (c:=getenv("CONFIG", "")) else None
    rows = measure_decode(B, H, getenv("HKV", DEFAULTS.get("HKV", H)), getenv("NQ", 1), getenv("NK", N), D, bool(getenv("CAUSAL", 0)),
                          getenv("PAGE", 0), dtype_name, cnt, verify, peers, getenv("NUM_SPLITS", 0), cfg)
  elif getenv("SWEEP", 0): return sweep(modes, dtype_name, cnt, verify, peers)
  else: rows = run_modes(modes, B, H, getenv("HKV", DEFAULTS.get("HKV", H)), N, getenv("NK", N), D, case_from_env(), dtype_name, cnt,
                         verify, peers)
  if getenv("JSON", 0):
    for r in rows: print(json.dumps(r))
  return 0 if all(r["ok"] is not False for r in rows) else 1

if __name__ == "__main__": sys.exit(main())
