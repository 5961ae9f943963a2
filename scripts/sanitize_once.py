"""One kernel family at small tail shapes, checked against float64, for compute-sanitizer's tools (scripts/sanitize.sh):
  python3 scripts/sanitize_once.py FAMILY   FAMILY: a forward config (64x64x4, 64x64x4t, 64x64x4tr2, ...), bwd (autograd: delta, dK/dV,
  dQ), mask (a document mask_mod: the block map's four kernels, the forward and backward through it), decode, paged (split decoding,
  its combine, the cache write), split (flash_attention at a decode shape: its split-KV path and gradients)."""
import sys
import numpy as np
from tinygrad import Tensor, dtypes
from fa_uop import flash_attention, flash_attention_with_kvcache, write_kvcache, FwdConfig
from fa_uop.reference import attention_ref, attention_bwd_ref, kvcache_ref

fam, r = sys.argv[1], np.random.default_rng(0)
rand = lambda *s: Tensor(r.standard_normal(s).astype(np.float32)).cast(dtypes.half).contiguous().realize()
host = lambda t: t.float().numpy().astype(np.float64)
def report(name:str, got, want, tol:float=2e-2) -> None:
  err = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
  print(f"{fam} {name}: max abs err {err:.2e} {'ok' if err < tol else 'BAD'}", flush=True)

if fam in ("bwd", "mask", "split"):
  Nq, Nk = (3, 1100) if fam == "split" else (200, 333)
  q, k, v, do = rand(1, 4, Nq, 64), rand(1, 2, Nk, 64), rand(1, 2, Nk, 64), rand(1, 4, Nq, 64)
  doc = np.sort(r.integers(0, 3, (1, max(Nq, Nk)))).astype(np.int32)
  kw = dict(mask_mod=lambda b, h, qi, kj, d: d[b, qi].eq(d[b, kj]), mod_args=(Tensor(doc),)) if fam == "mask" else {}
  keep = (doc[:, None, :Nq, None] == doc[:, None, None, :Nk]) if fam == "mask" else None
  for causal in (False, True):
    for t in (q, k, v): t.requires_grad = True
    o = flash_attention(q, k, v, causal=causal, **kw)
    grads = (o.float() * do.float()).sum().gradient(q, k, v)
    qn, kn, vn = host(q), host(k), host(v)
    report(f"causal={causal} forward", [host(o)], [attention_ref(qn, kn, vn, causal, keep=keep)[0]])
    report(f"causal={causal} backward", [host(g) for g in grads], attention_bwd_ref(qn, kn, vn, host(do), causal, keep=keep), 5e-2)
elif fam in ("decode", "paged"):
  B, Hkv, Nmax, P = 3, 2, 640, 64
  table = r.permutation(B * Nmax // P + 2)[:B * Nmax // P].reshape(B, Nmax // P).astype(np.int32) if fam == "paged" else None
  shape = (B * Nmax // P + 2, Hkv, P, 128) if table is not None else (B, Hkv, Nmax, 128)
  kc, vc = rand(*shape), rand(*shape)
  lens = np.array([1, 333, Nmax - 2], np.int32)
  bt = Tensor(table) if table is not None else None
  kc2, vc2 = write_kvcache(kc, vc, rand(B, Hkv, 2, 128), rand(B, Hkv, 2, 128), Tensor(lens), block_table=bt)
  Tensor.realize(kc2, vc2)
  for splits in (1, 4):
    q = rand(B, 8, 2, 128)
    o, lse = flash_attention_with_kvcache(q, kc, vc, Tensor(lens + 2), block_table=bt, causal=True, num_splits=splits, return_lse=True)
    ref_o, ref_lse = kvcache_ref(host(q), host(kc), host(vc), lens + 2, table, True)
    report(f"splits={splits}", [host(o), np.where(np.isneginf(ref_lse), 0, lse.numpy())], [ref_o, np.where(np.isneginf(ref_lse), 0, ref_lse)])
else:
  cfg = FwdConfig.parse(fam)
  q, k, v = rand(1, 2, 200, 128), rand(1, 1, 500, 128), rand(1, 1, 500, 128)
  for causal in (False, True):
    o, lse = flash_attention(q, k, v, causal=causal, return_lse=True, config=cfg)
    ref_o, ref_lse = attention_ref(host(q), host(k), host(v), causal)
    report(f"causal={causal}", [host(o), lse.numpy()], [ref_o, ref_lse])
