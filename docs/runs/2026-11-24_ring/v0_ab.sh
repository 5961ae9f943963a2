# (with docs/runs/2026-11-24_ring/v0_prologue.patch applied to the working tree; abtmp/prev: the tree of 8adebab)
# A/B on the GPU of V's first tile copied in the prologue with Q and K's (the working tree, new) against the commit before
# (abtmp/prev): causal and the document mask forward, B=8 N=2048 causal forward, 64x32x4, alternating, three rounds, the new runs
# of the first round verified. Logs and summary.txt in $OUT
source scripts/ab_bench.sh
fwd_ab "a b c"
