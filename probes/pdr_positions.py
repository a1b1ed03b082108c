"""Pairs of positions for probes/pdr_check.sh: a position of a uniformly
random N x N game (reachable by construction; not terminal) and a copy
with one disc's colour changed and a random side to move (often
unreachable), one a line as `TAG POSITION` (R, then P).
Usage: python3 probes/pdr_positions.py N SEED PAIRS"""
import random,sys
N=int(sys.argv[1]); random.seed(int(sys.argv[2])); count=int(sys.argv[3])
from othello_rules import moves as _moves
def moves(b,me): return _moves(b,me,N)
h=N//2
for _ in range(count):
    b=[['-']*N for _ in range(N)]; b[h-1][h-1]=b[h][h]='O'; b[h-1][h]=b[h][h-1]='X'; me='X'
    hist=[]
    while True:
        ms=moves(b,me); op='O' if me=='X' else 'X'
        if not ms:
            if not moves(b,op): break
            me=op; hist.append((''.join(''.join(r) for r in b),me)); continue
        r,c,f=random.choice(ms); b[r][c]=me
        for rr,cc in f: b[rr][cc]=me
        me=op; hist.append((''.join(''.join(r) for r in b),me))
    # a position of the game, and a perturbed copy (one disc's colour changed)
    nonterm=[x for x in hist[:-1]]
    if not nonterm: continue
    s,m=random.choice(nonterm)
    print('R',s+m)
    l=list(s); i=random.choice([k for k,ch in enumerate(l) if ch!='-']); l[i]='O' if l[i]=='X' else 'X'
    print('P',''.join(l)+random.choice('XO'))
