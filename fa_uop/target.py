"""Targets: one description per GPU family. Warp size, MMA shape and which lane holds which fragment element live here and nowhere else."""
from __future__ import annotations
import functools, itertools, math, os, re
from dataclasses import dataclass, field, replace
from typing import Callable
from tinygrad import Device, UOp, dtypes
from tinygrad.dtype import AddrSpace, DType
from tinygrad.uop.ops import AxisType, GroupOp, KernelInfo, Ops, PatternMatcher, UPat
from tinygrad.renderer.cstyle import CUDARenderer, HIPRenderer, HIPCCRenderer

def _radix(sizes:tuple[int, ...]) -> tuple[int, ...]: return tuple(math.prod(sizes[i+1:]) for i in range(len(sizes)))

@dataclass(frozen=True)
class Frag:
  """How a warp holds one MMA operand tile. The tile's (rows, cols) are split into digits (`split`, row digits first, most
  significant first; the first `nrow` belong to rows). The `lanes` digits pick the lane, the `elems` digits the element in that lane's
  fragment. Lanes beyond the product of the lane digits repeat the lower lanes (RDNA3 operands live twice in a wave)."""
  split: tuple[int, ...]
  nrow: int
  lanes: tuple[int, ...]
  elems: tuple[int, ...]
  @property
  def shape(self) -> tuple[int, int]: return (math.prod(self.split[:self.nrow]), math.prod(self.split[self.nrow:]))
  @property
  def nlanes(self) -> int: return math.prod(self.split[i] for i in self.lanes)
  @property
  def nelems(self) -> int: return math.prod(self.split[i] for i in self.elems)
  def digit_strides(self) -> tuple[int, ...]:
    """stride of each digit in its tile coordinate (row or col)"""
    return _radix(self.split[:self.nrow]) + _radix(self.split[self.nrow:])
  def coords(self, lane:int|UOp, e:int|UOp) -> tuple:
    """(row, col) in the tile of element e of lane; ints or UOps"""
    rc: list = [0, 0]
    for digs, idx in ((self.lanes, lane % self.nlanes), (self.elems, e)):
      for d, stride in zip(digs, _radix(tuple(self.split[i] for i in digs))):
        rc[d >= self.nrow] = rc[d >= self.nrow] + (idx // stride % self.split[d]) * self.digit_strides()[d]
    return rc[0], rc[1]
  def view(self, tile:UOp, lane:UOp) -> UOp:
    """this lane's fragment of a (rows, cols) tile view, shape (nelems,)"""
    assert tuple(tile.shape) == self.shape, f"fragment of a {self.shape} tile, got {tile.shape}"
    return tile.reshape(*self.split).permute(*self.lanes, *self.elems).reshape(self.nlanes, self.nelems)[lane % self.nlanes]
  def elem_digits(self, rows:bool) -> tuple[int, ...]: return tuple(d for d in self.elems if (d < self.nrow) == rows)
  def lane_xor_offsets(self, rows:bool) -> tuple[int, ...]:
    """lane xor offsets that walk the lanes sharing a row (rows=False) or a column (rows=True)"""
    lane_strides = _radix(tuple(self.split[i] for i in self.lanes))
    return tuple(s << b for d, s in zip(self.lanes, lane_strides) if (d < self.nrow) == rows for b in range(int(math.log2(self.split[d]))))

@dataclass(frozen=True)
class Target:
  """A GPU family as the kernels see it: D = A·Bᵀ + C on MMA tiles of A (M×K), B (N×K), C (M×N), spread over a warp."""
  arch: str
  mma_device: str               # the device name tinygrad's WMMA lowering expects
  warp: int
  mma: tuple[int, int, int]     # M, N, K
  a: Frag
  b: Frag
  c: Frag
  lds_bytes: int                # shared memory a block may use
  in_dtypes: tuple[DType, ...]
  # fast paths; None selects the portable twin in the tile layer (the emulator runs only twins: it cannot execute Ops.CUSTOM)
  shuffle: Callable[[UOp, int, UOp], UOp]|None = None   # read a float from lane ^ offset; twin: exchange through LDS
  copy16: Callable[[UOp, UOp, UOp|None, UOp|None], UOp]|None = None  # async 16-byte global->LDS copy (zeros where not ok), if active
  copy_wait: Callable[[UOp, bool], UOp]|None = None      # wait for every async copy group (before a barrier); True: wgmma reads next
  store16: Callable[[UOp, UOp, UOp|None], UOp]|None = None  # 16 bytes from LDS to global, if ok; twin: tinygrad's loads and stores
  ldsm: Callable[[UOp, bool, str, DType], list[UOp]]|None = None  # four 8x8 16-bit matrices from LDS; twin: element loads
  # per operand: (row, col) in the tile whose address lane gives; not part of the hash (a dict), ldsm already tells the paths apart
  ldsm_addr: dict[str, Callable[[UOp], tuple[UOp, UOp]]]|None = field(default=None, hash=False, compare=False)
  # Hopper's warpgroup MMA on LDS tiles, A from LDS or registers (see _cuda_wgmma); twin: mma over fragment reads of the same tiles
  wgmma: Callable[..., list[UOp]]|None = None
  wgmma_wait: Callable[..., list[UOp]]|None = None   # a product wgmma left in flight, waited for (see _cuda_wgmma_wait)
  # registers times factors behind a branch, skipped where it is not taken (see _cuda_scale_if); twin: the multiplies every time
  scale_if: Callable[[list[UOp], list[UOp], list[int], UOp], UOp]|None = None
  # the int x once anchor (an LDS index after statements) is done, behind a point the compiler moves no memory access across (an empty
  # asm clobbering memory; fa_uop.tiles.in_order); twin: x
  fence: Callable[[UOp, UOp], UOp]|None = None
  # a float32 added into global memory (an index) by an atomic, where blocks add into one element at once (the backward's dQ
  # accumulation); twin: a read, an add and a write, exact where blocks run one after another (tinygrad's emulator)
  atomic_add: Callable[[UOp, UOp, UOp|None], UOp]|None = None
  # the kernels are laid out for warpgroup MMA (warpgroups of 64 rows, LDS tiles in 128-byte swizzle atoms), which the portable twin
  # keeps: the emulator runs the layout the GPU gets, its products by mma.sync
  warpgroups: bool = False
  # P·V on 8-bit floats: wgmma takes an 8-bit B K-major only, so the forward reads Vᵀ (keys contiguous), each group of keys stored in
  # an order, (digit sizes, their permutation) as numpy's reshape/transpose spell it, that makes P's C registers the A operand as
  # they stand (a lane-local regrouping; the product sums over keys in any order). None: V as given
  v_keys: tuple[tuple[int, ...], tuple[int, ...]]|None = None
  # Hopper's tensor memory accelerator: bulk tensor copies of swizzled tiles, completed on an mbarrier (see TMA); twin: copy_tile's copies
  tma: TMA|None = None
  multiprocessors: int = 1      # SMs or CUs of the family's common part, where the device cannot be asked (the emulator)
  # its renderer asks the compiler to fit a config's blocks per multiprocessor (FwdConfig.blocks; a kernel's BoundedKernel info)
  min_blocks: bool = False
  # LDS tiles (outside wgmma's atoms) padded by 16 bytes a row, not XOR-swizzled: a fragment read element by element (no ldmatrix) then
  # has addresses a lane's base plus constants, folded into the instructions' offsets, where the XOR's per-element addresses stayed
  # live across the KV loop (clang-22, D=128 forward: gfx1201 187 VGPRs spilled, gfx942 244 -> 175 VGPRs; docs/journal.md). The
  # padding spreads the rows a fragment reads over the banks as the XOR did, for 6% more LDS at D=128
  lds_pad: bool = False
  # registers a lane may spend on MMA A fragments held across a loop (the forward's Q, dK/dV's K and V, dQ's Q and dO); past that each
  # step reads them from their LDS tile again (see holds)
  hold: int = 1 << 16
  # the decoding kernel's key tile (one warp's 16 rows) at most this many keys x head dim: past it RDNA's 256 VGPRs a lane spill
  # (clang-22 at 64 keys: gfx1100 18 VGPRs spilled at D=64, 156 at D=128, gfx1201 589 at D=128; none at 2048: 32 keys at D=64, 16 at 128)
  decode_kv: int = 1 << 16
  # registers a lane may hold dK/dV's two accumulators in: past it the default backward splits the head dim over more warps (RDNA at
  # D=128: 64x32x4 holds 128 and spills, clang-22 gfx1201 24 VGPRs; 64x32x8s2 holds 64, none; sm_80: see SM80)
  bwd_acc: int = 1 << 16
  # the most query rows and keys a warp's forward tile may hold, the keys up to D=128 and fewer past it in proportion (a key tile of
  # keys x head dim elements): the tuner's candidates past them spill (RDNA, clang-22: two m-tiles a warp or 128 keys, 5 of 7 such
  # candidates at D=64 and 128; with guarded loads as selects 64 keys too, gfx1100's 128x64x8 at D=64 42 VGPRs, gfx1201's 64x64x4 at
  # D=128 1; one m-tile of up to 32 keys, none; 32 keys at D=176-224 65-414, 16 none: docs/journal.md 2026-11-27, twenty-third);
  # under modifications beyond causal, whose work a score is held beside S, the keys shrink past the fourth's head dim instead (RDNA
  # with a window, softcap, ALiBi and a document mask at 32 keys: gfx1100's forward at D=96-128 18-72 VGPRs spilled, gfx1201's dK/dV
  # at 112 41; at 16 none: twenty-fourth session), without them past the third's
  fwd_warp: tuple[int, int, int, int] = (1 << 16, 1 << 16, 128, 128)
  # the head dim past which the forward's default (and the tuner's candidates) split the warps along the head dim (FwdConfig.split),
  # without modifications beyond causal and with: a warp's output of 16 rows by the whole head dim beside S and P spilled on RDNA at
  # 192-256 (clang-22, 64x16x4: gfx1100's bf16 forward 50-133 VGPRs at 208-256, its masked one 57-96, its forward 4-20; split, 0-28;
  # docs/journal.md 2026-11-28), and under a window, softcap, ALiBi and a document mask at 160 (2; split, none: twenty-eighth session).
  # The decoding kernel past the first splits too (see default_decode_config)
  fwd_split: tuple[int, int] = (1 << 16, 1 << 16)
  # the most keys a step times warps a forward block of the tuner's candidates may hold, without modifications beyond causal and with:
  # on CDNA a block of 8 warps is two waves a SIMD, 256 VGPRs each (arch and AGPRs), where 128 keys a step spilled under a window,
  # softcap, ALiBi and a document mask (clang-22, gfx950 at D=112 and 192: 2 and 6 VGPRs in every AMD form, at 64-176 244-256 VGPRs;
  # 64 keys x 8 warps and 128 x 4 none), and gfx942's 8-bit forward at 64 (D=256: 9; 32 keys 190 VGPRs; docs/journal.md 2026-11-28,
  # twenty-ninth session)
  fwd_block_keys: tuple[int, int] = (1 << 16, 1 << 16)
  def splits(self, d:int, mods:bool=False) -> bool:
    """whether the forward splits the head dim at d (fwd_split), with mods beyond causal or not"""
    return d > self.fwd_split[mods]
  # RDNA past this head dim the forward under a mask beyond causal or, split (fwd_split), without a causal diagonal (its masked stage
  # then the key tail's tile), and the causal dQ visit their tiles in one stage, each masked (fa_uop.mods.TilePlan.one_stage), where
  # beside a second copy of the loop's body they spilled (clang-22: gfx1100's split forward at 224-256 2-28 VGPRs -> none, its masked
  # one at 160 and 240 7 and 16 -> 2; the causal dQ at 256 9 -> 3 on gfx1201, under a score_mod 2-3 -> none). Not the others, which one
  # stage spilled: the bf16 causal forward at 208-256 20-23 VGPRs, gfx1201's unsplit forward at 176 24, the non-causal dQ at 144-256 1-6
  # (docs/journal.md 2026-11-28, twenty-sixth session)
  one_stage: int = 1 << 16
  # the head dim past which the backward under a window or a mask_mod visits its tiles in one stage: past D=128 on every target (RDNA's
  # masked dK/dV spilled 16-30 VGPRs beside two; H100 at D=256: the document mask's backward 1.80 -> 1.60 ms, a window's 1.64 -> 1.48,
  # but its forward 0.33 -> 0.36), on RDNA at every one (clang-22 at D=16-128: 22 of 24 masked dK/dV kernels and 22 of 24 dQ ones take
  # fewer VGPRs, gfx1201's masked dQ at 32 256 and 7 spilled -> 239 and none; docs/journal.md 2026-11-28, twenty-eighth session)
  bwd_one_stage: int = 128
  def stages(self, d:int, kernel:str, causal:bool, masks_more:bool) -> int:
    """the stages the KV (dK/dV's: query) loop of kernel (fwd, dq, dkdv) takes at head dim d: 1 (every tile masked) where one_stage
    and bwd_one_stage say, as the causal dK/dV does past D=128 on every target (fa_uop.backward); else 2 (the masked tiles, then the rest)"""
    if kernel == "fwd": return 1 if d > self.one_stage and (masks_more or (not causal and self.splits(d))) else 2
    if kernel == "dkdv": return 1 if (d > 128 and causal) or (masks_more and d > self.bwd_one_stage) else 2
    return 1 if (masks_more and d > self.bwd_one_stage) or (causal and d > self.one_stage) else 2
  def fwd_keys(self, d:int, mods:bool=False) -> int:
    """the most keys a warp's forward (and dQ; dK/dV's queries) tile may hold at head dim d (fwd_warp), with mods beyond causal or not;
    a tile's 16 at least"""
    return max(16, self.fwd_warp[1] * (m:=self.fwd_warp[3 if mods else 2]) // max(d, m))
  # the same GPU with a narrower MMA K, for head dims and tiles the wide one does not divide (CDNA4's 16x16x16 beside its 16x16x32)
  narrow: Target|None = None
  # the same GPU's 8-bit float MMA (its shape, A and B fragments, the formats it takes), where it has one (see for_dtype)
  fp8: Target|None = None
  def lds_row(self, cols:int, itemsize:int) -> int:
    """the elements one row of a cols-wide LDS tile (outside wgmma's atoms) takes: 16 bytes more where the target pads (lds_pad)"""
    return cols + (16 // itemsize if self.lds_pad else 0)
  def holds(self, tiles:int, ksteps:int, itemsize:int=2) -> bool:
    """whether a lane may hold the A fragments of `tiles` m-tiles over `ksteps` K-steps of itemsize-byte elements across a loop"""
    return tiles * ksteps * self.a.nelems * itemsize <= 4 * self.hold
  def portable(self) -> Target:
    return replace(self, shuffle=None, copy16=None, copy_wait=None, store16=None, ldsm=None, ldsm_addr=None, wgmma=None, wgmma_wait=None,
                   scale_if=None, fence=None, tma=None, atomic_add=None, narrow=self.narrow and self.narrow.portable(),
                   fp8=self.fp8 and self.fp8.portable())
  @property
  def atom(self) -> int:
    """the columns of one row of a 128-byte swizzle atom (wgmma's LDS tiles) in the elements this description's MMA takes"""
    return 128 // self.in_dtypes[0].itemsize
  def atom_for(self, cols:int) -> int:
    """the widest swizzle atom (128, 64 or 32 bytes a row) whose columns divide cols: an 8-bit Vᵀ tile's keys (fa_uop.forward)"""
    return next(a for a in (self.atom, self.atom // 2, self.atom // 4) if cols % a == 0)
  def key_order(self) -> tuple[int, ...]|None:
    """v_keys as the key stored at each position of a group, or None"""
    if self.v_keys is None: return None
    split, perm = self.v_keys
    return tuple(sum(d * math.prod(split[j + 1:]) for j, d in zip(perm, ds)) for ds in itertools.product(*(range(split[j]) for j in perm)))
  def for_dtype(self, dtype:DType) -> Target:
    """the description a kernel on inputs of dtype is built with: this one, or its 8-bit MMA's; TypeError where neither takes dtype"""
    if dtype in self.in_dtypes: return self
    if self.fp8 is not None and dtype in self.fp8.in_dtypes: return self.fp8
    raise TypeError(f"{self.arch} has no MMA for {dtype}: it takes {', '.join(map(str, self.in_dtypes + (self.fp8.in_dtypes if self.fp8 else ())))}")
  def narrowed(self, *extents:int) -> Target:
    """the description a kernel is built with whose MMAs run over these K extents (the head dim, a tile's keys or queries): this one,
    or its narrow MMA where one of them is no multiple of the K"""
    return self.narrow if self.narrow is not None and any(x % self.mma[2] for x in extents) else self

@dataclass(frozen=True)
class TMA:
  """Bulk tensor copies (cp.async.bulk.tensor) from a 3-d tensor map in global memory (CUtensorMap: 128 bytes, 64-byte aligned) into
  LDS in 128-byte swizzle atoms, each copy's completion counted in bytes on an mbarrier in LDS. init(bar, counts, elect, sync, tmaps,
  srcs): barriers expecting counts[i] arrivals each, set up by the thread where elect, which also acquires the tensor maps the copies
  will read, then every thread of the block meets where sync (once: no thread may test a barrier before it is set up); srcs, the global
  buffers the maps point at, are named and never read: the kernel keeps them as parameters (see mbarriers);
  copy(dst, tmap, x, y, z, bar, nbytes, elect, first): one box at coordinates (x, y, z) into dst by the thread where elect, which
  first (where first: a tile's first box) tells the barrier to expect nbytes (the tile's boxes together) and arrives; wait(bar, parity, anchor, when): the threads where `when` wait for the barrier's phase of that
  parity to complete; arrive(bar, when): the threads where `when` arrive on the barrier; leave(anchor, when): those threads exit (a
  producer done issuing copies; anchor, as wait's, only orders it); point(tmap, src): a kernel's statement that points the tensor
  map at tmap (written as a template before, in program order) to the global buffer src. A producer is a warpgroup, the unit registers
  are handed over in: split(consumers, blocks) gives the registers a thread of the producer and of the consumers (that many threads)
  keep with that many blocks an SM (None: none handed over), and regs(n, when, anchor) the statement by which the warpgroups where
  `when` take n each. turn(wg, threads, hand, when, anchor): two consumer warpgroups' turns (a ping-pong) on a barrier of each
  warpgroup wg (threads: both together); the threads where `when` wait for wg's turn, or with hand end theirs, handing wg its turn.
  reduce(src, dst, nbytes, elect): nbytes of float32 in LDS from src added into global memory from dst (16-byte aligned) by the bulk
  copy engine, where elect (FlashAttention-3's dQ accumulation); reduce_wait(anchor, elect): the thread that issued them waits until
  their LDS has been read, so it may be written again (and before the block exits)."""
  init: Callable[..., UOp]
  copy: Callable[..., UOp]
  wait: Callable[[UOp, UOp, UOp, UOp], UOp]
  arrive: Callable[[UOp, UOp], UOp]
  leave: Callable[[UOp, UOp], UOp]
  point: Callable[[UOp, UOp], UOp]
  split: Callable[[int, int], tuple[int, int]|None]
  regs: Callable[[int, UOp, UOp], UOp]
  turn: Callable[[UOp, int, bool, UOp, UOp], UOp]
  reduce: Callable[[UOp, UOp, int, UOp], UOp]
  reduce_wait: Callable[[UOp, UOp], UOp]

def _cuda_tma_init(bar:UOp, counts:tuple[int, ...], elect:UOp, sync:UOp, tmaps:tuple[UOp, ...], srcs:tuple[UOp, ...]=()) -> UOp:
  # the tensor maps were written by another kernel through the generic proxy, and the copies may hold an older one in their descriptor
  # cache: the acquire orders and refreshes them
  inits = "".join(f'asm volatile("mbarrier.init.shared::cta.b64 [%0], {n};" :: "r"((unsigned)__cvta_generic_to_shared({{0}}) + {8 * i}));'
                  for i, n in enumerate(counts))
  acq = "".join(f'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"({{{3 + i}}}) : "memory");' for i in range(len(tmaps)))
  held = "".join(f"(void){{{3 + len(tmaps) + i}}}; " for i in range(len(srcs)))
  return UOp(Ops.CUSTOM, dtypes.void, (bar, elect, sync, *tmaps, *srcs),
             arg=f'{held}if ({{1}}) {{{{ {inits} asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); {acq} }}}} '
                 'if ({2}) asm volatile("bar.sync 0;" ::: "memory");')

def _cuda_tma_arrive(bar:UOp, when:UOp) -> UOp:
  return UOp(Ops.CUSTOM, dtypes.void, (bar, when), arg='if ({1}) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: '
             '"r"((unsigned)__cvta_generic_to_shared({0})) : "memory");')

def _cuda_reduce(src:UOp, dst:UOp, nbytes:int, elect:UOp) -> UOp:
  return UOp(Ops.CUSTOM, dtypes.void, (src, dst, elect), arg=f'if ({{2}}) asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 '
             f'[%0], [%1], {nbytes};\\ncp.async.bulk.commit_group;" :: "l"({{1}}), "r"((unsigned)__cvta_generic_to_shared({{0}})) : "memory");')

def _cuda_reduce_wait(anchor:UOp, elect:UOp) -> UOp:
  return UOp(Ops.CUSTOM, dtypes.void, (anchor, elect), arg='if ({1}) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");')

def _cuda_leave(anchor:UOp, when:UOp) -> UOp: return UOp(Ops.CUSTOM, dtypes.void, (anchor, when), arg="if ({1}) return;")

# setmaxnreg: 24 to 256 registers a thread, in steps of 8, from a pool of 64K an SM. The producer keeps 24 (FlashAttention-3's), the
# consumers share the rest of their blocks' part, up to 240; none is handed over where the launch gives them that many already
PRODUCER_REGS = 24
def _hopper_split(consumers:int, blocks:int) -> tuple[int, int]|None:
  part = 65536 // max(blocks, 1)
  n = min(240, (part - 128 * PRODUCER_REGS) // consumers // 8 * 8)
  return None if part // (consumers + 128) // 8 * 8 >= n else (PRODUCER_REGS, n)
def _cuda_setmaxnreg(n:int, when:UOp, anchor:UOp) -> UOp:
  op = "inc" if n > PRODUCER_REGS else "dec"
  return UOp(Ops.CUSTOM, dtypes.void, (anchor, when), arg=f'if ({{1}}) asm volatile("setmaxnreg.{op}.sync.aligned.u32 {n};");')

# named barriers 2 and 3, one a consumer warpgroup (0 is __syncthreads, 1 the consumers' block barrier): a warpgroup waits at its own
# (bar.sync) until the other has arrived (bar.arrive), the two warpgroups' threads counted
def _cuda_turn(wg:UOp, threads:int, hand:bool, when:UOp, anchor:UOp) -> UOp:
  return UOp(Ops.CUSTOM, dtypes.void, (anchor, when, (wg + 2).cast(dtypes.int)),
             arg=f'if ({{1}}) asm volatile("bar.{"arrive" if hand else "sync"} %0, {threads};" :: "r"({{2}}) : "memory");')

def _cuda_tma_point(tmap:UOp, src:UOp) -> UOp:
  # a constant of src's type rides along unused, for its header (see _cuda_wgmma)
  return UOp(Ops.CUSTOM, dtypes.void, (tmap, src, UOp.const(0, src.dtype)), arg='asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;\\n'
             'fence.proxy.tensormap::generic.release.gpu;" :: "l"({0}), "l"({1}) : "memory");')

def tensor_map_template(dtype:DType, cols:int, rows:int, planes:int, box_rows:int, box_bytes:int=128) -> bytes:
  """A CUDA tensor map (CUtensorMap, 128 bytes) of a dense (planes, rows, cols) tensor of 16- or 8-bit elements with boxes of box_bytes
  (128, 64 or 32) of columns by box_rows rows, swizzled as wide, zeros past its bounds, encoded by the driver (cuTensorMapEncodeTiled, where a CUDA
  driver is) for a placeholder address: a kernel's TMA.point gives each call its buffer's."""
  import ctypes
  lib = ctypes.CDLL("libcuda.so.1")
  m, u64, u32 = (ctypes.c_uint64 * 16)(), ctypes.c_uint64, ctypes.c_uint32
  es = dtype.itemsize   # the 8-bit floats as bytes (CU_TENSOR_MAP_DATA_TYPE_UINT8): a copy moves them as they are
  r = lib.cuTensorMapEncodeTiled(ctypes.byref(m), ctypes.c_int({dtypes.half: 6, dtypes.bfloat16: 9}.get(dtype, 0)), u32(3), ctypes.c_void_p(1 << 20),
                                 (u64 * 3)(cols, rows, planes), (u64 * 2)(cols * es, rows * cols * es), (u32 * 3)(box_bytes // es, box_rows, 1),
                                 (u32 * 3)(1, 1, 1), ctypes.c_int(0), ctypes.c_int({32: 1, 64: 2, 128: 3}[box_bytes]), ctypes.c_int(3),
                                 ctypes.c_int(0))  # no interleave, the swizzle, L2 256B, zero fill
  if r != 0: raise RuntimeError(f"cuTensorMapEncodeTiled failed ({r}) for a {planes}x{rows}x{cols} {dtype} tensor, boxes of {box_bytes // es}x{box_rows}")
  return bytes(m)

def _cuda_tma_copy(dst:UOp, tmap:UOp, x:UOp, y:UOp, z:UOp, bar:UOp, nbytes:int, elect:UOp, first:UOp) -> UOp:
  expect = f'if ({{7}}) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], {nbytes};" :: "r"((unsigned)__cvta_generic_to_shared({{5}})) : "memory"); '
  copy = ('asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {{%2, %3, %4}}], [%5];" :: '
          '"r"((unsigned)__cvta_generic_to_shared({0})), "l"({1}), "r"({2}), "r"({3}), "r"({4}), "r"((unsigned)__cvta_generic_to_shared({5})) : "memory");')
  return UOp(Ops.CUSTOM, dtypes.void, (dst, tmap, x.cast(dtypes.int), y.cast(dtypes.int), z.cast(dtypes.int), bar, elect, first),
             arg=f"if ({{6}}) {{{{ {expect}{copy} }}}}")

def _cuda_tma_wait(bar:UOp, parity:UOp, anchor:UOp, when:UOp|None=None) -> UOp:
  # the labels are local to the asm's braces, so each inlined copy has its own
  return UOp(Ops.CUSTOM, dtypes.void, (bar, parity.cast(dtypes.int), anchor, *([] if when is None else [when])),
             arg=('' if when is None else 'if ({3}) ') +
                 'asm volatile("{{\\n.reg .pred p;\\nfa_wait:\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra fa_wait;\\n}}" :: '
                 '"r"((unsigned)__cvta_generic_to_shared({0})), "r"({1}) : "memory");')

def _scalar(u:UOp) -> UOp: return u.load() if u.op is Ops.INDEX else u

def _cuda_shfl_xor(val:UOp, off:int, lane:UOp) -> UOp:
  val = _scalar(val)
  return UOp(Ops.CUSTOM, dtypes.float, (val, UOp.const(off, dtypes.int)), arg="__shfl_xor_sync(0xffffffffu, {0}, {1})")

def _amd_bpermute_xor(val:UOp, off:int, lane:UOp) -> UOp:
  val = _scalar(val)
  return UOp(Ops.CUSTOM, dtypes.float, (val, ((lane ^ off) * 4).cast(dtypes.int)),
             arg="__builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute({1}, __builtin_bit_cast(int, {0})))")

def _amd_fence(x:UOp, anchor:UOp) -> UOp:
  return UOp(Ops.CUSTOM, dtypes.int, (x.cast(dtypes.int), anchor), arg='({{asm volatile("" ::: "memory"); {0};}})')

def _guarded(srcs:tuple[UOp, ...], code:str, when:UOp|None) -> UOp:
  """the statement code on srcs ({0}, {1}, ...), run only where `when` (None: everywhere)"""
  return UOp(Ops.CUSTOM, dtypes.void, srcs, arg=code) if when is None else UOp(Ops.CUSTOM, dtypes.void, (*srcs, when), arg=f"if ({{{len(srcs)}}}) " + code)

def _cuda_copy16(dst:UOp, src:UOp, ok:UOp|None, active:UOp|None) -> UOp:
  nbytes = UOp.const(16, dtypes.int) if ok is None else ok.where(UOp.const(16, dtypes.int), UOp.const(0, dtypes.int))
  # each copy is its own commit group: the waits are for all groups, and a copy never waits on a commit statement nothing uses
  asm = ('asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\ncp.async.commit_group;" :: '
         '"r"((unsigned)__cvta_generic_to_shared({0})), "l"({1}), "r"({2}));')
  return _guarded((dst, src, nbytes), asm, active)

# tinygrad vectorizes 16-bit loads and stores to 8 bytes at most, and bf16 ones not at all (64 scalar stores a thread in a D=128
# epilogue: bf16 2-7% slower than fp16 on the H100, docs/journal.md 2026-11-25), so a 16-byte piece of an LDS tile leaves in one asm
def _cuda_store16(lds:UOp, dst:UOp, ok:UOp|None) -> UOp:
  asm = ('asm volatile("{{ .reg .b32 a, b, c, d;\\nld.shared.v4.b32 {{a, b, c, d}}, [%0];\\nst.global.v4.b32 [%1], {{a, b, c, d}}; }}" :: '
         '"r"((unsigned)__cvta_generic_to_shared({0})), "l"({1}) : "memory");')
  return _guarded((lds, dst), asm, ok)

# the atomic adds (where `when`): a relaxed add at device scope, no value returned (CUDA's atomicAdd of an unused result is a RED; HIP's
# builtin as tinygrad's own embedding backward spells it)
def _atomic(call:str) -> Callable[[UOp, UOp, UOp|None], UOp]:
  return lambda at, x, when=None: _guarded((at, x), call, when)
_cuda_atomic_add = _atomic("atomicAdd({0}, {1});")
_amd_atomic_add = _atomic("__hip_atomic_fetch_add({0}, {1}, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);")

# the wait takes an anchor: an LDS index whose buffer hangs AFTER the statements it must follow (rendered, never read). Where wgmma
# reads the tile next (Hopper) a proxy fence follows: the copies wrote through the generic proxy, wgmma reads through the async one
def _cuda_wait(anchor:UOp, wgmma_reads:bool=False) -> UOp:
  if not wgmma_reads: return UOp(Ops.CUSTOM, dtypes.void, (anchor,), arg='asm volatile("cp.async.wait_group 0;" ::);')
  return UOp(Ops.CUSTOM, dtypes.void, (anchor,), arg='asm volatile("cp.async.wait_group 0;\\nfence.proxy.async.shared::cta;" ::: "memory");')

def _cuda_ldsm(addr:UOp, trans:bool, name:str, dtype:DType) -> list[UOp]:
  """ldmatrix.x4: lane l gives the address of row l%8 of matrix l//8; register j of lane l holds row l//4 (column with .trans),
  elements 2(l%4) and 2(l%4)+1, of matrix j. Returned as the 8 16-bit values of the lane, register 0 first."""
  regs = ", ".join(f'"=r"({name}[{j}])' for j in range(4))
  ld = UOp(Ops.CUSTOM, dtypes.void, (addr,), arg=f'unsigned {name}[4]; asm volatile("ldmatrix.sync.aligned.m8n8.x4{".trans" if trans else ""}'
           f'.shared.b16 {{{{%0,%1,%2,%3}}}}, [%4];" : {regs} : "r"((unsigned)__cvta_generic_to_shared({{0}})));')
  conv = "__ushort_as_half" if dtype == dtypes.half else "__ushort_as_bfloat16"
  return [UOp(Ops.CUSTOMI, dtype, (ld, UOp.const(i, dtypes.int)), arg=f"{conv}(((unsigned short *){name})[{{1}}])") for i in range(8)]

def _wgmma_desc(addr:str, lbo:int=16, swizzle:int=128) -> tuple[str, str, str]:
  """a wgmma matrix descriptor of a tile in swizzle atoms of 8 rows of `swizzle` bytes (128, 64 or 32) from the LDS byte address addr:
  start address >> 4, leading byte offset (K-major: unused, 1; MN-major: from one atom column block to the next), stride byte offset
  8 rows of the atom (the next 8 rows), the swizzle's mode (1: 128 bytes, 2: 64, 3: 32). As (its low word, for a 32-bit register,
  and a template of the whole 64 bits, {} for the low word): a K-step adds its offset >> 4 to the low word (LDS addresses stay
  below 256 KB, so the 14-bit start address never carries), one add where building the descriptor again took five (nvcc's sm_90a
  dK/dV loop at D=128: 522 -> 424 instructions); and the whole descriptor from addr, as each K-step's was built before (rebuilt,
  _cuda_wgmma)"""
  hi = (8 * swizzle >> 4) | ({128: 1, 64: 2, 32: 3}[swizzle] << 30)
  return f"((({addr}) >> 4) & 0x3FFF) | {lbo >> 4 << 16}u", f"((({hi}ull) << 32) | (unsigned long long)({{}}))", \
    f"(((unsigned long long)((({addr}) & 0x3FFFF) >> 4)) | ({lbo >> 4}ull << 16) | ({hi}ull << 32))"

_WG_TYPES = {dtypes.half: "f16", dtypes.bfloat16: "bf16", dtypes.fp8e4m3: "e4m3", dtypes.fp8e5m2: "e5m2"}

def _cuda_wgmma(b:UOp, n:int, ksteps:int, b_block:int, name:str, dtype:DType, a:UOp|list[UOp], a_block:int=0, b_swizzle:int=128,
                acc:list[UOp]|None=None, b_kn:bool=False, into:list[UOp]|None=None, add:bool=False, live:UOp|None=None,
                rebuilt:bool=False) -> list[UOp]:
  """wgmma.mma_async m64n{n}k{K} over ksteps K-steps of 32 bytes (K: 16 16-bit or 32 8-bit elements), all 128 threads of the warpgroup
  (4 consecutive warps from a multiple of 4): D (64 x n, float32) = A·B, plus acc (this thread's n/2 floats) where given. B from the
  LDS tile at b in swizzle atoms of b_swizzle bytes a row (128, 64 or 32: tiles.Smem), b_block bytes from one atom column block to
  the next: its rows the n columns of B (K-major: K, the keys Q·Kᵀ runs over) or with b_kn (16-bit only) its rows the K-steps' 16
  rows each (MN-major: V, rows are keys). A from LDS at a the same way (K-major, a_block bytes between column blocks), or a list of values per K-step, this thread's A
  fragment in mma.sync's m16n8k16 (m16n8k32) layout (its warp's 16 rows): 16-bit values in dtype, or for an 8-bit dtype float32 values
  rounded here, two by one cvt (tinygrad's casts round one at a time, and leave the bytes to be packed). Thread l of warp w gets rows 16w + l//4 and
  16w + l//4 + 8 in mma.sync's m16n8 C layout, 8 columns at a time: returned as its n/2 floats, the product waited for.
  into: the accumulator's n/2 registers (their indexes), D = A·B (+ D with add) left in flight in them: a statement, committed, not waited
  for (_cuda_wgmma_wait), the statement run only where `live`. rebuilt (FwdConfig.rebuilt), with A from LDS: each K-step's two
  descriptors built from the tiles' addresses, where otherwise a low word is kept for each and added to (_wgmma_desc)."""
  ty, nd, regs_a = _WG_TYPES[dtype], n // 2, isinstance(a, list)
  assert not (b_kn and dtype.itemsize == 1), "wgmma takes 8-bit B K-major only"
  na = 4 * ksteps if regs_a else 0   # A's 32-bit registers
  src = [b, *(a if regs_a else [a]), *(acc or into or []), *([] if live is None else [live])]
  ai, ci = 1, 1 + (len(a) if regs_a else 1)   # where A's and acc's values start among the custom's sources
  regs = ",".join(f"%{i}" for i in range(nd))
  outs = ", ".join(f'"+f"(*{{{ci + i}}})' if into else f'"+f"({name}[{i}])' for i in range(nd))
  steps, accumulate = [], acc is not None or add
  lds_b, lds_a = "(unsigned)__cvta_generic_to_shared({0})", "(unsigned)__cvta_generic_to_shared({1})"
  (low_b, whole_b, _), (low_a, whole_a, _) = _wgmma_desc(lds_b, b_block if b_kn else 16, b_swizzle), _wgmma_desc(lds_a)
  rebuilt = rebuilt and not regs_a
  for kk in range(ksteps):
    # the K-step's B: MN-major 16 rows of an atom on; K-major 32 bytes on, into the next atom column block past one atom
    kb = kk * 16 * b_swizzle if b_kn else kk * 32 // b_swizzle * b_block + kk * 32 % b_swizzle
    desc_b = _wgmma_desc(f"{name}_b + {kb}", b_block if b_kn else 16, b_swizzle)[2] if rebuilt else whole_b.format(f"{name}_db + {kb >> 4}u")
    if regs_a:
      a_op, a_in = f"{{{{%{nd + 1}, %{nd + 2}, %{nd + 3}, %{nd + 4}}}}}", ", ".join(f'"r"({name}_a[{4 * kk + j}])' for j in range(4)) + ", "
      scale, b_op, trans = f"%{nd + 5}", f"%{nd}", f", {int(b_kn)}" if dtype.itemsize == 2 else ""   # 8-bit: no transpose flags
      ins = f'"l"({desc_b}), {a_in}"r"({1 if accumulate else min(kk, 1)})'
    else:
      ka = kk * 32 // 128 * a_block + kk * 32 % 128
      a_op, b_op, scale, trans = f"%{nd}", f"%{nd + 1}", f"%{nd + 2}", f", 0, {int(b_kn)}" if dtype.itemsize == 2 else ""
      desc_a = _wgmma_desc(f"{name}_a + {ka}")[2] if rebuilt else whole_a.format(f"{name}_da + {ka >> 4}u")
      ins = f'"l"({desc_a}), "l"({desc_b}), "r"({1 if accumulate else min(kk, 1)})'
    steps.append(f'asm volatile("{{{{\\n.reg .pred p;\\nsetp.ne.b32 p, {scale}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k{32 // dtype.itemsize}.f32.{ty}.{ty} '
                 f'{{{{{regs}}}}}, {a_op}, {b_op}, p, 1, 1{trans};\\n}}}}" : {outs} : {ins});')
  init = ", ".join(f"{{{ci + i}}}" for i in range(nd)) if acc is not None else ", ".join(["0.0f"] * nd)
  if dtype.itemsize == 1:   # A from floats: each register from 4 values, lowest byte first
    assert not regs_a or a[0].dtype == dtypes.float, "8-bit A in registers comes as float32 values, rounded here"
    cvt = f"cvt.rn.satfinite.{ty}x2.f32"
    a_decl = f"; unsigned {name}_a[{na}]; " + "; ".join(
      f'asm("{{{{ .reg .b16 lo, hi;\\n{cvt} lo, %2, %1;\\n{cvt} hi, %4, %3;\\nmov.b32 %0, {{{{lo, hi}}}};\\n}}}}" : "=r"({name}_a[{j}]) : '
      + ", ".join(f'"f"({{{ai + 4 * j + i}}})' for i in range(4)) + ")" for j in range(na))
  else:
    u16 = "__half_as_ushort" if dtype == dtypes.half else "__bfloat16_as_ushort"
    a_decl = f"; unsigned {name}_a[{na}] = {{{{" + ", ".join(f"((unsigned){u16}({{{ai + 2 * j}}}) | ((unsigned){u16}({{{ai + 2 * j + 1}}}) << 16))"
                                                              for j in range(na)) + "}}"
  decl = f"unsigned {name}_b = {lds_b}, {name}_a = {lds_a}" if rebuilt else f"unsigned {name}_db = {low_b}" + (a_decl if regs_a else f", {name}_da = {low_a}")
  body = decl + '; asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); ' + " ".join(steps) + ' asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");'
  # a constant of the input type rides along unused: tinygrad includes that type's header for the values a kernel has, and a kernel
  # whose 16-bit data never leaves LDS but through wgmma has none
  if into: return [UOp(Ops.CUSTOM, dtypes.void, (*src, UOp.const(0, dtype)), arg=f"if ({{{len(src) - 1}}}) {{{{ {body} }}}}" if live is not None else f"{{{{ {body} }}}}")]
  code = f"float {name}[{nd}] = {{{{{init}}}}}; {{{{ " + body + ' asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }}'
  mm = UOp(Ops.CUSTOM, dtypes.void, (*src, UOp.const(0, dtype)), arg=code)
  return [UOp(Ops.CUSTOMI, dtypes.float, (mm, UOp.const(i, dtypes.int)), arg=f"{name}[{{1}}]") for i in range(nd)]

def _cuda_wgmma_wait(regs:list[UOp], pending:int, live:UOp) -> UOp:
  """a statement, run where live: wait until at most `pending` wgmma groups are in flight, the registers (indexes) of the products
  waited for its asm operands, so no read of them moves above it"""
  outs = ", ".join(f'"+f"(*{{{i}}})' for i in range(len(regs)))
  return UOp(Ops.CUSTOM, dtypes.void, (*regs, live), arg=f'if ({{{len(regs)}}}) asm volatile("wgmma.wait_group.sync.aligned {pending};" : {outs} :: "memory");')

def _cuda_scale_if(regs:list[UOp], factors:list[UOp], rows:list[int], when:UOp) -> UOp:
  """a statement: register regs[i] (an index) times factors[rows[i]], all behind one branch taken where `when`"""
  n, k = len(regs), len(factors)
  body = " ".join(f"*{{{i}}} *= {{{n + r}}};" for i, r in enumerate(rows))
  return UOp(Ops.CUSTOM, dtypes.void, (*regs, *factors, when), arg=f"if ({{{n + k}}}) {{{{ {body} }}}}")

# RDNA3 wmma_f32_16x16x16: A and B hold one row (col) of 16 k per lane, duplicated in both half-waves; C holds column lane%16, rows lane//16+2e
RDNA3 = Target("gfx1100", "AMD", 32, (16, 16, 16),
  a=Frag((16, 16), 1, lanes=(0,), elems=(1,)), b=Frag((16, 16), 1, lanes=(0,), elems=(1,)),
  c=Frag((8, 2, 16), 2, lanes=(1, 2), elems=(0,)),
  lds_bytes=65536, in_dtypes=(dtypes.half, dtypes.bfloat16), shuffle=_amd_bpermute_xor, multiprocessors=96, lds_pad=True,
  # 256 VGPRs a lane, its A operands twice: D=128's Q alone takes 64 (clang-22: dQ's Q and dO held, 73 spilled; read, none); its
  # decoding key tile a warp half RDNA4's (D=256 at 2 warps 1 VGPR spilled, at 4 none; D=64's 32 keys took 248-256 VGPRs, 16 take 183);
  # under modifications beyond causal 16 keys past D=64 (the masked forward at 80: 32 keys, 6 VGPRs spilled; 16, none)
  hold=32, decode_kv=1024, bwd_acc=64, fwd_warp=(16, 32, 128, 64), fwd_split=(176, 128), one_stage=128, bwd_one_stage=0, fence=_amd_fence,
  atomic_add=_amd_atomic_add)

# mma.sync m16n8k16 (PTX ISA "Matrix Fragments for mma.m16n8k16"): groupID = lane//4 picks rows (A, C) or the column (B)
SM80 = Target("sm_80", "CUDA", 32, (16, 8, 16),
  a=Frag((2, 8, 2, 4, 2), 2, lanes=(1, 3), elems=(2, 0, 4)),
  b=Frag((8, 2, 4, 2), 1, lanes=(0, 2), elems=(1, 3)),
  c=Frag((2, 8, 4, 2), 2, lanes=(1, 2), elems=(0, 3)),
  lds_bytes=49152, in_dtypes=(dtypes.half, dtypes.bfloat16), shuffle=_cuda_shfl_xor,
  copy16=_cuda_copy16, copy_wait=_cuda_wait, store16=_cuda_store16, ldsm=_cuda_ldsm, multiprocessors=108, atomic_add=_cuda_atomic_add,
  # dK/dV of 32x32x2 at D=144 (144 a lane) led the split 16x32x2s2, at 176 (176) it trailed (the H100 with these tiles, causal B=4
  # H=12 N=4096: 5.37 against 7.05 ms, 9.86 against 7.02; docs/journal.md 2026-11-28)
  bwd_acc=160,
  # one ldmatrix.x4 per A fragment (16x16), per two B fragments from K rows (2 n8 x k16), per two from V rows with .trans
  ldsm_addr={"a": lambda l: (l % 8 + (l // 8 % 2) * 8, l // 16 * 8), "b": lambda l: (l % 8 + l // 16 * 8, l // 8 % 2 * 8),
             "bt": lambda l: (l % 8 + (l // 8 % 2) * 8, l // 16 * 8)})

def _fp8(t:Target, mma:tuple[int, int, int], a:Frag, b:Frag, formats:tuple[DType, ...]) -> Target:
  """t's 8-bit float MMA: its shape, A and B fragments (C's as t's) and formats; the 16-bit-only fast paths (ldmatrix, wgmma, bulk
  copies) off, its fragments read element by element"""
  return replace(t, mma=mma, a=a, b=b, in_dtypes=formats, ldsm=None, ldsm_addr=None, wgmma=None, tma=None, narrow=None)

OCP_FP8, FNUZ_FP8 = (dtypes.fp8e4m3, dtypes.fp8e5m2), (dtypes.fp8e4m3fnuz, dtypes.fp8e5m2fnuz)

# mma.sync m16n8k32 on e4m3/e5m2 (sm_89+; PTX "Matrix Fragments for mma.m16n8k32"): sm_80's fragments with 4 consecutive k a register
SM89_FP8 = _fp8(SM80, (16, 8, 32), a=Frag((2, 8, 2, 4, 4), 2, lanes=(1, 3), elems=(2, 0, 4)), b=Frag((8, 2, 4, 4), 1, lanes=(0, 2), elems=(1, 3)),
                formats=OCP_FP8)

# Hopper's blocks may use 227 KB of shared memory, but at most 48 KB of it declared statically
HOPPER_LDS, STATIC_LDS = 232448, 49152

HOPPER_TMA = TMA(_cuda_tma_init, _cuda_tma_copy, _cuda_tma_wait, _cuda_tma_arrive, _cuda_leave, _cuda_tma_point, _hopper_split, _cuda_setmaxnreg,
                 _cuda_turn, _cuda_reduce, _cuda_reduce_wait)

# Hopper (sm_90a): sm_80's mma.sync and copies, and wgmma for warpgroups
# and wgmma on e4m3/e5m2 (m64nNk32, A's registers in mma.sync m16n8k32's layout), Vᵀ's keys in groups of 16 ordered so that the
# key at position 4q+2j+e is 8j+2q+e: lane q of a row holds P's columns 2q, 2q+1, 2q+8, 2q+9 (C), A wants 4q..4q+3
SM90A = replace(SM80, arch="sm_90a", lds_bytes=HOPPER_LDS, wgmma=_cuda_wgmma, wgmma_wait=_cuda_wgmma_wait, warpgroups=True, multiprocessors=132,
                min_blocks=True, tma=HOPPER_TMA, scale_if=_cuda_scale_if,
                # its generic dK/dV (mma.sync, where wgmma's tiles do not run): 64x32x4 at D=192 (192 a lane) led 64x32x8s2, at 224 trailed
                # (causal B=4 N=4096: 3.02 against 4.77 ms, 10.40 against 6.42; docs/journal.md 2026-11-28)
                bwd_acc=192,
                fp8=replace(SM89_FP8, arch="sm_90a", lds_bytes=HOPPER_LDS, multiprocessors=132, min_blocks=True, wgmma=_cuda_wgmma,
                            wgmma_wait=_cuda_wgmma_wait, warpgroups=True, v_keys=((2, 4, 2), (1, 0, 2)), tma=HOPPER_TMA, scale_if=_cuda_scale_if))

# RDNA4 wmma_f32_16x16x16 (gfx12): no duplicated operands; A and B hold k 0-3 and 8-11 of row (column) lane%16 in lanes 0-15, k 4-7
# and 12-15 in lanes 16-31; C holds column lane%16, rows 8(lane//16)+e. Its 8-bit float WMMA (e4m3, e5m2) has the same shape and
# fragments, 8 values a lane in two registers: the order of k within them is the hardware's to choose as long as A's and B's agree,
# and here they are one description
RDNA4 = Target("gfx1201", "AMD", 32, (16, 16, 16),
  a=Frag((16, 2, 2, 4), 1, lanes=(2, 0), elems=(1, 3)), b=Frag((16, 2, 2, 4), 1, lanes=(2, 0), elems=(1, 3)),
  c=Frag((2, 8, 16), 2, lanes=(0, 2), elems=(1,)),
  lds_bytes=65536, in_dtypes=(dtypes.half, dtypes.bfloat16), shuffle=_amd_bpermute_xor, multiprocessors=64, lds_pad=True,
  # 256 VGPRs a lane: D=128's Q held (32), dQ's Q and dO (64) read again (held, 7 spilled)
  hold=32, decode_kv=2048, bwd_acc=64, fwd_warp=(16, 32, 128, 96), fwd_split=(176, 128), one_stage=128, bwd_one_stage=0, fence=_amd_fence,
  atomic_add=_amd_atomic_add)
# its 8-bit forward at 16 keys a step past D=96 (clang-22 at 112, 32 keys: 256 VGPRs, 16 spilled; 16 keys 198, none)
RDNA4 = replace(RDNA4, fp8=replace(_fp8(RDNA4, RDNA4.mma, RDNA4.a, RDNA4.b, OCP_FP8), fwd_warp=(16, 32, 96, 96)))

# CDNA MFMA on 64-lane waves, v_mfma_f32_16x16x{16,32}: A and B hold K/4 consecutive k of row (column) lane%16, the k block lane//16;
# C holds column lane%16, rows 4(lane//16)+e. ds_bpermute addresses all 64 lanes
# (a K of 32 keeps the 16x16x16 MFMA as its narrow one). Both have v_mfma_f32_16x16x32 on 8-bit floats: CDNA3 in the fnuz formats,
# CDNA4 in the OCP ones
def _cdna(arch:str, k:int, lds:int, cus:int, fp8:tuple[DType, ...]=(), pad:bool=True, fp8_block:int=1 << 16) -> Target:
  ab = lambda k: Frag((16, 4, k // 4), 1, lanes=(1, 0), elems=(2,))
  t = Target(arch, "AMD", 64, (16, 16, k), a=ab(k), b=ab(k), c=Frag((4, 4, 16), 2, lanes=(0, 2), elems=(1,)), lds_bytes=lds,
             in_dtypes=(dtypes.half, dtypes.bfloat16), shuffle=_amd_bpermute_xor, multiprocessors=cus, lds_pad=pad, fwd_block_keys=(1 << 16, 512),
             narrow=_cdna(arch, 16, lds, cus, pad=pad) if k > 16 else None, atomic_add=_amd_atomic_add)
  # its 8-bit decoding key tile at most 8192 keys x head dim (clang-22 at D=192 and 256, 64 keys: 6-8 VGPRs spilled; 32, none)
  return replace(t, fp8=replace(_fp8(t, (16, 16, 32), ab(32), ab(32), fp8), decode_kv=8192, fwd_block_keys=(fp8_block, 512))) if fp8 else t
# MI300X: 64 KB of LDS per CU, the tighter of its two files: its tiles stay XOR-swizzled (at D=128 the forward fits 244 VGPRs beside
# that, two waves a SIMD, and its 32 KB two blocks a CU; padded, 34 KB: one)
CDNA3 = _cdna("gfx942", 16, 65536, 304, FNUZ_FP8, pad=False, fp8_block=256)   # its 8-bit forward's blocks of 8 warps at 32 keys (fwd_block_keys)
CDNA4 = _cdna("gfx950", 32, 163840, 256, OCP_FP8)    # MI355X: 160 KB

def target_for(device:str) -> Target:
  """The target that runs kernels on a tinygrad device; the PYTHON emulator gets the portable twin of the one it models."""
  supported = ("supported are AMD RDNA3 (gfx11xx), RDNA4 (gfx12xx), CDNA3 (gfx942), CDNA4 (gfx950) and NVIDIA sm_80+ (DEV=AMD, CUDA or NV), "
               "or tinygrad's emulator of them (DEV=PYTHON::<arch>)")
  if device.split(":")[0].upper() not in ("AMD", "CUDA", "NV", "PYTHON"): raise ValueError(f"device {device!r} has no fa_uop target: {supported}")
  arch = Device[device].renderer.target.arch
  base = RDNA3 if arch.startswith("gfx11") else RDNA4 if arch.startswith("gfx12") else {"gfx942": CDNA3, "gfx950": CDNA4}.get(arch) \
    or (SM80 if arch.startswith("sm_") and int(arch[3:]) >= 80 else None)
  if base is None: raise ValueError(f"device {device!r} (arch {arch!r}) has no fa_uop target: {supported}")
  # an H100 or H200 gets the Hopper target (and its device sm_90a code) unless FA_UOP_HOPPER=0 keeps it on sm_80's
  if arch == "sm_90" and device.split(":")[0] == "CUDA" and os.environ.get("FA_UOP_HOPPER", "1") != "0": return hopper(device)
  # sm_89 (Ada) and later have mma.sync on 8-bit floats
  fp8 = SM89_FP8 if base is SM80 and int(arch[3:]) >= 89 else base.fp8
  base = replace(base, arch=arch, narrow=base.narrow and replace(base.narrow, arch=arch), fp8=fp8 and replace(fp8, arch=arch))
  if device.split(":")[0] == "AMD": amd_renderer(device)
  return base.portable() if device.split(":")[0] == "PYTHON" else base

DSMEM_MARK = "fa_uop dynamic shared memory bytes"

class DynamicSmem:
  """A CUDA renderer mixin: a kernel whose LDS buffers need more than the 48 KB a static declaration may hold gets them as pieces of
  one dynamic shared-memory array (each 1024-byte aligned, as wgmma's 128-byte swizzle atoms need), and its size as a PTX comment
  that the loader (hopper's program class) reads to launch it with that much. Kernels within 48 KB render as before."""
  shared_max = HOPPER_LDS
  def render(self, uops:list[UOp]) -> str:
    sizes = [u.max_numel() * u.dtype.itemsize for u in uops if u.op is Ops.BUFFER and u.addrspace == AddrSpace.LOCAL]
    self.dsmem = [0, sum(-(-n // 1024) * 1024 for n in sizes)] if sum(sizes) > STATIC_LDS else None
    return super().render(uops)  # type: ignore[misc]
  def render_buffer(self, x:UOp) -> str:
    if self.dsmem is None or x.addrspace != AddrSpace.LOCAL: return super().render_buffer(x)  # type: ignore[misc]
    off, self.dsmem[0] = self.dsmem[0], self.dsmem[0] + -(-x.max_numel() * x.dtype.itemsize // 1024) * 1024
    ty = self.render_dtype(x.dtype)  # type: ignore[attr-defined]
    return f"{ty}* {self[x]} = ({ty}*)(fa_dsmem + {off});"  # type: ignore[index]
  def render_kernel(self, function_name, kernel, bufs, uops, prefix=None) -> str:
    if self.dsmem is not None:
      kernel = [f'  extern __shared__ __align__(1024) unsigned char fa_dsmem[]; asm volatile("// {DSMEM_MARK} {self.dsmem[1]}");', *kernel]
    return super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]

@dataclass(frozen=True)
class BoundedKernel(KernelInfo):
  """tinygrad's kernel info and the blocks per multiprocessor the compiler is asked to fit (0: its own choice), for MinBlocks; and
  the threads the block's barriers wait for (0: all), for FastMath: a warp-specialised kernel's consumers, whose producer meets
  none of them; and whether UniformWarp broadcasts its warp index"""
  min_blocks: int = 0
  consumers: int = 0
  uniform_warp: bool = False

class FastMath:
  """A CUDA renderer mixin: in fa_uop's kernels (BoundedKernel info) a float exp2 is one `ex2.approx.ftz.f32` and a float max is fmaxf.
  Without fast math nvrtc makes tinygrad's exp2 (CUDA's exp2f) a MUFU.EX2 with a denormal check and two predicated multiplies
  around it, and tinygrad's max (a < b ? b : a: MAX is no op of the C renderers) a compare and a select, where FlashAttention's
  --use_fast_math build has one instruction each. Only results below 2^-126 (now 0) and a max beside a NaN (now the other value)
  differ; the online softmax reads neither. Other kernels (tinygrad's own on the device) render as tinygrad renders them."""
  fast = False
  string_rewrite = PatternMatcher([
    (UPat(Ops.EXP2, dtypes.float, (UPat.var("x"),)), lambda ctx, x: f"fa_ex2({ctx[x]})" if ctx.fast else None),
    (UPat(Ops.WHERE, dtypes.float, (UPat(Ops.CMPLT, src=(UPat.var("a"), UPat.var("b"))), UPat.var("b"), UPat.var("a"))),
     lambda ctx, a, b: f"fmaxf({ctx[a]}, {ctx[b]})" if ctx.fast else None)]) + CUDARenderer.string_rewrite
  def render(self, uops:list[UOp]) -> str:
    info = next((u.arg for u in uops if u.op is Ops.SINK and isinstance(u.arg, BoundedKernel)), None)
    self.fast = info is not None
    # a block barrier of a warp-specialised kernel: barrier 1 over its consumer threads (the producer never meets one)
    self.barrier = f'asm volatile("bar.sync 1, {info.consumers};" ::: "memory");' if info is not None and info.consumers else "__syncthreads();"
    src = super().render(uops)  # type: ignore[misc]
    ex2 = '__device__ __forceinline__ float fa_ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }'
    return f"{ex2}\n{src}" if self.fast and "fa_ex2(" in src else src

class MinBlocks:
  """A CUDA renderer mixin: a kernel whose info (BoundedKernel) asks for n blocks per multiprocessor gets __launch_bounds__(threads, n),
  so that ptxas keeps its registers within what n blocks leave each (tinygrad writes the threads only)"""
  def render_kernel(self, function_name, kernel, bufs, uops, prefix=None) -> str:
    src = super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]
    n = next((getattr(u.arg, "min_blocks", 0) for u in uops if u.op is Ops.SINK), 0)
    return re.sub(r"__launch_bounds__\((\d+)\)", rf"__launch_bounds__(\1, {n})", src, count=1) if n else src

class UniformWarp:
  """A CUDA renderer mixin: in fa_uop's kernels that ask for it (BoundedKernel.uniform_warp) and whose x threads are whole warps (a
  warp's lanes, Block.lane), the warp index threadIdx.y is read through a broadcast from lane 0 (__shfl_sync), which tells nvcc it is
  the same across the warp: the wgmma descriptors made from it (a warpgroup's rows) then stay in uniform registers rather than move
  there (R2UR) before each wgmma. nvcc 13, sm_90a: the warp-specialised kernels lose 44-140 R2UR and 2-11% of their instructions (the
  backward ring's dK/dV step 398 -> 320). Timed on the H200 (docs/runs/2026-11-29_uniform_warp/ab.log): the backward's rings 3-5%
  faster, so they ask; the forward's level at D=128 and 5% slower at D=64 (128x224x8tr2p), so it does not"""
  def render_kernel(self, function_name, kernel, bufs, uops, prefix=None) -> str:
    src = super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]
    lanes = next((u.src[0].vmax for u in uops if u.op is Ops.SPECIAL and u.arg == "lidx0"), 0)
    if not any(u.op is Ops.SINK and getattr(u.arg, "uniform_warp", False) for u in uops) or lanes % 32: return src
    return src.replace("= threadIdx.y;", "= __shfl_sync(0xffffffffu, (int)threadIdx.y, 0);", 1)

_FP8_MAX, E5M2 = {dtypes.fp8e4m3: 448.0, dtypes.fp8e5m2: 57344.0, dtypes.fp8e4m3fnuz: 240.0, dtypes.fp8e5m2fnuz: 57344.0}, (dtypes.fp8e5m2, dtypes.fp8e5m2fnuz)

def _amd_to_fp8(x:str, dt:DType) -> str:
  """x (float) rounded to dt by the hardware's conversion, finite values saturated to dt's largest: 240 for e4m3fnuz, 448 for e4m3"""
  top, cvt = f"{_FP8_MAX[dt]}f", "bf8" if dt in E5M2 else "fp8"
  return (f"({{float fa_v = {x}; if ((__builtin_bit_cast(unsigned, fa_v) & 0x7F800000u) != 0x7F800000u) fa_v = __builtin_amdgcn_fmed3f(fa_v, {top}, "
          f"-{top}); (unsigned char)__builtin_amdgcn_cvt_pk_{cvt}_f32(fa_v, fa_v, 0, false);}})")

def _mfma_fnuz(x:UOp) -> UOp|None:
  """gfx942's fp8 MFMA on fnuz operands: its builtin (the gfx950 one's name) takes each as a long"""
  if x.src[0].dtype not in FNUZ_FP8: return None
  return x.replace(src=(x.src[0].bitcast(dtypes.uint64), x.src[1].bitcast(dtypes.uint64), x.src[2]),
                   arg=(x.arg[0], dict(zip(FNUZ_FP8, OCP_FP8))[x.arg[1]], *x.arg[2:]))

def _wmma_fp8_gfx12(x:UOp) -> UOp|None:
  """gfx12's fp8 WMMA takes each operand's 8 values as two ints"""
  return x.replace(src=(x.src[0].bitcast(dtypes.int), x.src[1].bitcast(dtypes.int), x.src[2])) if x.src[0].dtype in OCP_FP8 else None

def _amd_fp8_formats(arch:str) -> tuple[DType, ...]: return FNUZ_FP8 if arch == "gfx942" else OCP_FP8 if arch.startswith("gfx12") else ()

class AmdFp8:
  """A HIP renderer mixin: the 8-bit floats tinygrad 0.14 renders on gfx950 only, on the other AMD targets with an fp8 MMA: gfx942's
  fnuz formats (its conversions and v_mfma_f32_16x16x32_fp8 read fnuz bits: the gfx950 builtins, other numbers) and gfx12's OCP
  ones (v_wmma_f32_16x16x16_fp8_fp8 takes each operand as two ints). Other dtypes and targets render as tinygrad renders them."""
  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self.fp8_formats()
  def fp8_formats(self):
    arch = self.target.arch  # type: ignore[attr-defined]
    self.fp8 = _amd_fp8_formats(arch)
    if not self.fp8: return
    self.type_map = {**self.type_map, **{d: "hip_bf8" if d in E5M2 else "hip_fp8" for d in self.fp8}}  # type: ignore[has-type]
    self.extra_matcher = PatternMatcher([(UPat(Ops.WMMA, dtypes.float, name="x"), _mfma_fnuz if arch == "gfx942" else _wmma_fp8_gfx12)]) \
      + self.extra_matcher  # type: ignore[has-type]
    self.string_rewrite = PatternMatcher([
      (UPat.cvar("c").cast(self.fp8, name="x"), lambda ctx, x, c: _amd_to_fp8(
        ctx.nan if math.isnan(c.val) else ctx.infinity if c.val == math.inf else f"-{ctx.infinity}" if c.val == -math.inf else f"{c.val}f", x.dtype)),
      (UPat(Ops.CAST, self.fp8, (UPat(dtype=dtypes.float),), name="x"), lambda ctx, x: _amd_to_fp8(ctx[x.src[0]], x.dtype)),
      (UPat(Ops.CAST, dtypes.float, (UPat.var("y", self.fp8),), name="x"), lambda ctx, x, y:
        f"__builtin_amdgcn_cvt_f32_{'bf8' if y.dtype in E5M2 else 'fp8'}((unsigned int){ctx[y]}, 0)")]) + self.string_rewrite  # type: ignore[has-type]
  def supported_dtypes(self): return super().supported_dtypes() | set(self.fp8)  # type: ignore[misc]
  def render_kernel(self, function_name, kernel, bufs, uops, prefix=None) -> str:
    # tinygrad spells gfx12's 8-bit builtin with one underscore too many (its name table is CDNA's)
    src = super().render_kernel(function_name, kernel, bufs, uops, prefix)  # type: ignore[misc]
    return re.sub(r"_16x16x16__(fp8_fp8|bf8_bf8)_w32_gfx12", r"_16x16x16_\1_w32_gfx12", src)

def _select_load(ld:UOp, ptr:UOp, alt:UOp, gate:UOp) -> UOp|None:
  """a gated load from global memory as a load from an address that is always in the buffer (element 0 where the gate is off) and a
  select: HIP's (gate ? *p : alt) is a branch around the load, which splits the kernel into blocks that the AMDGPU scheduler cannot
  order across (clang-22, gfx1100's dK/dV at D=128 with a query tail: 473 VGPRs spilled; as selects none, docs/journal.md 2026-11-27)"""
  at = ptr.src[0] if ptr.op is Ops.CAST else ptr   # a vector load's pointer is a cast of its SHRINK
  if at.op not in (Ops.INDEX, Ops.SHRINK) or at.src[0].addrspace is not AddrSpace.GLOBAL: return None
  if dtypes.is_float(ld.dtype) and ld.dtype.itemsize == 1: return None   # tinygrad would select 8-bit floats in float32
  at = at.replace(src=(at.src[0], gate.where(at.src[1], at.src[1].const_like(0)), *at.src[2:]))
  return gate.where(ld.replace(src=(ptr.replace(src=(at,)) if ptr.op is Ops.CAST else at,)), alt)

class AmdSelects:
  """A HIP renderer mixin: loads behind a guard (tails, masks) as selects, not branches (_select_load)"""
  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self.selects()
  def selects(self):
    self.extra_matcher = PatternMatcher([(UPat(Ops.LOAD, src=(UPat.var("ptr"), UPat.var("alt"), UPat.var("gate")), name="ld"), _select_load)]) \
      + self.extra_matcher  # type: ignore[has-type]

class AmdOffsets:
  """A HIP renderer mixin: a global buffer of at most 4 GB addressed by a 32-bit unsigned byte offset from its base. HIP's `p + i`
  (a signed int) is a 64-bit address a lane, two VGPRs, and clang keeps one for every access hoisted out of a loop; from a base clang
  holds in SGPRs and one 32-bit VGPR (global_load's saddr form) more fit (clang-22, gfx1100's bf16 forward at D=112: 256 VGPRs and 67
  spilled -> 225, none; RDNA's kernels with scratch at D=48-128 and 256, 58 -> 49; docs/journal.md 2026-11-27, twenty-third
  session). Exact for every index in the buffer, the only ones loaded or stored"""
  def offsets(self) -> bool:
    # RDNA only (gfx11, gfx12: 256 VGPRs a lane). CDNA's 512 (AGPRs too) hold the 64-bit addresses, and there the offsets cost more
    # VGPRs than they saved (clang-22 at D=128, 192 and 256: 99 kernels more, 60 fewer, 5 a wave less a SIMD and 2 one more)
    return self.target.arch.startswith(("gfx11", "gfx12"))  # type: ignore[attr-defined]
  def render_index(self, x:UOp, buf:UOp, idx:UOp) -> str:
    if not self.offsets() or buf.addrspace is not AddrSpace.GLOBAL or not 0 < buf.max_numel() * (size:=buf.dtype.itemsize) <= 1 << 32:
      return super().render_index(x, buf, idx)  # type: ignore[misc]
    # an index's constant term: its last 4 KB go on the pointer, where clang folds them into the instruction's offset field as it did
    # with the signed index (one offset for a tile's pieces), the rest into the offset, which must not be negative (m: a causal dQ's
    # blocks are walked from the last, -8192·gidx) nor reach 4 GB
    var, c = (idx.src[0], int(idx.src[1].vmin)) if idx.op is Ops.ADD and idx.src[1].vmin == idx.src[1].vmax else (idx, 0)
    if "split" in getattr(self, "form", ()) and (split:=self.split_index(buf, var, c, size)) is not None: return split
    m = max(0, -int(var.vmin))
    base = max(c - c % (4096 // size), m) if c else 0
    if c and (buf.max_numel() - c + base) * size > 1 << 32: var, c, base = idx, 0, 0
    off = f"(unsigned)({self[var]})" + (f"+{base}u" if base else "")  # type: ignore[index]
    return f"((__typeof__({self[buf]}))((char*){self[buf]}+({off})*{size}u)" + (f"+{c - base})" if c - base else ")")  # type: ignore[index]

  def split_index(self, buf:UOp, var:UOp, c:int, size:int) -> str|None:
    """(AmdFit's form "split") the index's terms one value a wave (blocks, warps, loop indices: _wave_uniform) added to the base in
    SGPRs, the rest as the 32-bit offset a lane, c's last 4 KB on the pointer; None where no term is uniform or the rest may be negative"""
    terms, warps = _terms(var), getattr(self, "warps_uniform", False)
    uni, div = [t for t in terms if _wave_uniform(t, warps)], [t for t in terms if not _wave_uniform(t, warps)]
    lo = c % (4096 // size)
    if not (uni or c - lo) or sum(t.vmin for t in div) < 0 or sum(t.vmax for t in div) * size >= 1 << 32: return None
    u = "+".join([self[t] for t in uni] + ([str(c - lo)] if c - lo else []))  # type: ignore[index]
    d = f"+(unsigned)({'+'.join(self[t] for t in div)})*{size}u" if div else ""  # type: ignore[index]
    return f"((__typeof__({self[buf]}))((char*){self[buf]}+(long)({u})*{size}{d})" + (f"+{lo})" if lo else ")")  # type: ignore[index]

def _terms(x:UOp) -> list[UOp]: return [t for s in x.src for t in _terms(s)] if x.op is Ops.ADD else [x]

def _wave_uniform(x:UOp, warps:bool) -> bool:
  """whether x is one value in every lane of a wave: made of constants, loop indices, block indices and, with warps (AmdUniformWarps),
  the warp indices"""
  if x.op in (Ops.CONST, Ops.RANGE): return True
  if x.op is Ops.SPECIAL: return x.arg.startswith("gidx") or (warps and x.arg.startswith("lidx") and x.arg != "lidx0")
  return x.op in GroupOp.ALU | {Ops.CAST} and all(_wave_uniform(s, warps) for s in x.src)

class AmdUniformWarps:
  """A HIP renderer mixin (AmdFit's form "uniform"): where a block's first thread dimension is whole waves (fa_uop's lanes), its other
  thread indices (the warps) are one value a wave, which clang cannot tell from HIP's local ids: read through readfirstlane (where the
  wave size the compiler chose divides the first dimension) they, and what is worked out from them, live in SGPRs"""
  def render(self, uops:list[UOp]) -> str:
    first = next((int(u.src[0].vmax) for u in uops if u.op is Ops.SPECIAL and u.arg == "lidx0"), 1)
    local = HIPRenderer.code_for_workitem["l"]
    rfl = lambda x: f"(({first} % __builtin_amdgcn_wavefrontsize()) ? (int){local(x)} : __builtin_amdgcn_readfirstlane((int){local(x)}))"
    self.warps_uniform = on = "uniform" in getattr(self, "form", ()) and first % 32 == 0
    self.code_for_workitem = {**HIPRenderer.code_for_workitem, "l": (lambda x: local(x) if x == "0" else rfl(x)) if on else local}
    return super().render(uops)  # type: ignore[misc]

def amd_scratch(lib:bytes) -> int:
  """the scratch bytes a lane of an AMD code object's kernel takes: its kernel descriptor's private segment (the first in .rodata)"""
  from tinygrad.runtime.support.elf import elf_loader
  image, sections, _ = elf_loader(lib)
  at = next(sh.header.sh_addr for sh in sections if sh.name == ".rodata")
  return int.from_bytes(bytes(image[at + 4:at + 8]), "little")

# the equivalent forms AmdFit renders a kernel in, in order: as is; the warp indices uniform (AmdUniformWarps); the scheduler kept from
# moving code across each MMA's and KV loop's start (sched_barrier); uniform and addresses split into a base a wave and an offset a lane
AMD_FORMS: tuple[tuple[str, ...], ...] = ((), ("uniform",), ("sched",), ("uniform", "split"))

class AmdFit:
  """A HIP renderer mixin: RDNA's kernels at 256 VGPRs a lane sit where clang's register allocation turns on small changes of the
  source: one kernel spills a few VGPRs or none, and a rule that mends one spills another (clang-22: gfx1100's dQ at 128 in the four
  forms 6, 3, 0, 0 VGPRs spilled; its masked forward at 240 2, 7, 0, 7; docs/journal.md 2026-11-28, twenty-ninth session). So a kernel
  of fa_uop's (BoundedKernel info) is built in AMD_FORMS' forms, in order, and the first without scratch is kept (else the least):
  scratch(src) builds with the device's compiler (tinygrad's disk cache then has the one it builds again); fa_uop.compile's checks
  build with clang-22, and fit only where asked"""
  form: tuple[str, ...] = ()
  fit = True
  def scratch(self, src:str) -> int: return amd_scratch(self.compiler.compile_cached(src))  # type: ignore[attr-defined]
  string_rewrite = PatternMatcher([(UPat(Ops.RANGE, name="x"), lambda ctx, x: "__builtin_amdgcn_sched_barrier(0);\n  " + \
    f"for ({ctx.render_dtype(x.dtype)} {ctx[x]} = 0; {ctx[x]} < {ctx[x.src[0]]}; {ctx[x]}++) {{" \
    if "sched" in ctx.form and x.dtype != dtypes.void and x.arg[-1] is AxisType.REDUCE else None)]) + HIPRenderer.string_rewrite
  def render(self, uops:list[UOp]) -> str:
    if not self.fit or not any(u.op is Ops.SINK and isinstance(u.arg, BoundedKernel) for u in uops): return self.render_as(uops, ())
    best: tuple[int, str]|None = None
    for form in AMD_FORMS:
      n = self.scratch(src:=self.render_as(uops, form))
      if best is None or n < best[0]: best = (n, src)
      if n == 0: break
    return best[1]  # type: ignore[index]
  def render_as(self, uops:list[UOp], form:tuple[str, ...]) -> str:
    """the kernel in one of AMD_FORMS"""
    self.form = form
    try: return super().render(uops)  # type: ignore[misc]
    finally: self.form = ()

class AmdRenderer(AmdFit, AmdUniformWarps, AmdOffsets, AmdSelects, AmdFp8, HIPRenderer): pass
class AmdCCRenderer(AmdFit, AmdUniformWarps, AmdOffsets, AmdSelects, AmdFp8, HIPCCRenderer): pass

def amd_renderer(device:str) -> None:
  """an AMD device's HIP renderer becomes fa_uop's (its class swapped, as hopper() does; tinygrad's compile workers rebuild it from its
  class): loads behind a guard as selects (AmdSelects), RDNA's global addresses as 32-bit offsets (AmdOffsets), and the fp8 kernels
  fa_uop builds for gfx942 and gfx12 render (AmdFp8); every kernel compiled for the device from then on, tinygrad's own too.
  tinygrad's LLVM renderer (AMD_LLVM=1) is left as it is"""
  r = Device[device].renderer
  if type(r) in (HIPRenderer, HIPCCRenderer):
    r.__class__ = AmdCCRenderer if type(r) is HIPCCRenderer else AmdRenderer
    r.selects()
    r.fp8_formats()

class _HopperRenderer(UniformWarp, MinBlocks, FastMath, DynamicSmem, CUDARenderer):
  """tinygrad's CUDA renderer with nvrtc compiling for sm_90a. A class of its own: tinygrad's compile workers rebuild a renderer
  from its class and target, so they compile for sm_90a too"""
  def __init__(self, target):
    super().__init__(target)
    self.compiler = _HopperRenderer.sm90a()
  @staticmethod
  def sm90a():
    from tinygrad.runtime.support.compiler_cuda import NVRTCCompiler
    return NVRTCCompiler("sm_90a", ptx=True, cache_key="cuda")

def hopper(device:str) -> Target:
  """SM90A for a CUDA device of compute capability 9.0 (H100, H200), whose renderer becomes _HopperRenderer: every kernel compiled
  for the device from now on is sm_90a code (which runs on exactly that chip). tinygrad 0.14 names the arch sm_90, whose nvrtc
  target rejects wgmma, and cannot parse DEV=CUDA::sm_90a (its tensor-core table reads int('90a')): so the renderer renders for
  sm_90, the same source, and only nvrtc's --gpu-architecture changes, with no change to tinygrad."""
  r = Device[device].renderer
  if device.split(":")[0] != "CUDA" or r.target.arch != "sm_90" or not isinstance(r, CUDARenderer):
    raise ValueError(f"the Hopper target needs DEV=CUDA (its C renderer) on a compute capability 9.0 GPU, got {device!r} ({type(r).__name__}, "
                     f"arch {r.target.arch!r})")
  if type(r) is not _HopperRenderer:   # the device's cached renderer itself, so tinygrad's own kernels go the same way
    r.__class__, r.compiler = _HopperRenderer, _HopperRenderer.sm90a()
    Device[device].runtime_t = _hopper_program()
  return SM90A

@functools.cache
def _hopper_program() -> type:
  """tinygrad's CUDA program, launched with the dynamic shared memory its PTX names (DynamicSmem); tinygrad's loader takes a size,
  its callers never give one"""
  from tinygrad.runtime.ops_cuda import CUDAProgram
  class HopperProgram(CUDAProgram):
    def __init__(self, dev, obj, smem:int=0):
      m = re.search(rf"{DSMEM_MARK} (\d+)".encode(), obj.lib)
      super().__init__(dev, obj, int(m.group(1)) if m else smem)
  return HopperProgram

def multiprocessors(device:str, target:Target) -> int:
  """how many blocks the device runs side by side at one per multiprocessor: CUDA's SM count, AMD's CU count, else the target's"""
  dev = Device[device]
  if device.split(":")[0] == "CUDA":
    import ctypes
    from tinygrad.runtime.autogen import cuda
    n = ctypes.c_int()
    if cuda.cuDeviceGetAttribute(ctypes.byref(n), cuda.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev.cu_device) == 0: return n.value
  if device.split(":")[0] == "AMD" and hasattr(dev, "cu_cnt"): return dev.cu_cnt * getattr(dev, "xccs", 1)
  return target.multiprocessors
