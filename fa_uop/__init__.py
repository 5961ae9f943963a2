"""fa_uop: flash-attention kernels written as explicit tinygrad UOp graphs."""
from fa_uop.api import flash_attention, HEAD_DIMS
from fa_uop.config import FwdConfig, default_fwd_config
from fa_uop.forward import flash_fwd
from fa_uop.target import Target, Frag, RDNA3, SM80, target_for

__all__ = ["flash_attention", "flash_fwd", "FwdConfig", "default_fwd_config", "Target", "Frag", "RDNA3", "SM80", "target_for", "HEAD_DIMS"]
