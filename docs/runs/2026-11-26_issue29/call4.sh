# call 4 on the H100: the jitted training step at D=128 N=16384 non-causal against eager, the model (embed.py), the Hopper GPU tests
source scripts/device_setup.sh; export DEV=CUDA FA_UOP_TUNE=0
python3 scripts/user_checks.py step 1 8 16384 128 0 2>&1 | tail -8
MINILM_DIR=out/minilm_f16 python3 examples/embed.py 2>&1 | tail -14
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_hopper.py 2>&1 | tail -4
