# first calls on the GPU machine: the three untuned shapes, each mode in a fresh process (first_profile.py), then user_checks.py first
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
d=docs/runs/2026-11-26_issue29
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
for mode in cold serial warm cold serial warm; do
  for s in "3 12 2000 128 1" "2 20 6000 64 0" "5 8 700 128 0"; do python3 $d/first_profile.py $mode $s; done
done
python3 $d/first_profile.py profile 2 20 6000 64 0 2>&1 | head -60
