#!/usr/bin/env python3
"""Train a small causal transformer block twice from the same initial weights and batches: once with fa_uop's flash attention,
once with tinygrad's own scaled_dot_product_attention, and print both losses side by side.

The task needs attention: each sequence repeats a random pattern of PERIOD tokens, so every token after the first period is
predictable only by looking back PERIOD positions. Loss starts near ln(VOCAB) and falls toward (PERIOD-1)/(T-1)·ln(VOCAB) (the
first period stays random) as the block learns to attend there and copy.

  python examples/train_block.py                  # on the GPU tinygrad picks (few hundred steps)
  DEV=PYTHON::sm_80 python examples/train_block.py  # on the emulator: tiny sizes, 2 steps, ~15 min (every kernel is emulated)
env: STEPS B T DIM HEADS VOCAB PERIOD LR DTYPE (half or bfloat16) JIT (1: TinyJit the step, as training loops do), DEVICES (n > 1:
a third run with fa_uop, data-parallel over n devices of the default kind: the batch sharded, the weights replicated, from the
same initial weights, so its losses sit beside the single-device run's), SHARD (batch, or seq: that run sequence-parallel instead,
each sequence over the devices in zigzag order (fa_uop.shard.zigzag), its position embeddings at the rows' positions, attention
by the ring).

  DEVICES=2 python examples/train_block.py       # on two GPUs
  DEVICES=2 SHARD=seq python examples/train_block.py   # context parallelism on two GPUs
"""
import math, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np
from tinygrad import Tensor, TinyJit, Device, Context, dtypes, nn
from tinygrad.helpers import getenv
from fa_uop import flash_attention, shard

EMULATED = Device.DEFAULT.startswith("PYTHON")
STEPS, B, T = getenv("STEPS", 2 if EMULATED else 300), getenv("B", 2 if EMULATED else 32), getenv("T", 32 if EMULATED else 128)
DIM, HEADS, VOCAB = getenv("DIM", 32 if EMULATED else 128), getenv("HEADS", 2), getenv("VOCAB", 16 if EMULATED else 64)
PERIOD, JIT, DEVICES = getenv("PERIOD", 8 if EMULATED else 16), getenv("JIT", 0 if EMULATED else 1), getenv("DEVICES", 1)
LR, DTYPE = getenv("LR", 3e-3), {"half": dtypes.half, "bfloat16": dtypes.bfloat16}[getenv("DTYPE", "half")]
SEQ = getenv("SHARD", "batch") == "seq"

def fa_uop_attn(q:Tensor, k:Tensor, v:Tensor) -> Tensor: return flash_attention(q, k, v, causal=True)
def sdpa_attn(q:Tensor, k:Tensor, v:Tensor) -> Tensor: return q.scaled_dot_product_attention(k, v, is_causal=True)
def ring_attn(q:Tensor, k:Tensor, v:Tensor) -> Tensor: return flash_attention(q, k, v, causal=True, layout="zigzag")

class Block:
  """token and position embeddings, one pre-norm attention + MLP block, a language-model head"""
  def __init__(self):
    self.tok, self.pos = nn.Embedding(VOCAB, DIM), nn.Embedding(T, DIM)
    self.ln1, self.ln2, self.lnf = nn.LayerNorm(DIM), nn.LayerNorm(DIM), nn.LayerNorm(DIM)
    self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
    self.fc1, self.fc2, self.head = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM), nn.Linear(DIM, VOCAB)

  def __call__(self, idx:Tensor, attn) -> Tensor:
    # whole on each device; sequence-parallel, each device's rows' positions (zigzag's)
    pos = Tensor.arange(T) if isinstance(idx.device, str) else shard.positions(idx.device, T, "zigzag") if SEQ else Tensor.arange(T).shard(idx.device)
    x = self.tok(idx) + self.pos(pos)
    # (B, T, 3, H, D) -> three (B, H, T, D); attention runs in DTYPE as a mixed-precision model would, the rest in float32
    q, k, v = self.qkv(self.ln1(x)).reshape(B, T, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4).cast(DTYPE)
    x = x + self.proj(attn(q, k, v).float().transpose(1, 2).reshape(B, T, DIM))
    x = x + self.fc2(self.fc1(self.ln2(x)).gelu())
    return self.head(self.lnf(x))

def batches() -> list[np.ndarray]:
  rng = np.random.default_rng(0)
  pattern = rng.integers(0, VOCAB, (STEPS, B, PERIOD))
  return list(np.tile(pattern, (1, 1, -(-T // PERIOD)))[..., :T].astype(np.int32))

def train(attn, data:list[np.ndarray], devices:int=1) -> list[float]:
  Tensor.manual_seed(0)
  model = Block()
  params = nn.state.get_parameters(model)
  Tensor.realize(*params)  # draw the weights now, so both runs start from the same ones whatever else uses the random stream
  devs = tuple(f"{Device.DEFAULT}:{i}" for i in range(devices)) if devices > 1 else None
  if devs:  # data-parallel: the weights whole on every device (tinygrad sums their gradients over the shards), the batch sharded
    for p in params: p.shard_(devs).realize()
  opt = nn.optim.AdamW(params, lr=LR)
  def step(x:Tensor, y:Tensor) -> Tensor:
    loss = model(x, attn).sparse_categorical_crossentropy(y, ignore_index=-1)
    opt.zero_grad()
    loss.backward()
    return loss.realize(*opt.schedule_step())
  if JIT: step = TinyJit(step)
  losses = []
  with Context(TRAINING=1):
    for seq in data:
      # predict token t+1 from tokens ..t; the last position has no target (-1 is ignored)
      x, y = Tensor(seq[:, :-1].copy()).pad(((0, 0), (0, 1))), Tensor(seq[:, 1:].copy()).pad(((0, 0), (0, 1)), value=-1)
      if devs: x, y = (shard.zigzag(t, devs, axis=1) for t in (x, y)) if SEQ else (x.shard(devs, axis=0), y.shard(devs, axis=0))
      loss = step(x.realize(), y.realize())
      # the loss is whole on every device: read the first one's (reading the multi-device tensor would gather it on tinygrad's CPU
      # device, which needs a C compiler there)
      losses.append((loss.to(devs[0]) if devs else loss).item())
  return losses

def main() -> int:
  assert (DIM // HEADS) % 16 == 0, "fa_uop takes head dims that are multiples of 16"
  data = batches()
  print(f"{Device.DEFAULT}: {STEPS} steps, B={B} T={T} dim={DIM} heads={HEADS} vocab={VOCAB} {DTYPE.name} attention, period {PERIOD}, AdamW lr={LR}, jit={JIT}")
  runs = {}
  for name, attn, n in (("fa_uop", fa_uop_attn, 1), ("tinygrad", sdpa_attn, 1)) + (((f"fa_uop x{DEVICES}", ring_attn if SEQ else fa_uop_attn, DEVICES),) if DEVICES > 1 else ()):
    st = time.perf_counter()
    runs[name] = train(attn, data, n)
    print(f"{name}: {time.perf_counter() - st:.1f} s")
  print(f"{'step':>5} " + " ".join(f"{n:>11}" for n in runs) + f"   (ln VOCAB = {math.log(VOCAB):.3f}, copy solved = {(PERIOD - 1) / (T - 1) * math.log(VOCAB):.3f})")
  for i in sorted({*range(0, STEPS, max(1, STEPS // 15)), STEPS - 1}): print(f"{i:5d} " + " ".join(f"{r[i]:11.4f}" for r in runs.values()))
  a, b = np.array(runs["fa_uop"]), np.array(runs["tinygrad"])
  print(f"largest |loss difference| {np.abs(a - b).max():.4f}; last-10 mean loss fa_uop {a[-10:].mean():.4f}, tinygrad {b[-10:].mean():.4f}")
  ok = np.isfinite(a).all() and a[-1] < a[0]
  if DEVICES > 1:
    c = np.array(runs[f"fa_uop x{DEVICES}"])
    print(f"{'sequence' if SEQ else 'data'}-parallel over {DEVICES} devices: largest |loss difference| to one device {np.abs(a - c).max():.4f}, last-10 mean {c[-10:].mean():.4f}")
    ok = ok and np.isfinite(c).all() and c[-1] < c[0]
  return 0 if ok else 1

if __name__ == "__main__": sys.exit(main())
