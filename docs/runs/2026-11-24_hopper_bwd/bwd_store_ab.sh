# The Hopper backward's outputs staged through LDS (new: dK and dV through K's and V's tiles, dQ through Q's, 16-byte pieces of rows)
# against C-fragment stores (out/prev: the tree before, carried), and dK/dV asked for 3 blocks an SM (BWD_CONFIG 64x32x4x3,64x32x4);
# causal and the document mask at B=1 H=16 N=16384 D=128, two rounds alternating, the first new verified; then B=4 N=4096 beside FA2
source scripts/ab_bench.sh
export FA_UOP_TUNE=0
mkdir -p abtmp && rm -rf abtmp/prev && cp -r out/prev abtmp/prev
for r in 1 2; do for m in none document; do
  M="MASK=$([ $m = none ] || echo $m)"
  bench prev bwd_prev_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 $M MODE=bwd PEERS= CNT=20 VERIFY=0
  bench new bwd_new_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 $M MODE=bwd PEERS= CNT=20 VERIFY=$([ $r = 1 ] && echo 1 || echo 0)
  bench new bwd_kv3_${m}_$r B=1 H=16 N=16384 D=128 CAUSAL=1 $M MODE=bwd PEERS= CNT=20 VERIFY=0 BWD_CONFIG=64x32x4x3,64x32x4
done; done
bench new bwd_full_d128 B=4 H=16 N=4096 D=128 CAUSAL=0 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=1
bench new bwd_causal_d64 B=4 H=32 N=4096 D=64 CAUSAL=1 MODE=bwd PEERS=torch_flash CNT=20 VERIFY=1
cd $OUT && tar czf logs.tgz *.log && rm *.log
