import numpy as np, pytest
from tinygrad import Tensor, UOp, dtypes, Device
from tinygrad.uop.ops import AxisType, KernelInfo
from tinygrad.dtype import AddrSpace
from fa_uop import SM80, RDNA3, target_for
from fa_uop.tiles import Block, a_from_acc

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

def test_lane_groups():
  assert SM80.c.lane_xor_offsets(rows=False) == (1, 2) and RDNA3.c.lane_xor_offsets(rows=False) == (1, 2, 4, 8)

def test_p_stays_in_registers_only_where_layouts_line_up():
  acc = lambda t: UOp.placeholder((1, 4, t.c.nelems), dtypes.half, slot=0, addrspace=AddrSpace.REG)
  assert a_from_acc(Block(SM80, 1), acc(SM80)) is not None
  assert a_from_acc(Block(RDNA3, 1), acc(RDNA3)) is None

def test_target_for(emu):
  t = target_for("PYTHON")
  assert t.arch == emu and t.shuffle is None, "the emulator gets the portable twin"
  with pytest.raises(ValueError, match="has no fa_uop target"): target_for("CPU")

def test_one_mma_through_fragment_views(emu, rng):
  """one warp, one MMA: the fragment views must hand the emulated tensor core exactly A and B"""
  t = target_for("PYTHON")
  M, N, K = t.mma
  def kern(c:UOp, a:UOp, b:UOp) -> UOp:
    lane = UOp.range(32, -1, AxisType.WARP)
    acc = UOp.placeholder((t.c.nelems,), dtypes.float, slot=0, addrspace=AddrSpace.REG)
    acc = acc.after(acc.store(acc.const_like(0)))
    acc = acc.after(acc.store(UOp.wmma(t.a.view(a.reshape(M, K), lane), t.b.view(b.reshape(N, K), lane), acc, (N, M, K), t.mma_device, 32)))
    return t.c.view(c.reshape(M, N), lane).store(acc).end(lane).sink(arg=KernelInfo(name="one_mma", opts_to_apply=()))
  r, seed = rng
  a, b = r.standard_normal((M, K)).astype(np.float16), r.standard_normal((N, K)).astype(np.float16)
  c = Tensor.full((M, N), float("nan"), device="PYTHON").contiguous().realize()
  out = Tensor.custom_kernel(c, Tensor(a, device="PYTHON"), Tensor(b, device="PYTHON"), fxn=kern)[0].numpy()
  np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64).T, atol=1e-4, err_msg=f"seed {seed}")
