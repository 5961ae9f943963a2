import importlib.util, os
import numpy as np
from tinygrad import Context

def load_example():
  spec = importlib.util.spec_from_file_location("generate", os.path.join(os.path.dirname(__file__), "..", "examples", "generate.py"))
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod

def test_generate_matches_sdpa(emu, rng, monkeypatch):
  """examples/generate.py at its tiny size: prefill with flash_attention, decode under TinyJit with flash_attention_with_kvcache,
  against the same model on tinygrad's SDPA with explicit masks: the same greedy tokens, and close logits at every step"""
  monkeypatch.setenv("DEV", f"PYTHON::{emu}")
  gen = load_example()
  r, seed = rng
  size = gen.SIZES["tiny"]
  with Context(NOOPT=1):  # tinygrad's own kernels (the model's matmuls) run faster on the emulator unoptimised
    model = gen.Model(**size, seed=seed)
    prompts = [list(r.integers(0, size["vocab"], n)) for n in (3, 6)]
    a, la, *_ = gen.generate(model, prompts, 3, gen.fa_prefill, gen.fa_step)
    b, lb, *_ = gen.generate(model, prompts, 3, gen.sdpa_prefill, gen.sdpa_step)
  assert a.shape == (2, 3) and (a == b).all(), f"tokens {a.tolist()} vs {b.tolist()} (seed {seed})"
  assert np.abs(la - lb).max() <= 1e-2 * np.abs(lb).max(), f"logits differ by {np.abs(la - lb).max():.2e} (seed {seed})"
