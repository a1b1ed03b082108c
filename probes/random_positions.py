"""Positions of uniformly random 8x8 games, one a line in `reachable`'s
notation, each taken when its game first reaches a disc count drawn from
the list: reachable by construction (for probes/beam_probe.rs).
Usage: python3 random_positions.py SEED 46,50,54 COUNT"""
import random,sys
N=8
from othello_rules import moves as _moves
def moves(b,me): return _moves(b,me,N)
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
