"""The tuner, opt-in (FA_UOP_TUNE=1): on the first use of a shape class it times every candidate config on random inputs of that
shape and keeps the fastest in a JSON file, keyed by target, tinygrad version, dtype and shape class; FA_UOP_CACHE names the file
(default ~/.cache/fa_uop/tune.json). Timing 15 candidates takes 20-56 s on an H100, a first call nobody should wait for: by default
the config comes from the table of the tuner's picks measured per target (fa_uop.tuned, fa_uop.config.default_fwd_config), and the
emulator never tunes."""
from __future__ import annotations
import dataclasses, functools, json, os, tempfile
from importlib.metadata import version
import numpy as np
from tinygrad import Tensor
from tinygrad.dtype import DType
from fa_uop.config import FwdConfig, candidates, default_fwd_config, shape_class
from fa_uop.target import Target
from fa_uop.timing import event_time

def cache_path() -> str: return os.environ.get("FA_UOP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "fa_uop", "tune.json")
def enabled(device:str) -> bool: return os.environ.get("FA_UOP_TUNE", "0") == "1" and not device.startswith("PYTHON")

def _load() -> dict:
  try:
    with open(cache_path()) as f: return json.load(f)
  except (OSError, ValueError): return {}

def _save(entries:dict) -> None:
  path = cache_path()
  os.makedirs(os.path.dirname(path), exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))  # write then rename: a reader never sees half a file
  with os.fdopen(fd, "w") as f: json.dump(entries, f, indent=1, sort_keys=True)
  os.replace(tmp, path)

def key(target:Target, dtype:DType, d:int, nq:int, nk:int, causal:bool, mods:str="") -> str:
  return f"{target.arch}|tinygrad {version('tinygrad')}|{dtype.name}|{shape_class(d, nq, nk, causal, mods)}"

# the tuned choice per key, for this process (the file is read once per key)
_chosen: dict[str, FwdConfig] = {}

def fwd_config(target:Target, device:str, shape:tuple[int, ...], nk:int, hkv:int, dtype:DType, causal:bool, scale:float|None,
               run, mods:str="") -> FwdConfig:
  """the config for this forward call: tuned (timing run(cfg, q, k, v) on random inputs) where tuning is on, else the default"""
  B, H, Nq, D = shape
  if not enabled(device): return default_fwd_config(target, D, causal, Nq, nk, mods)
  k_ = key(target, dtype, D, Nq, nk, causal, mods)
  if k_ in _chosen: return _chosen[k_]
  if (hit:=_load().get(k_)) is not None: cfg = FwdConfig(**hit["config"])
  else:
    # inputs from a private generator: tinygrad's Tensor.randn would advance the caller's random stream (a model initialised
    # lazily before its first forward would then get other weights than without the tuner)
    rng = np.random.default_rng(0)
    q, k, v = [Tensor(rng.standard_normal(s, dtype=np.float32), device=device).cast(dtype).contiguous().realize()
               for s in ((B, H, Nq, D), (B, hkv, nk, D), (B, hkv, nk, D))]
    # each candidate's kernels between two events, L2 flushed (event_time): per-kernel times would count each launch's host latency,
    # which charged a bulk-copy config's one-thread tensor-map kernel 61 us on the H200 (docs/runs/2026-11-28g_short/)
    times = {c: event_time(functools.partial(run, c, q, k, v), 5, device)[0] for c in candidates(target, D, mods)}
    cfg = min(times, key=times.get)
    entries = _load()
    entries[k_] = {"config": dataclasses.asdict(cfg),
                   "ms": {str(c): round(t * 1e3, 4) for c, t in times.items()}, "shape": [B, H, hkv, Nq, nk, D]}
    _save(entries)
  _chosen[k_] = cfg
  return cfg
