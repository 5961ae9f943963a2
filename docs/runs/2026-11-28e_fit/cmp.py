import sys, statistics
def rows(f):
  out={}
  for l in open(f):
    p=[x.strip() for x in l.split("|")]
    if len(p)>9 and p[1].startswith("gfx"): out[(p[1],p[2],p[3])]=(int(p[5]),int(p[9]))
  return out
a=rows(sys.argv[1]); b=rows(sys.argv[2])
k=[x for x in b if x in a]
d=[b[x][0]-a[x][0] for x in k]
print(len(k), "down", sum(x<0 for x in d), "up", sum(x>0 for x in d), "same", sum(x==0 for x in d), "median", statistics.median(d), "sum", sum(d))
print("spills before", sum(1 for x in k if a[x][1]), "after", sum(1 for x in k if b[x][1]))
print("spill rows", [(x,a[x],b[x]) for x in k if a[x][1] or b[x][1]])
print("most up", sorted([(b[x][0]-a[x][0],x,a[x][0],b[x][0]) for x in k])[-8:])
print("most down", sorted([(b[x][0]-a[x][0],x,a[x][0],b[x][0]) for x in k])[:5])
