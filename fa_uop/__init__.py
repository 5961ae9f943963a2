"""fa_uop: flash-attention kernels written as explicit tinygrad UOp graphs."""
from fa_uop.api import flash_attention, flash_attention_backward, flash_attention_with_kvcache, write_kvcache, HEAD_DIMS
from fa_uop.decode import flash_decode, flash_combine, flash_kv_write
from fa_uop.backward import flash_bwd_delta, flash_bwd_dkdv, flash_bwd_dq
from fa_uop.config import FwdConfig, BwdConfig, default_fwd_config, default_bwd_configs
from fa_uop.forward import flash_fwd
from fa_uop.target import Target, Frag, RDNA3, RDNA4, CDNA3, CDNA4, SM80, SM90A, target_for
from fa_uop.sdpa import scaled_dot_product_attention, patch

__all__ = ["flash_attention", "scaled_dot_product_attention", "patch", "flash_attention_backward", "flash_attention_with_kvcache", "write_kvcache", "flash_decode", "flash_combine", "flash_kv_write", "flash_fwd", "flash_bwd_delta", "flash_bwd_dkdv", "flash_bwd_dq", "BwdConfig", "default_bwd_configs", "FwdConfig", "default_fwd_config", "Target", "Frag", "RDNA3", "RDNA4", "CDNA3", "CDNA4", "SM80", "SM90A", "target_for", "HEAD_DIMS"]
