"""The tuner's picks per target (arch) and shape class (fa_uop.config.shape_class), measured on that GPU by scripts/tune_table.py,
which writes this file; default_fwd_config takes the nearest class's (tuning, FA_UOP_TUNE=1, is opt-in). bf16 measured level with
fp16 on the H100 (docs/journal.md, 2026-11-25), so one table serves both."""
# sm_90a: an H100 (DEV=CUDA), DEV=CUDA DS=<D> python3 scripts/tune_table.py, one run each. D=64 and D=128: 2026-11-27, the kernels of
# 69ec08b, 192 and 224 keys a step among the candidates (docs/runs/2026-11-27_wide/tune{64,128}/tune_ms.json). D=256: 2026-11-26, the
# kernels of c808e13 (docs/runs/2026-11-26_pingpong/tune256/tune_ms.json); by hand since, d256_full_q4096_k4096 128x128x8tr1 ->
# 128x64x8tr2p, its runner-up then (0.849 ms against 0.840): 128x128x8tr1 spills at D=256 (12 bytes, 144 under a mask_mod); measured
# after, 670 TFLOPS against 633 / 643 (docs/runs/2026-11-27_vt32/part2_h100.log). And d128_causal_q1024_k1024 keeps 64x64x4, the
# tuner's runner-up (0.2347 ms against 64x64x4x3's 0.2306): 64x64x4x3 spills 52 bytes at D=128 under a mask_mod, which takes the
# causal row. D=128 again on 2026-11-28, on an H200 (the H100's SM90), the kernels of cbc6184, each candidate's call between two events
# with the L2 flushed (event_time; the runs before counted each kernel's launch latency, a launch more for bulk-copy configs):
# N=1024 moved to 128x128x8tr2p and 64x64x4t causal, the rest as before (docs/runs/2026-11-28g_short/tune128/tune_ms.json).
# D=64 again on 2026-11-28, the H200, the kernels of fbd7a3a, event_time: four rows moved, each by 1-3% (docs/runs/2026-11-28i_p/tune64/
# tune_ms.json). By hand on 2026-11-29: d128_full_q1024_k1024 128x128x8tr2p -> 128x128x8tr2pP (persistent, each tile's Q copied by
# the producer: 0.241 against 0.258 ms on the H200, docs/runs/2026-11-29_persistent_q/verify.log; the tuner does not time P); later that
# day d64_full_q4096_k4096 and d64_full_q16384_k16384 128x224x8tr2p -> 128x224x8tr2pd (Q·Kᵀ's descriptors rebuilt each K-step: the
# H200, 1.201 -> 1.182 and 4.64 -> 4.31 ms, docs/runs/2026-11-29_desc_grid/ab.log, ss.log; causal N=16384 level). tests/test_hopper.py
# holds the table to kernels without spill
TABLE: dict[str, dict[str, str]] = {"sm_90a": {
  "d64_causal_q1024_k1024": "64x64x4x3",
  "d64_causal_q16384_k16384": "128x224x8tr2p",
  "d64_causal_q4096_k4096": "64x128x4t",
  "d64_full_q1024_k1024": "64x128x4t",
  "d64_full_q16384_k16384": "128x224x8tr2pd",
  "d64_full_q4096_k4096": "128x224x8tr2pd",
  "d128_causal_q1024_k1024": "64x64x4t",
  "d128_causal_q16384_k16384": "128x128x8tr2p",
  "d128_causal_q4096_k4096": "128x128x8tr2p",
  "d128_full_q1024_k1024": "128x128x8tr2pP",
  "d128_full_q16384_k16384": "128x192x8tr2p",
  "d128_full_q4096_k4096": "128x192x8tr2p",
  "d256_causal_q1024_k1024": "128x64x8tr2p",
  "d256_causal_q16384_k16384": "128x64x8tr2p",
  "d256_causal_q4096_k4096": "128x64x8tr2p",
  "d256_full_q1024_k1024": "128x64x8tr2p",
  "d256_full_q16384_k16384": "128x64x8tr2p",
  "d256_full_q4096_k4096": "128x64x8tr2p",
}}
