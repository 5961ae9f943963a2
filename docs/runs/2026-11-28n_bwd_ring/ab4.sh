# ab3.sh's A/B over D=128 only, where the ring won: N=4096, the default against both rings. Log: ab4.log
SHAPES="4 16 4096 128 0 64x64x4,64x64x4x3;64x64x4x2tr2,64x64x4x2tr2
4 16 4096 128 1 64x64x4,64x64x4x3;128x64x8tr2,64x64x4x2tr2" LOG=ab4.log bash docs/runs/2026-11-28n_bwd_ring/ab3.sh
