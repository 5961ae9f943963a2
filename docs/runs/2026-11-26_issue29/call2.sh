# call 2 on the H100: first calls cold (a fresh tinygrad compile cache, CACHEDB, and process each), 76bd282's fa_uop (old/: git archive 76bd282 fa_uop, not kept) against the
# working tree's (the maps' kernel compiled alone); user_checks first (table vs tuner) and decode; tests/test_jit.py -m gpu
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
d=docs/runs/2026-11-26_issue29
for rep in 1 2; do for which in old new; do for s in "3 12 2000 128 1" "2 20 6000 64 0" "5 8 700 128 0"; do
  pp=$PYTHONPATH; [ $which = old ] && pp=$PWD/$d/old:/tmp/site
  echo -n "$which: "; CACHEDB=$(mktemp -d)/cache.db PYTHONPATH=$pp python3 $d/first_profile.py cold $s
done; done; done
for s in "3 12 2000 128 1" "2 20 6000 64 0" "5 8 700 128 0"; do CACHEDB=$(mktemp -d)/cache.db python3 scripts/user_checks.py first $s; done
python3 scripts/user_checks.py decode
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_jit.py 2>&1 | tail -15
