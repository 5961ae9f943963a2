# The second call after ab.sh, where the ring verified there: its GPU tests, then Nsight Compute on its kernels (~7 minutes)
bash docs/runs/2026-11-28n_bwd_ring/gpu_tests.sh
bash docs/runs/2026-11-28n_bwd_ring/ncu.sh
