# python in_loop.py kernel.s ...: how many of each kernel's scratch accesses (spill stores and reloads) lie in a loop's basic blocks (clang
# marks each block of a loop, "Loop Header" or "in Loop", where its label or block comment starts it)
import sys, re
for f in sys.argv[1:]:
  lines, inside, n, looping = open(f).read().split('.end_amdhsa_kernel')[0].splitlines(), 0, 0, False
  for l in lines:
    if re.match(r"(\.LBB\d+_\d+:|; %bb\.\d+:)", l): looping = "Loop" in l
    if "scratch_" in l: n, inside = n + 1, inside + looping
  print(f, "scratch accesses", n, "in a loop", inside)
