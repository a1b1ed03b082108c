"""Positions of uniformly random 8x8 games, one a line in `reachable`'s
notation, each taken when its game first reaches a disc count drawn from
the list: reachable by construction (for probes/beam_probe.rs).
Usage: python3 random_positions.py SEED 46,50,54 COUNT"""
import random,sys
N=8
D=[(-1,-1),(-1,0),(-1,1),(0,-1),(0,1),(1,-1),(1,0),(1,1)]
def flips(b,r,c,me):
    op='O' if me=='X' else 'X'; out=[]
    for dr,dc in D:
        rr,cc=r+dr,c+dc; run=[]
        while 0<=rr<N and 0<=cc<N and b[rr][cc]==op: run.append((rr,cc)); rr+=dr; cc+=dc
        if run and 0<=rr<N and 0<=cc<N and b[rr][cc]==me: out+=run
    return out
def moves(b,me):
    return [(r,c,f) for r in range(N) for c in range(N) if b[r][c]=='-' for f in [flips(b,r,c,me)] if f]
random.seed(int(sys.argv[1])); want=[int(x) for x in sys.argv[2].split(',')]
got=0
while got<int(sys.argv[3]):
    b=[['-']*N for _ in range(N)]; b[3][3]=b[4][4]='O'; b[3][4]=b[4][3]='X'; me='X'
    target=random.choice(want)
    while True:
        ms=moves(b,me)
        if not ms:
            op='O' if me=='X' else 'X'
            if not moves(b,op): break
            me=op; continue
        r,c,f=random.choice(ms); b[r][c]=me
        for rr,cc in f: b[rr][cc]=me
        me='O' if me=='X' else 'X'
        discs=sum(x!='-' for row in b for x in row)
        if discs==target:
            # side to move: me if me can move, else pass if other can
            print(' '.join(''.join(row) for row in b)+' '+me); got+=1; break
