import re, numpy as np, pytest
from tinygrad import Tensor, UOp, dtypes, Device
from tinygrad.uop.ops import AxisType, KernelInfo
from tinygrad.dtype import AddrSpace
from fa_uop import SM80, RDNA3, RDNA4, CDNA3, CDNA4, target_for
from fa_uop.tiles import Block, a_from_acc
from fa_uop.target import AmdOffsets
from tinygrad.renderer.cstyle import ClangRenderer
from conftest import all_targets, nans

def test_sm80_layouts_match_ptx():
  # PTX ISA, mma.m16n8k16 f16: groupID = lane>>2, threadID_in_group = lane%4
  for lane in range(32):
    g, tg = lane >> 2, lane % 4
    for e in range(8): assert SM80.a.coords(lane, e) == (g + 8 * ((e >> 1) & 1), tg * 2 + (e & 1) + 8 * (e >> 2))
    for e in range(4): assert SM80.b.coords(lane, e) == (g, tg * 2 + (e & 1) + 8 * (e >> 1))  # (n, k)
    for e in range(4): assert SM80.c.coords(lane, e) == (g + 8 * (e >> 1), tg * 2 + (e & 1))

def test_rdna3_layouts():
  for lane in range(32):
    for e in range(16): assert RDNA3.a.coords(lane, e) == (lane % 16, e) and RDNA3.b.coords(lane, e) == (lane % 16, e)
    for e in range(8): assert RDNA3.c.coords(lane, e) == (2 * e + lane // 16, lane % 16)

def test_rdna4_layouts():
  # gfx12 WMMA 16x16x16: lanes 0-15 hold k 0-3 and 8-11 of their row, lanes 16-31 k 4-7 and 12-15; C: 8 rows per lane
  for lane in range(32):
    for e in range(8):
      k = (e // 4) * 8 + (lane // 16) * 4 + e % 4
      assert RDNA4.a.coords(lane, e) == (lane % 16, k) and RDNA4.b.coords(lane, e) == (lane % 16, k)
      assert RDNA4.c.coords(lane, e) == (8 * (lane // 16) + e, lane % 16)

@pytest.mark.parametrize("t", [CDNA3, CDNA4, CDNA4.narrow], ids=["gfx942", "gfx950", "gfx950-narrow"])
def test_cdna_layouts(t):
  # MFMA 16x16xK on 64 lanes: A and B hold K/4 consecutive k of row (column) lane%16 from k = (lane//16)·K/4; C: column lane%16,
  # rows 4(lane//16)..+3
  K = t.mma[2]
  for lane in range(64):
    for e in range(K // 4):
      assert t.a.coords(lane, e) == (lane % 16, (lane // 16) * (K // 4) + e) and t.b.coords(lane, e) == (lane % 16, (lane // 16) * (K // 4) + e)
    for e in range(4): assert t.c.coords(lane, e) == (4 * (lane // 16) + e, lane % 16)

def test_narrow_mma_where_the_wide_one_does_not_divide():
  assert CDNA4.mma == (16, 16, 32) and CDNA4.narrowed(64) is CDNA4 and CDNA4.narrowed(48).mma == CDNA4.narrowed(64, 16).mma == (16, 16, 16)
  assert CDNA3.narrowed(48) is CDNA3 and CDNA4.portable().narrowed(48).shuffle is None

def test_lane_groups():
  assert SM80.c.lane_xor_offsets(rows=False) == (1, 2) and RDNA3.c.lane_xor_offsets(rows=False) == (1, 2, 4, 8)
  assert RDNA4.c.lane_xor_offsets(rows=False) == CDNA3.c.lane_xor_offsets(rows=False) == CDNA4.c.lane_xor_offsets(rows=False) == (1, 2, 4, 8)

def test_p_stays_in_registers_only_where_layouts_line_up():
  acc = lambda t: UOp.placeholder((1, 4, t.c.nelems), dtypes.half, slot=0, addrspace=AddrSpace.REG)
  assert a_from_acc(Block(SM80, 1), acc(SM80)) is not None
  assert a_from_acc(Block(RDNA3, 1), acc(RDNA3)) is None
  assert all(a_from_acc(Block(t, 1), acc(t)) is None for t in (RDNA4, CDNA3, CDNA4))

@all_targets
def test_target_for(emu):
  t = target_for("PYTHON")
  assert t.arch == emu and t.shuffle is None, "the emulator gets the portable twin"
  with pytest.raises(ValueError, match="has no fa_uop target"): target_for("CPU")

@all_targets
def test_one_mma_through_fragment_views(emu, rng):
  """one warp, one MMA: the fragment views must hand the emulated tensor core exactly A and B"""
  t = target_for("PYTHON")
  M, N, K = t.mma
  def kern(c:UOp, a:UOp, b:UOp) -> UOp:
    lane = UOp.range(t.warp, -1, AxisType.WARP)
    acc = UOp.placeholder((t.c.nelems,), dtypes.float, slot=0, addrspace=AddrSpace.REG)
    acc = acc.after(acc.store(acc.const_like(0)))
    acc = acc.after(acc.store(UOp.wmma(t.a.view(a.reshape(M, K), lane), t.b.view(b.reshape(N, K), lane), acc, (N, M, K), t.mma_device, t.warp)))
    return t.c.view(c.reshape(M, N), lane).store(acc).end(lane).sink(arg=KernelInfo(name="one_mma", opts_to_apply=()))
  r, seed = rng
  a, b = r.standard_normal((M, K)).astype(np.float16), r.standard_normal((N, K)).astype(np.float16)
  c = nans((M, N), dtypes.float32, "PYTHON")
  out = Tensor.custom_kernel(c, Tensor(a, device="PYTHON"), Tensor(b, device="PYTHON"), fxn=kern)[0].numpy()
  np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64).T, atol=1e-4, err_msg=f"seed {seed}")

def _ldmatrix_model(mem:np.ndarray, rows:list[int], trans:bool) -> np.ndarray:
  """PTX ldmatrix.x4 on 16-bit elements: lane l gives the address of row l%8 of matrix l//8 (8 consecutive elements); register j
  of lane l holds elements (l//4, 2(l%4)) and (l//4, 2(l%4)+1) of matrix j, or with .trans (2(l%4), l//4) and (2(l%4)+1, l//4)"""
  mats = [np.stack([mem[rows[8 * j + i]:rows[8 * j + i] + 8] for i in range(8)]) for j in range(4)]
  out = np.zeros((32, 8), dtype=mem.dtype)
  for l in range(32):
    for j in range(4):
      m = mats[j].T if trans else mats[j]
      out[l, 2 * j:2 * j + 2] = m[l // 4, 2 * (l % 4):2 * (l % 4) + 2]
  return out

@pytest.mark.parametrize("cols", [16, 32, 48, 64, 80, 96, 112, 128])
def test_ldmatrix_addresses_give_the_fragment_layouts(cols):
  """the lane addresses SM80's fast path hands ldmatrix, through the swizzled LDS tile, yield exactly the A and B fragments the
  portable gather reads (the emulator cannot run ldmatrix, so its semantics are modelled here)"""
  from fa_uop.tiles import Smem
  rows = 32
  t = Smem(None, rows, cols)
  tile = np.arange(rows * cols).reshape(rows, cols)
  mem = np.zeros(rows * cols, dtype=np.int64)
  for r in range(rows):
    for c in range(cols): mem[t.index(r, c)] = tile[r, c]
  for r0, c0 in [(0, 0), (16, cols - 16)]:
    a = _ldmatrix_model(mem, [t.index(r0 + SM80.ldsm_addr["a"](l)[0], c0 + SM80.ldsm_addr["a"](l)[1]) for l in range(32)], False)
    b = _ldmatrix_model(mem, [t.index(r0 + SM80.ldsm_addr["b"](l)[0], c0 + SM80.ldsm_addr["b"](l)[1]) for l in range(32)], False)
    bt = _ldmatrix_model(mem, [t.index(r0 + SM80.ldsm_addr["bt"](l)[0], c0 + SM80.ldsm_addr["bt"](l)[1]) for l in range(32)], True)
    for addr in ("a", "b", "bt"):  # each 8x8 matrix's rows lie in 8 different 16-byte bank groups: conflict-free
      starts = [t.index(r0 + SM80.ldsm_addr[addr](l)[0], c0 + SM80.ldsm_addr[addr](l)[1]) for l in range(32)]
      assert all(len({s // 8 % 8 for s in starts[8 * j:8 * j + 8]}) == 8 for j in range(4)), f"bank conflict in {addr} at cols={cols}"
    for l in range(32):
      assert [tile[r0 + r, c0 + c] for r, c in (SM80.a.coords(l, e) for e in range(8))] == list(a[l])
      for j in range(2):  # two n8 B fragments: from rows (n, k) of K, and transposed from rows (k, n) of V
        assert [tile[r0 + 8 * j + n, c0 + k] for n, k in (SM80.b.coords(l, e) for e in range(4))] == list(b[l, 4 * j:4 * j + 4])
        assert [tile[r0 + k, c0 + 8 * j + n] for n, k in (SM80.b.coords(l, e) for e in range(4))] == list(bt[l, 4 * j:4 * j + 4])

class _OffsetsCPU(AmdOffsets, ClangRenderer):   # at module level: tinygrad's compile workers rebuild a renderer from its class
  rendered: list[str] = []
  def offsets(self) -> bool: return True   # as on RDNA
  def render_index(self, x, buf, idx):
    self.rendered.append(out:=super().render_index(x, buf, idx))
    return out

def test_amd_offsets_address_what_tinygrad_addresses(monkeypatch):
  """the AMD renderer's global addresses, 32-bit unsigned byte offsets from the buffer's base with a constant on the pointer
  (target.AmdOffsets), are tinygrad's: the same C on the CPU device (clang) gathers, slices past 4 KB, flips (an index whose variable
  part goes negative) and strides, scalar and vector, exactly"""
  rng = np.random.default_rng()
  a, idx = rng.standard_normal((3, 100, 64)).astype(np.float16), rng.integers(0, 100, 9)
  monkeypatch.setattr(Device["CPU"].renderer, "__class__", _OffsetsCPU)
  _OffsetsCPU.rendered.clear()
  x = Tensor(a, device="CPU")
  outs = (x.permute(0, 2, 1)[:, :, Tensor(idx.astype(np.int32), device="CPU")].float() * 2, (x[:, 50:, :].float() + 1).contiguous(),
          x.flip(1)[:, 3:].contiguous(), x.reshape(3, 100 * 64)[:, ::3].contiguous())
  got = [o.numpy() for o in outs]
  want = (a.transpose(0, 2, 1)[:, :, idx].astype(np.float32) * 2, a[:, 50:, :].astype(np.float32) + 1, a[:, ::-1][:, 3:], a.reshape(3, -1)[:, ::3])
  for g, w in zip(got, want): np.testing.assert_array_equal(g, w)
  forms = {"offset": r"u\)\)$", "constant on the pointer": r"u\)\+-?\d+\)$", "offset moved": r"\+\d+u\)\*"}
  assert all(any(re.search(f, r) for r in _OffsetsCPU.rendered) for f in forms.values()), _OffsetsCPU.rendered
