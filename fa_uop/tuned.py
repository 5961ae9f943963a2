"""The tuner's picks per target (arch) and shape class (fa_uop.config.shape_class), measured on that GPU by scripts/tune_table.py,
which writes this file; default_fwd_config takes the nearest class's (tuning, FA_UOP_TUNE=1, is opt-in). bf16 measured level with
fp16 on the H100 (docs/journal.md, 2026-11-25), so one table serves both."""
# sm_90a: an H100 (DEV=CUDA), 2026-11-26, DEV=CUDA DS=<D> python3 scripts/tune_table.py, one run each, the kernels of c808e13 (D=64 at
# 485c0a0, which renders them byte for byte), the two consumer warpgroups' ping-pong (128x128x8tr2p, 128x64x8tr2p) among the candidates
# (every candidate's time: docs/runs/2026-11-26_pingpong/tune{64,128,256}/tune_ms.json). By hand since (2026-11-27, not yet measured):
# d256_full_q4096_k4096 128x128x8tr1 -> 128x64x8tr2p, its runner-up (0.849 ms against 0.840): 128x128x8tr1 spills at D=256 (12 bytes,
# 144 under a mask_mod) and the ping-pong has gained the lazy rescale since (+6-8% at D=256); tests/test_hopper.py holds the table to
# kernels without spill
TABLE: dict[str, dict[str, str]] = {"sm_90a": {
  "d64_causal_q1024_k1024": "64x64x4",
  "d64_causal_q16384_k16384": "128x128x8tr2p",
  "d64_causal_q4096_k4096": "64x128x4",
  "d64_full_q1024_k1024": "64x128x4",
  "d64_full_q16384_k16384": "64x128x4t",
  "d64_full_q4096_k4096": "64x128x4t",
  "d128_causal_q1024_k1024": "64x64x4",
  "d128_causal_q16384_k16384": "128x128x8tr2p",
  "d128_causal_q4096_k4096": "128x128x8tr2p",
  "d128_full_q1024_k1024": "128x128x8tr2p",
  "d128_full_q16384_k16384": "128x128x8tr2p",
  "d128_full_q4096_k4096": "128x128x8tr2p",
  "d256_causal_q1024_k1024": "128x64x8tr2p",
  "d256_causal_q16384_k16384": "128x64x8tr2p",
  "d256_causal_q4096_k4096": "128x64x8tr2p",
  "d256_full_q1024_k1024": "128x64x8tr2p",
  "d256_full_q16384_k16384": "128x64x8tr2p",
  "d256_full_q4096_k4096": "128x64x8tr2p",
}}
