import functools, importlib.util, os
import pytest
from tinygrad import Context
from fa_uop import FwdConfig
from conftest import all_targets, slow_on

def load_example():
  spec = importlib.util.spec_from_file_location("embed", os.path.join(os.path.dirname(__file__), "..", "examples", "embed.py"))
  mod = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(mod)
  return mod

# two sentences of 9 and 11 tokens: one padded, one not, in one 16-row tile
SENTENCES = ["A man is playing a guitar.", "Someone strums a guitar on stage."]

@pytest.fixture(scope="module")
def minilm():
  """the example, its weights on tinygrad's CPU device, the sentences' tokens, and the embeddings of the references: tinygrad's
  SDPA with the explicit mask, the same without a mask, and float64 numpy"""
  if importlib.util.find_spec("tokenizers") is None or (importlib.util.find_spec("all_minilm_l6_v2") is None and "MINILM_DIR" not in os.environ):
    (pytest.fail if os.environ.get("CI") else pytest.skip)("the model's packages are missing: bash scripts/setup.sh installs them")
  ex = load_example()
  w, tok = ex.load("CPU")
  ids, lengths = ex.tokenize(tok, SENTENCES)
  assert ids.shape == (2, 11) and lengths.tolist() == [9, 11], (ids.shape, lengths)
  with Context(NOOPT=1):   # tinygrad's CPU kernels compile several times faster unoptimised, and these are tiny
    refs = {name: ex.embed(w, ids, lengths, attn, "CPU") for name, attn in (("sdpa", ex.sdpa_attn), ("unmasked", ex.unmasked_attn))}
  return ex, w, ids, lengths, refs, ex.embed_numpy(w, ids, lengths)

def test_padding_matters(minilm):
  """the check can fail: attending to the padding moves the padded sentence's embedding past the tolerance, the other not at all"""
  ex, _, _, _, refs, f64 = minilm
  assert (ex.agreement(refs["sdpa"], f64) >= 0.9999).all(), ex.agreement(refs["sdpa"], f64)
  cos = ex.agreement(refs["unmasked"], refs["sdpa"])
  assert cos[0] < 0.999 and cos[1] > 0.99999, cos

# on sm_80 by default (CI time); the key-padding mask_mod on every target by test_mods.py, the model on gfx1100 and the newer targets
# with FA_UOP_SLOW=1
@slow_on("gfx1100")
@all_targets(keep=lambda p: False)
def test_embed_matches_sdpa(emu, minilm):
  """examples/embed.py's model with fa_uop's key-padding mask_mod (attention on the emulated target, the rest on the CPU device)
  gives each sentence the embedding tinygrad's SDPA with an explicit mask gives, and float64 numpy's similarity"""
  ex, w, ids, lengths, refs, f64 = minilm
  # the smallest tile, one warp of 16 rows: the emulator's time goes with the warps it runs, and 11 tokens fit one tile
  attn = functools.partial(ex.fa_uop_attn, config=FwdConfig(16, 16, 1))
  with Context(NOOPT=1): fa = ex.embed(w, ids, lengths, attn, "PYTHON")
  cos = ex.agreement(fa, refs["sdpa"])
  assert (cos >= 0.999).all(), f"{emu}: cosine with tinygrad SDPA's embeddings {cos}"
  assert (ex.agreement(fa, f64) >= 0.999).all() and abs((fa @ fa.T)[0, 1] - (f64 @ f64.T)[0, 1]) < 2e-3, (emu, fa @ fa.T, f64 @ f64.T)
  print(f"{emu}: cosine with SDPA {cos}, with float64 {ex.agreement(fa, f64)}")
