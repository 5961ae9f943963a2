# (with docs/runs/2026-11-24_ring/ring.patch applied to the working tree: `git apply` it; abtmp/prev: the tree of 8adebab)
# A/B on the GPU: the forward's ring (the working tree) at the shared-memory carveout CUDA picks (3 blocks of 48 KB and 168
# registers fit an SM) against a carveout of CARVE percent of 228 KB (2 blocks per SM, the L1 keeps the rest), and the commit
# before it (abtmp/prev, 32 KB, 2 blocks by its 209 registers) at both; causal and the document mask forward, alternating, twice.
source scripts/ab_bench.sh
carve() { # variant log percent env...
  local d=$PWD v=$1 log=$2 pct=$3; shift 3; [ $v != new ] && d=$PWD/abtmp/$v
  local pre="import runpy; from tinygrad.runtime import ops_cuda; from tinygrad.runtime.autogen import cuda; i = ops_cuda.CUDAProgram.__init__
def init(self, *a, **k): i(self, *a, **k); ops_cuda.check(cuda.cuFuncSetAttribute(self.prg, cuda.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, $pct))
ops_cuda.CUDAProgram.__init__ = init"
  (cd $d && env PYTHONPATH=/tmp/site:$d "$@" timeout 250 python3 -c "$pre
runpy.run_path('bench.py', run_name='__main__')") > $OUT/$log.log 2>&1
  echo "$log: $(grep -E '^(fa_uop|torch)' $OUT/$log.log | awk '{print $1, $2, $5}' | tr '\n' ' ') ok=$(grep -c ': ok' $OUT/$log.log)" | tee -a $OUT/summary.txt
}
big() { carve $1 $1_$2_c$3_$4 $3 B=1 H=16 N=16384 D=128 CAUSAL=1 MASK=$([ $2 = none ] || echo $2) MODE=fwd CONFIG=64x32x4 PEERS= VERIFY=0 CNT=20; }
for r in a b; do for m in none document; do
  big new $m 44 $r; big new $m -1 $r; big prev $m 44 $r; big prev $m -1 $r
done; done
