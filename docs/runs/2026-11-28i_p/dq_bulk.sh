# The dQ accumulation by bulk reduce-adds (Hopper) against the default backward: its log, dq_bulk.log
bash docs/runs/2026-11-28i_p/ab_bwd.sh dq_bulk.log <<'SHAPES'
1 16 16384 128 0 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
1 16 16384 128 1 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
16 16 1024 128 0 default 64x32x4q,64x64x4x3
1 32 16384 64 0 default 64x64x4q,64x64x4x3
SHAPES
