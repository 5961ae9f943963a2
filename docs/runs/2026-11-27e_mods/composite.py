# python3 composite.py > every_rdna_e001de9.md: RDNA's rows at e001de9 from three surveys of the same code per head dim (rotated walks
# at head dims whose rows are no power of two of pieces; XOR walks, d735da0's code, at 16-128 and 256)
pick = (("every_rdna_rotated_all.md", lambda d: d not in (16, 32, 64, 128, 256)), ("every_rdna_pow2_e001de9.md", lambda d: d in (16, 32, 64, 128)),
        ("every_rdna_big_d735da0.md", lambda d: d == 256))
for i, (f, keep) in enumerate(pick):
  for l in open(f):
    if (l.startswith("| target") or l.startswith("|---")) and i == 0: print(l, end="")
    if l.startswith("| gfx") and keep(int(l.split("|")[2])): print(l, end="")
