"""Tile configurations are data: a kernel is built from one; each target has candidates, a deterministic default per shape class,
and the tuner (fa_uop.tune) picks among the candidates by timing them."""
from __future__ import annotations
import math, re
from dataclasses import dataclass, replace
from typing import ClassVar
from fa_uop.target import Target

@dataclass(frozen=True)
class FwdConfig:
  block_m: int = 64   # query rows per block, split evenly over the warps
  block_n: int = 64   # keys per KV tile
  warps: int = 4
  # blocks per multiprocessor the compiler is asked to fit (registers ≤ what that many leave each), where the target's renderer
  # takes it (Target.min_blocks); 0: the compiler's choice
  blocks: int = 0
  # K and V by the target's bulk tensor copies (Hopper's TMA, one thread issuing a tile) where wgmma runs the products (sharded: each
  # device's own tensor maps)
  tma: bool = False
  # with tma: warp specialisation, a producer warpgroup issuing the copies into a ring of this many K and V slots (0: the consumers issue
  # them, one K and one V tile)
  ring: int = 0
  # with a ring and two consumer warpgroups: FlashAttention-3's ping-pong, their products in turns, one's softmax under the other's
  pingpong: bool = False
  # with a ring: persistent, a block an SM looping over the tiles (its producer copies the next tile's Q into a second slot and fills
  # the ring with its K and V while the consumers finish one), FlashAttention-3's static tile scheduler
  persistent: bool = False
  # the warps split this many ways along the head dim (the output's columns, cols) and the keys a step (S's columns), each row group's
  # row max exchanged and P shared through LDS (fa_uop.forward.attend); not by wgmma
  split: int = 1
  # by wgmma: the descriptors of the products with A in LDS (the forward's Q·Kᵀ) built again each K-step from the tiles' addresses,
  # not added to (target._cuda_wgmma). The same work; nvcc schedules the two apart: H200, 128x224x8tr2p at D=64 N=16384 4.64 -> 4.31
  # ms, level or up to 1% slower elsewhere (docs/runs/2026-11-29_desc_grid), so a choice of the config's
  rebuilt: bool = False
  def cols(self, d:int) -> int:
    """a warp's head-dim columns of the output (BwdConfig: of dK and dV, or dQ): d in whole 16-column pieces split `split` ways, the
    last group's past d phantom where the pieces do not divide (D=176, 11 pieces: two groups of 96 columns, as D=192's; they read the
    tiles' padding and are never stored), so an odd count of pieces splits too (RDNA's dK/dV at D=176-240 unsplit, 176-240 accumulators
    a lane: 45-280 VGPRs spilled, docs/journal.md 2026-11-28)"""
    return 16 * -(-d // (16 * self.split)) if self.split > 1 else d
  def by_wgmma(self, target:Target, d:int) -> bool:
    """whether the forward's products run by wgmma (each warpgroup 64 query rows, LDS tiles in swizzle atoms of 128 bytes a row, Vᵀ's
    too where the target reads it, or past one such atom of keys in 64- or 32-byte ones: FlashAttention-3's 224 keys at 8 bits): what
    bulk copies need"""
    return target.warpgroups and self.split == 1 and self.warps % 4 == 0 and self.block_m == self.warps * target.mma[0] and d % target.atom == 0 and \
      self.block_n % 8 == 0 and self.block_n <= 256 and (target.v_keys is None or self.block_n % target.atom == 0 or
                                                          (self.block_n > target.atom and self.block_n % (target.atom // 4) == 0))
  def reads_vt(self, target:Target, d:int) -> bool:
    """whether the forward reads V transposed, its keys in the target's v_keys order (8-bit wgmma: fa_uop.api lays it out)"""
    return target.v_keys is not None and self.by_wgmma(target, d)
  def q_in_regs(self, target:Target, d:int) -> bool:
    """whether the forward holds Q's A fragments in registers for the whole KV loop: where a warp has one m-tile and the target's
    budget holds them (Target.hold). With more they do not fit beside the output accumulator (at 128x32x4, D=128: 255 registers and
    spills), so each K-step reads them from Q's LDS tile, as FlashAttention-2 does; wgmma reads them from LDS"""
    return self.block_m * self.split // self.warps == target.mma[0] and not self.by_wgmma(target, d) and \
      target.holds(1, d // target.mma[2], target.in_dtypes[0].itemsize)
  def lds_bytes(self, target:Target, d:int) -> int:
    row = lambda cols: target.lds_row(cols, target.in_dtypes[0].itemsize)   # a tile row's elements (Target.lds_pad)
    # P goes through LDS where C and A layouts differ: over Q's tile where Q is held in registers (it fits: block_n <= d); with split,
    # shared, and the row maxima exchanged (float32, a row group's per column group)
    p_tile = 0 if self.split == 1 and (target.mma_device == "CUDA" or (self.q_in_regs(target, d) and self.block_n <= d)) else \
      self.block_m * row(self.block_n)
    # a persistent block's Q in two slots: the producer copies the next tile's while the consumers work on this one
    return target.in_dtypes[0].itemsize * (((1 + self.persistent) * self.block_m + 2 * self.block_n * max(self.ring, 1)) * row(self.split * self.cols(d)) + p_tile) + \
      (4 * self.split * self.block_m if self.split > 1 else 0)
  def check(self, target:Target, d:int) -> Target:
    """raise ValueError where this config cannot run at head dim d on target; else the description its kernels are built with (the
    target, or its narrow MMA where d or block_n, the K extents of the MMAs, are no multiple of the wide one's K)"""
    target = target.narrowed(d, self.block_n)
    M, N, K = target.mma
    if self.warps < 1 or self.warps & (self.warps - 1): raise ValueError(f"warps={self.warps} must be a power of two")
    if self.split < 1 or self.split & (self.split - 1) or self.warps % self.split:
      raise ValueError(f"split={self.split} must be a power of two dividing warps={self.warps}")
    if self.block_m % (self.warps // self.split * M):
      raise ValueError(f"block_m={self.block_m} must split into {self.warps // self.split} warps of {M}-row MMA tiles")
    # split: each warp's Sᵀ columns and dK/dV head-dim columns, whole pairs of B fragments (16 columns; BwdConfig.cols)
    if self.split > 1 and (self.block_n // self.split % 16 or d % 16):
      raise ValueError(f"split={self.split}: block_n={self.block_n} and the head dim {d} must split into columns of 16")
    if d % K or d % N: raise ValueError(f"head dim {d} must be a multiple of the MMA K={K} and N={N}")
    if self.block_n % 16 or self.block_n % N or self.block_n % K:
      raise ValueError(f"block_n={self.block_n} must be a multiple of 16 and of the MMA N={N} and K={K}")
    if (lds:=self.lds_bytes(target, d)) > target.lds_bytes: raise ValueError(f"{self} needs {lds} bytes of LDS at D={d}, {target.arch} has {target.lds_bytes}")
    if (n:=self.blocks):
      if not target.min_blocks: raise ValueError(f"{self}: blocks per multiprocessor ({n}) are not taken by {target.arch}'s renderer")
      if n < 0 or n * lds > target.lds_bytes: raise ValueError(f"{self}: {n} blocks of {lds} bytes of LDS do not fit {target.arch}'s {target.lds_bytes}")
    if self.tma and (target.tma is None or not self.by_wgmma(target, d)): raise ValueError(f"{self}: bulk tensor copies need {target.arch}'s "
                                                                                    "TMA and wgmma products (warpgroups of 64 rows, D a multiple of 64)")
    if self.ring and (not self.tma or not 1 <= self.ring <= 4):
      raise ValueError(f"{self}: a producer's ring (1 to 4 slots) fills by bulk tensor copies (tma)")
    if self.pingpong and (not self.ring or self.warps != 8):
      raise ValueError(f"{self}: a ping-pong takes turns between two consumer warpgroups (8 warps) on a producer's ring")
    if self.split > 1 and self.tma: raise ValueError(f"{self}: a split's warps issue their own copies (no tma)")
    if self.persistent and not self.ring: raise ValueError(f"{self}: a persistent block's producer fills a ring (tma, r)")
    if self.rebuilt and not self.by_wgmma(target, d): raise ValueError(f"{self}: rebuilt descriptors (d) are wgmma's")
    return target
  def __str__(self) -> str:
    return f"{self.block_m}x{self.block_n}x{self.warps}" + (f"x{self.blocks}" if self.blocks else "") + ("t" if self.tma else "") + \
      (f"r{self.ring}" if self.ring else "") + ("p" if self.pingpong else "") + ("P" if self.persistent else "") + \
      (f"s{self.split}" if self.split > 1 else "") + ("d" if self.rebuilt else "")
  @staticmethod
  def parse(s:str) -> FwdConfig:
    """the config str() names, e.g. 64x64x4, 64x64x4x3, 64x64x4t, 64x64x4tr2, 128x128x8tr2p, 128x128x8tr2pP, 32x32x4s2, 128x224x8tr2pd"""
    s, rebuilt = s.removesuffix("d"), s.endswith("d")
    s, _, split = s.partition("s")
    s, _, ring = s.partition("r")
    ring, persistent = ring.removesuffix("P"), ring.endswith("P")
    return FwdConfig(*map(int, s.removesuffix("t").split("x")), tma=s.endswith("t"), ring=int(ring.removesuffix("p") or 0),  # type: ignore[arg-type]
                     pingpong=ring.endswith("p"), persistent=persistent, split=int(split or 1), rebuilt=rebuilt)

@dataclass(frozen=True)
class BwdConfig:
  """a backward kernel's tiling: block_m rows (keys for dK/dV, queries for dQ) split over the warps, block_n columns per step; with
  split (dK/dV only) the warps are split that many ways along the head dim too, each holding block_m/(warps/split) key rows of dK and
  dV by head dim/split columns, as FA2's head-dim-256 backward does: P and dS then go through LDS, every warp reading whole rows"""
  block_m: int = 64
  block_n: int = 32
  warps: int = 4
  blocks: int = 0   # blocks per multiprocessor asked of the compiler, as FwdConfig's
  split: int = 1
  # dK/dV only: FlashAttention-3's dQ accumulation, the kernel adding each query tile's dQ = dS·K into a zeroed float32 dQ (dS through
  # LDS, transposed; the target's atomics, or on Hopper a float32 stage in LDS added by the bulk copy engine), so no dQ kernel
  # recomputes S and dP
  dq: bool = False
  # Hopper: warp specialisation as the forward's (FwdConfig.ring), a producer warpgroup bulk-copying each step's tiles (Q and dO for
  # dK/dV, K and V for dQ) into a ring of this many slots ahead of the consumer warpgroups, who release a slot once its products are
  # done: no copy or block barrier in their step. Else the backward's copies are the target's async copies, issued by its own warps
  tma: bool = False
  ring: int = 0
  rebuilt: bool = False   # as the forward's: its descriptors where A is in LDS (Sᵀ, dPᵀ; dQ's dP) rebuilt each K-step
  pingpong: ClassVar[bool] = False
  persistent: ClassVar[bool] = False
  def cols(self, d:int) -> int: return FwdConfig.cols(self, d)  # type: ignore[arg-type]
  def lds_bytes(self, target:Target, d:int, itemsize:int=2) -> int:
    # P and dS through LDS, a tile each: shared by the warps with split; else where the C and A layouts differ (a_operand's tiles)
    row = lambda cols: target.lds_row(cols, itemsize)   # a tile row's elements (Target.lds_pad: 16 bytes more)
    ds_tiles = 0 if self.split == 1 and target.mma_device == "CUDA" else 2 * self.block_m * row(self.block_n)
    # with dq: dS's transposed tile, and on Hopper dQ's part staged in float32 for its bulk adds
    dq = (itemsize * self.block_n * row(self.block_m) + (4 * self.block_n * d if target.tma is not None else 0)) if self.dq else 0
    return itemsize * (2 * (self.block_m + self.block_n * max(self.ring, 1)) * row(self.split * self.cols(d)) + ds_tiles) + dq
  def by_wgmma(self, target:Target, d:int) -> bool:
    """the block's products by wgmma (Hopper): one 16-row MMA tile per warp, whole warpgroups, the head dim in 64-column swizzle atoms
    (with split: each warpgroup's head-dim columns too, and P's and dS's tiles, which the products read from LDS)"""
    W = self.warps // self.split
    return target.warpgroups and W % 4 == 0 and self.block_m == W * target.mma[0] and d % 64 == 0 and self.block_n % 16 == 0 and \
      (self.split == 1 or (self.cols(d) % 64 == 0 and self.block_n % 64 == 0))
  def dq_warps(self, target:Target, d:int) -> tuple[int, bool]:
    """with dq: (R, wgmma) where the warps split dQ's part (block_n queries x d) R ways along its rows and warps/R along its columns,
    by wgmma where the products are (each warpgroup all 64 queries, 64-column pieces of d); a ValueError where it does not tile"""
    M, N, _ = target.mma
    if self.by_wgmma(target, d) and self.block_n == 4 * M and d % (self.warps // 4 * 64) == 0: return 4, True
    R = next(r for r in (8, 4, 2, 1) if r <= self.warps and self.block_n % (r * M) == 0) if self.block_n % M == 0 else 0
    if not R or d % (self.warps // R * N):
      raise ValueError(f"{self}: dQ's part ({self.block_n} queries x {d}) does not split over {self.warps} warps in {M}x{N} MMA tiles")
    return R, False
  def check(self, target:Target, d:int) -> Target:
    target = FwdConfig.check(self, target, d)  # type: ignore[arg-type]
    if self.dq: self.dq_warps(target, d)
    if self.tma and (not self.ring or self.dq): raise ValueError(f"{self}: the backward's bulk copies fill a producer's ring (tr), without q")
    return target
  def __str__(self) -> str: return FwdConfig.__str__(self) + ("q" if self.dq else "")  # type: ignore[arg-type]
  @staticmethod
  def parse(s:str) -> BwdConfig:
    """the config str() names, e.g. 64x32x4, 64x64x4x3, 64x64x8s2, 64x64x4q, 128x64x8tr2, 128x64x8tr2d"""
    body, rebuilt = s.removesuffix("q").removesuffix("d"), s.removesuffix("q").endswith("d")
    body, _, split = body.partition("s")
    body, _, ring = body.partition("r")
    return BwdConfig(*map(int, body.removesuffix("t").split("x")), split=int(split or 1), dq=s.endswith("q"),  # type: ignore[arg-type]
                     tma=body.endswith("t"), ring=int(ring or 0), rebuilt=rebuilt)

def default_bwd_configs(target:Target, d:int, mods:str="", one_device:bool=True, group:int=1) -> tuple[BwdConfig, BwdConfig]:
  """(dK/dV, dQ) configs: 64 rows over 4 warps and 32 columns fit 48 KB of LDS up to D=128 in both; with wgmma 64 columns (64 KB
  at D=128, dynamic shared memory): on the H100 causal N=16384 D=128 8.53 → 7.49 ms, the document mask 3.60 → 3.05 ms, and faster
  on every sweep shape tried (docs/journal.md, 2026-11-25); dQ in 3 blocks an SM (168 registers, no spill: 3 x 64 KB of LDS), causal
  7.27 → 6.80 ms and the document mask 2.78 → 2.49 ms with the 64-bit copy addresses (2026-11-25, second session); at D=64 dK/dV
  in 3 blocks an SM too (168 registers), +1-19% on the sweep's D=64 shapes (2026-11-25, sixth session; D=128's has none to spare)"""
  # at D=128 on Hopper a producer warpgroup bulk-copies each step's tiles into a ring (full or causal attention, one device: the
  # producer walks every tile; timed so only, and under a softcap nvcc spills causal dK/dV's 108 bytes): H200, N=1024-16384, +4-5%
  # non-causal, causal +4% at 4096 and +11% at 16384 (6.61 -> 5.93 ms at N=16384 beside 64x64x4 and 64x64x4x3); at D=64 it trails
  # (-3 to -27%; docs/journal.md 2026-11-29). Under a causal window or mask_mod (one of them, no more: timed so) causal dK/dV's ring with one
  # query head a KV head (group: the ring walks one head's plan), dQ's kernel without: H200 N=16384, window +6.8%, document +3.4%
  # dK/dV's descriptors rebuilt each K-step (d) where timed faster, without modifications beyond causal: H200, D=128 non-causal's ring
  # +2.3-2.6% at N=4096 and 16384, D=64 +2.0% non-causal and +1.1% causal at 16384; causal's 128-row ring -2.4%, dQ's ±1.5%: without
  # (docs/runs/2026-11-29_bwd_desc/ab.log)
  if target.tma is not None and d == 128 and one_device:
    if not beyond(mods):
      return BwdConfig(128, 64, 8, tma=True, ring=2) if "causal" in mods else BwdConfig(64, 64, 4, 2, tma=True, ring=2, rebuilt=True), BwdConfig(64, 64, 4, 2, tma=True, ring=2)
    if mods in ("causal_w", "causal_m") and group == 1: return BwdConfig(128, 64, 8, tma=True, ring=2), BwdConfig(64, 64, 4, 3)
  if target.warpgroups and d % 64 == 0 and d <= 128:
    return BwdConfig(64, 64, 4, 3 if d == 64 else 0, rebuilt=d == 64 and not beyond(mods)), BwdConfig(64, 64, 4, 3)
  # at D=256 a warp's dK and dV of whole rows are 256 registers a thread: with wgmma two warpgroups split them along the head dim
  # (H100, B·N = 16k, H = 8: 91 -> 281 TFLOPS non-causal at N=4096, 1.06-1.14x FA2; dQ's 64x32x4 has no spill; 2026-11-26, tenth session)
  if target.warpgroups and d == 256: return BwdConfig(64, 64, 8, split=2), BwdConfig(64, 32, 4)
  # past D=128 the K, V (or Q, dO) tiles of 64 rows outgrow 48 KB (sm_80) and 64 KB (RDNA, CDNA3): fewer rows and columns, over fewer
  # warps; dK/dV then split along the head dim where that fits, its accumulators halved (clang-22 at D=256: gfx942 no scratch, was 48
  # spilled VGPRs at 32x16x2; gfx1201 359 spilled, was 704; gfx1100 744, was 707: RDNA's are issue 32's; docs/journal.md 2026-11-26)
  # dQ's key tile a step within a warp's registers as the forward's (Target.fwd_keys: RDNA at D=160-224 32x32x2 spilled 17-203 VGPRs,
  # 32x16x2 0-6; docs/journal.md 2026-11-27, twenty-third session); first those whose accumulator a warp holds (Target.bwd_acc), then
  # split along the head dim as dK/dV's (RDNA past D=128: 32x16x2 spilled 1-29 VGPRs at 192-240, 16x32x2s2 none at 144-240, where
  # 32x32x4s2 spilled 5-14 on gfx1100; docs/journal.md 2026-11-28)
  M, N, _ = target.mma
  dqs = (*keyed(target, d, BwdConfig(64, 32, 4), BwdConfig(32, 32, 2)), BwdConfig(32, 16, 2))
  dq_held = lambda cs: [c for c in cs if (c.block_m * c.split // c.warps // M) * (c.cols(d) // N) * target.c.nelems <= target.bwd_acc]
  dq = fitting(target, d, *dq_held((*dqs, BwdConfig(16, 32, 2, split=2))), *dqs)
  # first those whose dK and dV accumulators the target's registers hold (Target.bwd_acc), each warp's key rows by head-dim columns.
  # 32x32x4s2 holds what 16x32x2s2 does a lane, its copies over twice the threads (RDNA at 144-224: a Q or dO tile of 32 rows is 10-14
  # 16-byte pieces a thread over 64 threads, 40-56 VGPRs in flight: gfx1201's dK/dV at 144, 16x32x2s2 256 VGPRs and 13 spilled, 163 and
  # none so; sm_80's tiles on the H100 at D=160, causal 7.27 -> 5.93 ms; docs/journal.md 2026-11-28, twenty-seventh session), where its
  # LDS fits (RDNA to D=224); not under modifications beyond causal, where it spilled (gfx1201's masked dK/dV at 208 and 224: 29, 37)
  cands = (BwdConfig(64, 32, 4), BwdConfig(64, 32, 8, split=2), *([] if beyond(mods) else [BwdConfig(32, 32, 4, split=2)]), BwdConfig(16, 32, 2, split=2))
  held = lambda c: 2 * (c.block_m * c.split // c.warps // M) * (c.cols(d) // N) * target.c.nelems <= target.bwd_acc
  even = [c for c in cands if c.split * c.cols(d) == d]
  # then dQ's tile where it holds them, else a split whose groups' columns do not divide the head dim (phantom columns, BwdConfig.cols):
  # RDNA at 80, 112 and 144-240 (dQ's unsplit tile spilled 45-280 VGPRs at 176-240; gfx1201's 64x32x4 at 80 2, 64x32x8s2 none:
  # docs/journal.md 2026-11-28, twenty-eighth session), sm_80 at 176-208, sm_90a at 208 and 240
  uneven = [c for c in cands if c not in even]
  kv = fitting(target, d, *filter(held, even), *([dq] if held(dq) else []), *filter(held, uneven), *even, *uneven, dq)
  # beyond causal (mods: fa_uop.mods.Mods.tag) a warp's queries a step within Target.fwd_keys under them, as the forward's keys (dQ's
  # tile holds them at 32 keys: clang-22 on RDNA up to D=128)
  return (kv if keyed(target, d, kv, mods=mods) else replace(kv, block_n=16 * kv.split)), dq

# what the tuner tries; each is checked per target and head dim, so a target gets those its LDS holds: 128x64x4 and 128x128x8 take 80
# and 128 KB at D=128 (of those here only gfx950's 160 KB), less at smaller head dims. 128x32x4 (two m-tiles per warp, Q's fragments
# read from LDS) is the H100's fastest for the document mask, 64x32x4 for causal (docs/journal.md, 2026-11-24); with wgmma 128x128x8 for
# causal and 64x64x4 in 3 blocks an SM (168 registers) for the document mask (2026-11-24); 64x128x4 at D=64 (2026-11-25, third session).
# Bulk tensor copies (tma) measured faster at D=128 on long sequences only (+2-4%; slower at D=64 and short ones), and a producer
# warp filling a ring (warp specialisation) on long causal ones only (+3% over tma at N=16384, -8% at N=4096 non-causal: 2026-11-25,
# fifth session), so the tuner tries the wgmma configs both ways and 64x64x4 with a producer; 128x64x8t led D=256's causal N=4096
# (434 TFLOPS against 64x64x4's 419: docs/journal.md 2026-11-26, twelfth session). With the producer a warpgroup that hands its
# registers to two consumer warpgroups (setmaxnreg), 128x128x8tr2 led D=128 N=16384 (633 TFLOPS non-causal, 604 causal, against the
# table's 580 / 543) and 128x64x8tr2 D=256 N=4096 (619 / 497 against 570 / 477: thirteenth session); their ping-pong (p) led both
# again (D=128 N=16384 649 / 632 against 626 / 593, D=256 causal N=4096 128x64x8tr2p 540 against 511: fourteenth session)
CANDIDATES = (FwdConfig(64, 32, 4), FwdConfig(64, 64, 4), FwdConfig(128, 32, 8), FwdConfig(128, 64, 8), FwdConfig(64, 16, 4),
              FwdConfig(128, 64, 4), FwdConfig(128, 128, 8), FwdConfig(128, 32, 4), FwdConfig(64, 64, 4, 3), FwdConfig(64, 128, 4),
              FwdConfig(64, 64, 4, tma=True), FwdConfig(128, 128, 8, tma=True), FwdConfig(64, 128, 4, tma=True), FwdConfig(128, 64, 8, tma=True),
              FwdConfig(64, 64, 4, tma=True, ring=1), FwdConfig(64, 64, 4, tma=True, ring=2), FwdConfig(128, 128, 8, tma=True, ring=2),
              FwdConfig(128, 64, 8, tma=True, ring=2), FwdConfig(128, 128, 8, tma=True, ring=1),
              FwdConfig(128, 128, 8, tma=True, ring=2, pingpong=True), FwdConfig(128, 64, 8, tma=True, ring=2, pingpong=True),
              FwdConfig(128, 192, 8, tma=True, ring=2, pingpong=True), FwdConfig(128, 224, 8, tma=True, ring=2, pingpong=True),
              FwdConfig(128, 224, 8, tma=True, ring=2, pingpong=True, rebuilt=True), FwdConfig(32, 32, 4, split=2))

def candidates(target:Target, d:int, mods:str="") -> list[FwdConfig]:
  # a wgmma warpgroup holds O and S, (d + block_n) / 2 floats a thread: past 192 ptxas spills them (fp8 D=256 128x192x8tr2p: 1216
  # bytes and serialized wgmma), so the tuner does not time them
  def ok(c:FwdConfig) -> bool:
    try: c.check(target, d)
    except ValueError: return False
    # and a warp's tile within the target's registers (Target.fwd_warp), under the modifications tagged mods; split along the head dim
    # past Target.fwd_split only, and there only so
    return not (c.by_wgmma(target, d) and (d + c.block_n) // 2 > 192) and c.block_m * c.split // c.warps <= target.fwd_warp[0] and \
      bool(keyed(target, d, c, mods=mods)) and (c.split > 1) == target.splits(d, beyond(mods)) and \
      c.block_n * c.warps // c.split <= target.fwd_block_keys[beyond(mods)]
  return [c for c in CANDIDATES if ok(c)]

def shape_class(d:int, nq:int, nk:int, causal:bool, mods:str="") -> str:
  """shapes that share a best config: head dim, causal (or the tag of the modifications, fa_uop.mods.Mods.tag), and the sequence
  lengths by power-of-4 bucket"""
  bucket = lambda n: 4 ** (((n - 1).bit_length() + 1) // 2)  # the next power of 4 at or above n
  return f"d{d}_{mods or ('causal' if causal else 'full')}_q{bucket(nq)}_k{bucket(nk)}"

def default_fwd_config(target:Target, d:int, causal:bool=False, nq:int|None=None, nk:int|None=None, mods:str="") -> FwdConfig:
  """The config used where tuning is off (the default): the tuner's measured pick for the nearest shape class of the target's table
  (fa_uop.tuned, made by scripts/tune_table.py), given the sequence lengths; else the fixed default per head dim. On the H100 (docs/journal.md, 2026-11-22) 64x32x4 led everywhere but D=128 non-causal,
  where 64x64x4 did; with wgmma (SM90A, 2026-11-24) 64x64x4 leads at D=128 causal too, and at D=64 64x128x4 (166 registers, 3
  blocks an SM: D=64 N=1024 293 -> 305 TFLOPS, causal N=4096 312 -> 322, causal N=1024 226 -> 220; 2026-11-25, third session); on
  RDNA3 (64 KB of LDS, P through LDS) 64x32x4 fits every head dim."""
  cfg = _default_fwd_config(target, d, causal, nq, nk, mods)
  # the wide key tiles (192, 224) were timed without modifications: under one beyond causal (a window's, softcap's, score_mod's or
  # mask_mod's work a column) they spill (D=128 192: 36-52 bytes under a document mask, 40 under a softcap; fp8's 224: 24 under a
  # window or a document mask, S in 448 bytes of local memory under a softcap), so they take 128 keys, as measured before them (and
  # the descriptors as there: rebuilt was timed at 224)
  cfg = replace(cfg, block_n=128, rebuilt=False) if cfg.block_n > 128 and beyond(mods) else cfg
  # a persistent block's tiles take the same trips (no causal mask, window or mask_mod), and it was timed without modifications
  return replace(cfg, persistent=False) if cfg.persistent and mods else cfg

def _default_fwd_config(target:Target, d:int, causal:bool, nq:int|None, nk:int|None, mods:str) -> FwdConfig:
  # the table was measured on 16-bit inputs: fp8's MMA (8-bit wgmma reads Vᵀ, its own tiles) takes the fixed defaults below
  if nq is not None and nk is not None and target.in_dtypes[0].itemsize == 2 and (cfg:=tabled(target, d, nq, nk, causal, mods)) is not None: return cfg
  # 8-bit wgmma reads Vᵀ in swizzle atoms of 128-byte rows (128 keys; past them 64- or 32-byte). By cp.async one warpgroup a block led two (H100, e4m3 N=16384:
  # D=128 749 vs 656 TFLOPS, causal 710 vs 600; eleventh session); by bulk copies from a producer warpgroup's ring, one consumer
  # warpgroup in two blocks an SM leads at D=128 (825 / 771 against 64x128x4's 776 / 732 at N=16384, +4-8% at N=1024 and 4096), two
  # at D=256 (N=4096 753 against 648; docs/journal.md 2026-11-26, thirteenth session). Their ping-pong leads at D=256 (N=4096 830 / 591
  # against 758 / 560, N=16384 1138 / 1043 against 1038 / 919) and at D=128 past 4096 keys (N=16384 869 / 801 against 823 / 771; N=4096
  # level non-causal, 6% behind causal; fifteenth session). At D=128 224 keys a step (FlashAttention-3's; Vᵀ in 32-byte swizzle
  # atoms) lead 128 (N=16384 899 / 907 against 884 / 881, causal 844 / 843 against 794 / 793) and 64x128x4x2tr2 at 4096 keys (686 / 675
  # against 671 / 644, causal 518 / 517 against 513 / 486), not at 1024 (355 against 367, causal 208 against 233; eighteenth session)
  if target.v_keys is not None and d % 128 == 0:
    if target.tma is None: return FwdConfig(64, 128, 4)
    if d == 128 and (nk or 0) >= 4096: return FwdConfig(128, 224, 8, tma=True, ring=2, pingpong=True)
    if d > 128: return FwdConfig(128, 128, 8, tma=True, ring=2, pingpong=True)
    return FwdConfig(64, 128, 4, 2, tma=True, ring=2)
  if target.warpgroups and d == 64: return FwdConfig(64, 128, 4)
  if target.warpgroups and d % 64 == 0: return FwdConfig(64, 64, 4)
  if target.mma_device == "CUDA" and d == 128 and not causal: return FwdConfig(64, 64, 4)
  # past D=192 64x32x4's K and V tiles outgrow 48 KB; past D=128 32 keys outgrow RDNA's registers (Target.fwd_keys); past
  # Target.fwd_split the warps split the head dim
  if target.splits(d, beyond(mods)): return fitting(target, d, FwdConfig(32, 32, 4, split=2), FwdConfig(64, 16, 4))
  return fitting(target, d, *keyed(target, d, FwdConfig(64, 32, 4), mods=mods), FwdConfig(64, 16, 4))

def beyond(mods:str) -> bool:
  """whether the modifications' tag (fa_uop.mods.Mods.tag) names any beyond causal"""
  return bool(mods.replace("causal", "").strip("_"))

def keyed(target:Target, d:int, *cfgs, mods:str="") -> list:
  """those of cfgs whose key tile (dK/dV's queries) a warp's registers hold at head dim d, under the modifications tagged mods
  (Target.fwd_keys)"""
  return [c for c in cfgs if c.block_n // c.split <= target.fwd_keys(d, beyond(mods))]

def fitting(target:Target, d:int, *cfgs):
  """the first of cfgs that runs at head dim d on target (its LDS), else the last, whose check then says why not"""
  for c in cfgs:
    try: c.check(target, d)
    except ValueError: continue
    return c
  return cfgs[-1]

def tabled(target:Target, d:int, nq:int, nk:int, causal:bool, mods:str="") -> FwdConfig|None:
  """the table's config for the nearest of its shape classes with this head dim and modifications (else causal's or full's), by
  the distance of the sequence-length buckets; None where the table has no class of that head dim (or its config cannot run)"""
  from fa_uop.tuned import TABLE
  parse = lambda c: re.fullmatch(r"d(\d+)_(\w+)_q(\d+)_k(\d+)", c)
  want = parse(shape_class(d, nq, nk, causal, mods))
  assert want is not None
  rows = [(m, cfg) for c, cfg in TABLE.get(target.arch, {}).items() if (m:=parse(c)) is not None and m[1] == want[1]]
  tags = {m[2] for m, _ in rows}
  tag = want[2] if want[2] in tags else "causal" if causal else "full"
  dist = lambda m: abs(math.log(int(m[3]) / int(want[3]))) + abs(math.log(int(m[4]) / int(want[4])))
  best = min(((dist(m), cfg) for m, cfg in rows if m[2] == tag), default=None)
  if best is None: return None
  cfg = FwdConfig.parse(best[1])
  try: cfg.check(target, d)
  except ValueError: return None
  return cfg

def default_decode_config(target:Target, d:int, rows:int) -> FwdConfig:
  """the decoding kernel's tile for `rows` packed query rows (query heads of a GQA group × new queries): as few MMA row tiles
  as hold them, one warp each up to 4, and 64-key tiles (32 or 16 where K and V's do not fit beside Q's at large head dims, or the
  target's registers hold fewer: Target.decode_kv elements of the key tile a warp). 16 keys past that take more warps, whose extra
  rows are idle, to share the tile's copies (RDNA at D=256: one warp held 128 registers a lane of K and V in flight, 16-20 VGPRs
  spilled; two, none)"""
  M = target.mma[0]
  # past the head dim where a forward that masks every tile splits (Target.splits under modifications), its split tile, in blocks of
  # 32 rows (RDNA at 144-256: 168-227 VGPRs, none spilled, dense and paged, 4 and 64 rows; 64x16x4 and 32x16x2 168-256, 3-14 spilled
  # where paged at 176-256: docs/journal.md 2026-11-28, twenty-eighth session). A GQA group of more rows reads its keys once a block
  if target.splits(d, True): return fitting(target, d, FwdConfig(32, 32, 4, split=2), FwdConfig(32, 16, 2))
  warps = min(4, 1 << max(0, math.ceil(math.log2(math.ceil(rows / M)))))
  wide = min(4, max(warps, 1 << math.ceil(math.log2(math.ceil(16 * d / target.decode_kv)))))
  return fitting(target, d, *(FwdConfig(warps * M, n, warps) for n in (64, 32) if n * d <= target.decode_kv), FwdConfig(wide * M, 16, wide))

# split-KV: about DECODE_WAVES blocks per multiprocessor (on the H100, 4 one-warp blocks of 36 KB of LDS kept the memory busiest,
# docs/journal.md), each split at least DECODE_MIN_TILES KV tiles long, a multiple of 8 splits past 8 (the combine reads 8 at a time)
DECODE_WAVES, DECODE_MIN_TILES, DECODE_MAX_SPLITS = 4, 4, 128

def decode_splits(blocks:int, n_tiles:int, multiprocessors:int) -> int:
  """How many splits of the KV cache the decoding kernel runs for `blocks` blocks (batch · KV heads · row blocks) over caches of
  up to n_tiles KV tiles: none where the blocks alone fill the GPU DECODE_WAVES times, else about enough to, keeping each split
  at least DECODE_MIN_TILES tiles long and at most DECODE_MAX_SPLITS of them."""
  want = min(math.ceil(DECODE_WAVES * multiprocessors / blocks), n_tiles // DECODE_MIN_TILES, DECODE_MAX_SPLITS)
  return max(1, want if want <= 8 else want // 8 * 8)

def split_kv(plan:tuple[FwdConfig, int], fwd_blocks:int, multiprocessors:int, nq:int) -> tuple[FwdConfig, int]|None:
  """flash_attention's choice between its forward and the decoding kernels, given their plan (tile, splits) for the call: the
  decoding kernels where the forward's 64-row query tiles would hold fewer than 64 rows (a decode-shaped call: FA2 and serving
  stacks run their decoding kernels there too), or where the forward's fwd_blocks cannot fill the GPU (under 0.8 blocks a
  multiprocessor, FA2's rule) and the keys split; else None (the forward)"""
  return plan if nq < 64 or (fwd_blocks < 0.8 * multiprocessors and plan[1] > 1) else None
