"""Tile configurations are data: a kernel is built from one, and each target has a default per head dim."""
from __future__ import annotations
from dataclasses import dataclass
from fa_uop.target import Target

@dataclass(frozen=True)
class FwdConfig:
  block_m: int = 64   # query rows per block, split evenly over the warps
  block_n: int = 64   # keys per KV tile
  warps: int = 4
  def lds_bytes(self, target:Target, d:int, itemsize:int=2) -> int:
    p_tile = 0 if target.mma_device == "CUDA" else 2 * self.block_m * self.block_n  # P goes through LDS where C and A layouts differ
    return itemsize * ((self.block_m + 2 * self.block_n) * d + p_tile)
  def check(self, target:Target, d:int) -> None:
    M, N, K = target.mma
    if self.block_m % (self.warps * M): raise ValueError(f"block_m={self.block_m} must split into {self.warps} warps of {M}-row MMA tiles")
    if self.block_n % K or self.block_n % N: raise ValueError(f"block_n={self.block_n} must be a multiple of the MMA K={K} and N={N}")
    if d % K or d % N: raise ValueError(f"head dim {d} must be a multiple of the MMA K={K} and N={N}")
    if (lds:=self.lds_bytes(target, d)) > target.lds_bytes: raise ValueError(f"{self} needs {lds} bytes of LDS at D={d}, {target.arch} has {target.lds_bytes}")

def default_fwd_config(target:Target, d:int) -> FwdConfig:
  return FwdConfig(block_m=64, block_n=64, warps=4)
