# (with docs/runs/2026-11-24_prefetch/prefetch.patch applied to the working tree; abtmp/prev: the tree of 7ca80ec)
# A/B on the GPU of the forward's L2 prefetch of the tile after next (the working tree, new) against abtmp/prev (7ca80ec): causal and
# the document mask forward, B=8 N=2048 causal forward, 64x32x4, alternating, three rounds, the new runs of the first round verified.
source scripts/ab_bench.sh
fwd_ab "a b c"
