import numpy as np, pytest
from tinygrad import Tensor, dtypes
import fa_uop, fa_uop.api
from fa_uop import flash_attention, flash_attention_backward, flash_attention_with_kvcache, FwdConfig, BwdConfig
from fa_uop.reference import attention_ref
from conftest import qkv, TOL, host, slow_on

def t(*shape, dtype=dtypes.half, device="PYTHON"): return Tensor.empty(*shape, dtype=dtype, device=device)

BAD = [
  (lambda: (np.zeros((1, 1, 4, 32)), t(1, 1, 4, 32), t(1, 1, 4, 32)), {}, TypeError, "q must be a tinygrad Tensor"),
  (lambda: (t(1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), {}, ValueError, "q must have rank 4"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 1, 4, 32), t(1, 1, 4, 32)), {}, ValueError, "k must have rank 4"),
  (lambda: (t(1, 1, 4, 32, dtype=dtypes.float32), t(1, 1, 4, 32), t(1, 1, 4, 32)), {}, TypeError, "q must be float16 or bfloat16"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32, dtype=dtypes.bfloat16), t(1, 1, 4, 32)), {}, TypeError, "share a dtype"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 5, 32)), {}, ValueError, "v must have k's shape"),
  (lambda: (t(2, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), {}, ValueError, "batch"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 64), t(1, 1, 4, 64)), {}, ValueError, "head dim 64, q has head dim 32"),
  (lambda: (t(1, 3, 4, 32), t(1, 2, 4, 32), t(1, 2, 4, 32)), {}, ValueError, "multiple of k's and v's heads"),
  (lambda: (t(1, 1, 0, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), {}, ValueError, "empty attention"),
  (lambda: (t(1, 1, 4, 40), t(1, 1, 4, 40), t(1, 1, 4, 40)), {}, ValueError, "head dim D=40 is not supported"),
  (lambda: (t(1, 1, 4, 272), t(1, 1, 4, 272), t(1, 1, 4, 272)), {}, ValueError, "head dim D=272 is not supported"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32, device="CPU"), t(1, 1, 4, 32)), {}, ValueError, "one device"),
  (lambda: (t(1, 1, 4, 32, device="CPU"), t(1, 1, 4, 32, device="CPU"), t(1, 1, 4, 32, device="CPU")), {}, ValueError, "has no fa_uop target"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), dict(causal=1), TypeError, "causal must be a bool"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), dict(scale=float("nan")), TypeError, "scale must be a finite float"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), dict(scale="0.1"), TypeError, "scale must be a finite float"),
  (lambda: (t(1, 1, 4, 32), t(1, 1, 4, 32), t(1, 1, 4, 32)), dict(config=FwdConfig(48, 32, 2)), ValueError, "block_m=48 must split"),
]

@pytest.mark.parametrize("make,kw,exc,msg", BAD, ids=[b[3] for b in BAD])
def test_bad_input(emu, no_kernel, make, kw, exc, msg):
  with pytest.raises(exc, match=msg): flash_attention(*make(), **kw)

def _bwd_args(**over):
  a = dict(q=t(1, 2, 8, 32), k=t(1, 1, 8, 32), v=t(1, 1, 8, 32), o=t(1, 2, 8, 32), lse=t(1, 2, 8, dtype=dtypes.float32), do=t(1, 2, 8, 32))
  return {**a, **over}

BAD_BWD = [
  (dict(o=t(1, 2, 9, 32)), ValueError, "o must have shape"),
  (dict(do=t(1, 1, 8, 32)), ValueError, "do must have shape"),
  (dict(lse=t(1, 2, 8, 1, dtype=dtypes.float32)), ValueError, "lse must have shape"),
  (dict(dlse=t(1, 2, 7, dtype=dtypes.float32)), ValueError, "dlse must have shape"),
  (dict(do=np.zeros((1, 2, 8, 32))), TypeError, "do must be a tinygrad Tensor"),
  (dict(lse=t(1, 2, 8, dtype=dtypes.int32)), TypeError, "lse must be a float tensor"),
  (dict(o=t(1, 2, 8, 32, device="CPU")), ValueError, "o must be on q's device"),
  (dict(k=t(1, 1, 8, 48), v=t(1, 1, 8, 48)), ValueError, "head dim"),
  (dict(configs=(BwdConfig(64, 32, 4),)), TypeError, "configs must be a pair"),
  (dict(configs=(BwdConfig(48, 32, 4), BwdConfig(64, 32, 4))), ValueError, "block_m=48"),
  (dict(configs=(BwdConfig(32, 32, 4, split=3), BwdConfig(64, 32, 4))), ValueError, "split=3 must be a power of two"),
  (dict(configs=(BwdConfig(32, 16, 4, split=2), BwdConfig(64, 32, 4))), ValueError, "must split into columns of 16"),
]

@pytest.mark.parametrize("over,exc,msg", BAD_BWD, ids=[b[2] for b in BAD_BWD])
def test_bad_backward_input(emu, no_kernel, over, exc, msg):
  with pytest.raises(exc, match=msg): flash_attention_backward(**_bwd_args(**over))

@pytest.mark.parametrize("causal", [False, True])
@slow_on("gfx1100", keep=lambda p: p["causal"])   # gfx1100's non-causal with FA_UOP_SLOW=1 (CI time)
def test_api_matches_reference(emu, rng, causal):
  """the public function end to end: GQA, tails, return_lse, and a non-contiguous (transposed) query"""
  r, seed = rng
  (qn, kn, vn), (q, k, v) = qkv(r, 1, 4, 2, 37, 45, 32, dtypes.half)
  qt = q.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3)  # a strided view of the same values
  o, lse = flash_attention(qt, k, v, causal=causal, return_lse=True)
  assert o.shape == (1, 4, 37, 32) and o.dtype == dtypes.half and lse.shape == (1, 4, 37) and lse.dtype == dtypes.float32
  ref_o, ref_lse = attention_ref(qn, kn, vn, causal)
  o = host(o)
  assert np.abs(o - ref_o).max() <= TOL[dtypes.half]["abs"], f"seed {seed}"
  assert np.abs(lse.numpy() - ref_lse).max() <= TOL[dtypes.half]["lse"], f"seed {seed}"
  assert not isinstance(flash_attention(q, k, v), tuple)

def _kv_args(**over):
  a = dict(q=t(2, 4, 1, 32), k_cache=t(2, 2, 64, 32), v_cache=t(2, 2, 64, 32), cache_seqlens=t(2, dtype=dtypes.int32))
  return {**a, **over}

PAGED = dict(k_cache=t(9, 2, 16, 32), v_cache=t(9, 2, 16, 32), block_table=t(2, 4, dtype=dtypes.int32))
BAD_KV = [
  (dict(q=t(2, 4, 32)), ValueError, "q must have rank 4"),
  (dict(k_cache=t(2, 2, 64)), ValueError, "k_cache must have rank 4"),
  (dict(v_cache=t(2, 2, 64, 32, dtype=dtypes.bfloat16)), TypeError, "q, k_cache and v_cache must share a dtype"),
  (dict(q=t(2, 4, 1, 32, dtype=dtypes.float32)), TypeError, "q must be float16 or bfloat16"),
  (dict(v_cache=t(2, 2, 60, 32)), ValueError, "v_cache must have k_cache's shape"),
  (dict(k_cache=t(3, 2, 64, 32), v_cache=t(3, 2, 64, 32)), ValueError, "k_cache has batch 3"),
  (dict(q=t(2, 3, 1, 32)), ValueError, "multiple of k_cache's and v_cache's heads"),
  (dict(q=t(2, 4, 1, 40), k_cache=t(2, 2, 64, 40), v_cache=t(2, 2, 64, 40)), ValueError, "head dim D=40"),
  (dict(q=t(2, 4, 1, 32, device="CPU")), ValueError, "one device"),
  (dict(cache_seqlens=np.zeros(2, dtype=np.int32)), TypeError, "cache_seqlens must be a tinygrad Tensor"),
  (dict(cache_seqlens=t(2)), TypeError, "cache_seqlens must be an integer Tensor"),
  (dict(cache_seqlens=t(2, 1, dtype=dtypes.int32)), ValueError, "cache_seqlens must have shape"),
  (dict(cache_seqlens=t(3, dtype=dtypes.int32)), ValueError, "cache_seqlens must have shape"),
  (dict(cache_seqlens=t(2, dtype=dtypes.int32, device="CPU")), ValueError, "cache_seqlens must be on q's device"),
  (dict(PAGED, block_table=t(2, 4)), TypeError, "block_table must be an integer Tensor"),
  (dict(PAGED, block_table=t(3, 4, dtype=dtypes.int32)), ValueError, "block_table must have shape"),
  (dict(PAGED, block_table=t(8, dtype=dtypes.int32)), TypeError, "block_table must be a \\(B, max_pages\\)"),
  (dict(PAGED, block_table=[[0, 1]]), TypeError, "block_table must be a \\(B, max_pages\\)"),
  (dict(PAGED, k_cache=t(9, 2, 24, 32), v_cache=t(9, 2, 24, 32)), ValueError, "page_size .* multiple of 16"),
  (dict(causal=None), TypeError, "causal must be a bool"),
  (dict(scale=float("inf")), TypeError, "scale must be a finite float"),
  (dict(num_splits=-1), ValueError, "num_splits must be an int >= 0"),
  (dict(num_splits=2.0), ValueError, "num_splits must be an int >= 0"),
  (dict(config=(16, 64, 1)), TypeError, "config must be a FwdConfig"),
  (dict(config=FwdConfig(24, 64, 1)), ValueError, "block_m=24 must split"),
]

@pytest.mark.parametrize("over,exc,msg", BAD_KV, ids=[b[2] for b in BAD_KV])
def test_bad_kvcache_input(emu, no_kernel, over, exc, msg):
  with pytest.raises(exc, match=msg): flash_attention_with_kvcache(**_kv_args(**over))

def _grad_tensor():
  x = t(4, dtype=dtypes.float32)
  x.requires_grad = True
  return x

BAD_MODS = [
  (dict(window=5), TypeError, "window must be a pair"),
  (dict(window=(1, 2, 3)), TypeError, "window must be a pair"),
  (dict(window=(-1, None)), ValueError, "window's left side must be >= 0"),
  (dict(window=(None, 2.5)), TypeError, "window's right side must be an int"),
  (dict(softcap=0.0), ValueError, "softcap must be a finite float > 0"),
  (dict(softcap=float("inf")), ValueError, "softcap must be a finite float > 0"),
  (dict(softcap="30"), TypeError, "softcap must be a float"),
  (dict(score_mod=3), TypeError, "score_mod must be callable"),
  (dict(score_mod=lambda s, b, h, q, kv: s > 0), TypeError, "score_mod must return a float UOp"),
  (dict(score_mod=lambda s, b, h, q, kv: 1.0), TypeError, "score_mod must return a float UOp"),
  (dict(mask_mod=lambda b, h, q, kv: q.cast(dtypes.float)), TypeError, "mask_mod must return a bool UOp"),
  (dict(mask_mod=lambda b, h, q, kv: q == kv), TypeError, "compare with .eq"),
  (dict(mod_args=t(4)), TypeError, "mod_args must be a tuple"),
  (dict(mod_args=(np.zeros(4),)), TypeError, "mod_args\\[0\\] must be a tinygrad Tensor"),
  (dict(mod_args=(t(4, device="CPU"),)), ValueError, "mod_args\\[0\\] must be on q's device"),
  (dict(mod_args=(_grad_tensor(),)), ValueError, "mod_args\\[0\\] requires grad"),
]
ENTRIES = {"flash_attention": lambda **kw: flash_attention(t(1, 2, 8, 32), t(1, 1, 8, 32), t(1, 1, 8, 32), **kw),
           "flash_attention_backward": lambda **kw: flash_attention_backward(**_bwd_args(**kw)),
           "flash_attention_with_kvcache": lambda **kw: flash_attention_with_kvcache(**_kv_args(**kw))}

@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize("over,exc,msg", BAD_MODS, ids=[b[2] for b in BAD_MODS])
def test_bad_mods(emu, no_kernel, entry, over, exc, msg):
  """every entry point checks the modifications before any kernel is built"""
  with pytest.raises(exc, match=msg): ENTRIES[entry](**over)
