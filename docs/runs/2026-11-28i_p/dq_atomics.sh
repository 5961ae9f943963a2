# The dQ accumulation (dK/dV config suffix q) by element atomics against the default backward (64x64x4 + 64x64x4x3 at D=128,
# 64x64x4x3 both at D=64): its log, dq_ab_atomics.log
bash docs/runs/2026-11-28i_p/ab_bwd.sh dq_ab_atomics.log <<'SHAPES'
1 16 16384 128 0 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
1 16 16384 128 1 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
4 16 4096 128 0 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
16 16 1024 128 0 default 64x64x4q,64x64x4x3 64x32x4q,64x64x4x3
1 32 16384 64 0 default 64x64x4q,64x64x4x3
16 32 1024 64 1 default 64x64x4q,64x64x4x3
SHAPES
