# the cases scripts/hopper_verify.sh verifies on an H100/H200 (everything that has landed, small shapes, forward and backward or
# decoding): source it after defining `vb NAME ENV...`, which runs and checks one
vb causal128 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd
vb causal128_bf16 B=2 H=8 N=2048 D=128 CAUSAL=1 MODE=fwd,bwd DTYPE=bfloat16
vb tails64 B=2 H=4 N=1000 NK=777 D=64 CAUSAL=0 MODE=fwd,bwd
vb gqa64_causal B=2 H=8 HKV=2 N=1500 D=64 CAUSAL=1 MODE=fwd,bwd
vb tails128_causal B=1 H=4 N=777 NK=1000 D=128 CAUSAL=1 MODE=fwd,bwd
vb gqa B=2 H=8 HKV=2 N=1024 D=128 CAUSAL=1 MODE=fwd,bwd
vb d96 B=2 H=4 N=1024 D=96 CAUSAL=1 MODE=fwd,bwd
vb d32 B=2 H=4 N=1024 D=32 CAUSAL=0 MODE=fwd
vb window B=1 H=8 N=4096 D=128 CAUSAL=1 WINDOW=512,0 MODE=fwd,bwd
vb document B=1 H=8 N=4096 D=128 CAUSAL=1 MASK=document MODE=fwd,bwd
vb alibi B=1 H=8 N=2048 D=128 CAUSAL=1 MASK=alibi MODE=fwd,bwd
vb padding B=2 H=8 N=2048 D=64 CAUSAL=0 MASK=padding MODE=fwd,bwd
vb softcap B=1 H=8 N=2048 D=128 CAUSAL=1 SOFTCAP=20 MODE=fwd,bwd
vb decode64 MODE=decode B=4 H=32 HKV=8 NQ=16 N=4000 D=128 CAUSAL=1
vb decode_paged MODE=decode B=4 H=32 HKV=8 NQ=16 N=4096 D=128 CAUSAL=1 PAGE=64
vb decode1 MODE=decode B=8 H=32 HKV=8 NQ=1 N=8000 D=128 CAUSAL=1
