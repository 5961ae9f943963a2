"""The tuner's picks per target (arch) and shape class (fa_uop.config.shape_class), measured on that GPU by scripts/tune_table.py,
which writes this file; default_fwd_config takes the nearest class's (tuning, FA_UOP_TUNE=1, is opt-in). bf16 measured level with
fp16 on the H100 (docs/journal.md, 2026-11-25), so one table serves both."""
# sm_90a: DEV=CUDA, the kernels of fbd7a3a, 2026-11-28: DEV=CUDA python3 scripts/tune_table.py (every candidate's time: tune_ms.json beside it)
TABLE: dict[str, dict[str, str]] = {"sm_90a": {
  "d64_causal_q1024_k1024": "64x64x4x3",
  "d64_causal_q16384_k16384": "128x224x8tr2p",
  "d64_causal_q4096_k4096": "64x128x4t",
  "d64_full_q1024_k1024": "64x128x4t",
  "d64_full_q16384_k16384": "128x224x8tr2p",
  "d64_full_q4096_k4096": "128x224x8tr2p",
}}
