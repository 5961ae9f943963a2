# python sb.py in.hip out.hip [mask]: a sched_barrier before every REDUCE loop (each MMA's k-steps, the KV loop) and after its end
import sys, re
s = open(sys.argv[1]).read(); m = sys.argv[3] if len(sys.argv) > 3 else "0"
s = re.sub(r"(\n\s*)(for \(int Ridx)", rf"\1__builtin_amdgcn_sched_barrier({m});\1\2", s)
open(sys.argv[2], "w").write(s)
