#!/usr/bin/env python3
"""Build fa_uop's forward kernel yourself and hand it to Tensor.custom_kernel: pick the target and the tile configuration,
allocate the outputs, and check the result against tinygrad's SDPA in float32. Runs on the emulator with no GPU:
  DEV=PYTHON::sm_80 python examples/custom_kernel.py      (or DEV=CUDA, DEV=AMD, DEV=PYTHON::gfx1100)"""
import functools, os
os.environ.setdefault("DEV", "PYTHON::sm_80")
import numpy as np
from tinygrad import Tensor, Device, dtypes
from fa_uop import flash_fwd, FwdConfig, target_for

B, H, Hkv, N, D = 1, 2, 1, 64, 64
q = Tensor.randn(B, H, N, D, dtype=dtypes.float32).cast(dtypes.half).realize()
k, v = [Tensor.randn(B, Hkv, N, D, dtype=dtypes.float32).cast(dtypes.half).realize() for _ in range(2)]

# the outputs are buffers the kernel writes: O in q's dtype, the row logsumexp in float32
o = Tensor.empty(B, H, N, D, dtype=dtypes.half)
lse = Tensor.empty(B, H, N, dtype=dtypes.float32)

# the builder gets one placeholder UOp per tensor, in the order given to custom_kernel: q, k, v, o, lse
target = target_for(Device.DEFAULT)
cfg = FwdConfig(block_m=64, block_n=32, warps=4)   # 64 query rows per block, 16 per warp; 32 keys per KV tile
kernel = functools.partial(flash_fwd, target=target, cfg=cfg, causal=True)
_, _, _, o, lse = Tensor.custom_kernel(q, k, v, o, lse, fxn=kernel)

ref = q.float().scaled_dot_product_attention(k.float(), v.float(), is_causal=True, enable_gqa=True)
err = np.abs(o.float().numpy() - ref.numpy()).max()
print(f"{Device.DEFAULT} ({target.arch}): max |custom kernel - float32 SDPA| = {err:.2e}, lse[0, 0, :3] = {lse.numpy()[0, 0, :3]}")
assert err < 1e-2
