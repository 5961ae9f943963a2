# nineteenth session: what the eighteenth left unrun on the GPU at today's defaults (tree of 89b89be): compute-sanitizer over the
# wide ping-pong tiles (fp16 D=128 at 192 keys and 224, tails, causal and not), beside the examples as users run them (the jitted
# training block, the SDPA patch, generation), each at its GPU defaults
source scripts/device_setup.sh; export FA_UOP_TUNE=0
SAN_TIMEOUT=400 JOBS=6 bash scripts/sanitize.sh 128x192x8tr2p 128x224x8tr2p > $OUT/sanitize_run.txt 2>&1 &
for ex in train_block sdpa_patch generate; do echo "== examples/$ex.py"; DEV=CUDA timeout 150 python3 examples/$ex.py 2>&1 | tail -8; done
wait; cat $OUT/sanitize.txt
