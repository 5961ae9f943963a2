# python zero.py in.hip out.hip: every register zeroed by a volatile asm (a fresh zero each time, never a constant held)
import sys, re
s = open(sys.argv[1]).read()
s = re.sub(r"(\*\(buf\d+\+\d+\)) = 0\.0f;", r"\1 = fa_zero();", s)
s = s.replace('extern "C" __attribute__((global))', 'static inline __attribute__((device)) float fa_zero() { float z; asm volatile("v_mov_b32 %0, 0" : "=v"(z)); return z; }\nextern "C" __attribute__((global))', 1)
open(sys.argv[2], "w").write(s)
