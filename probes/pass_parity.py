"""How many positions need an odd number of passes: the side to move is
not the one a game without passes would have at that disc count (Black
to move after an even number of moves).

Usage: python3 probes/pass_parity.py undecided [results/catalog.json]
         the undecided samples of the catalogue's newest 8x8 estimate of
         each seed, by disc count (groups of 4) and parity
       python3 probes/pass_parity.py games COUNT [SEED]
         uniformly random 8x8 games: the share of their positions, by disc
         count, reached after an odd number of passes (reachable by
         construction, but not uniform over the reachable positions).
Samples are uniform over both sides to move, so about half of them need
an odd number of passes whatever their board."""
import collections, json, random, sys

N = 8
from othello_rules import flips, moves


def odd_passes(line):
    """`reachable`'s notation: 64 squares (X Black, O White, - empty) in
    rows separated by spaces, then the side to move."""
    board, side = line[:-2].replace(' ', ''), line.strip()[-1]
    n = sum(ch in 'XO' for ch in board)
    return n, (side == 'X') != ((n - 4) % 2 == 0)


def undecided(path):
    cat = json.load(open(path))
    newest = {}
    for e in cat['estimates']:
        if e['size'] == 8 and e.get('focus', 'all') == 'all':
            key = e['seed']
            if key not in newest or e['id'] > newest[key]['id']:
                newest[key] = e
    c = collections.Counter()
    for seed, e in sorted(newest.items()):
        for s in e['undecided_samples']:
            n, odd = odd_passes(s['position'])
            c[(n // 4 * 4, odd)] += 1
        print(f"seed {seed}: {e['id']}, {len(e['undecided_samples'])} undecided")
    print("discs  even passes  odd passes")
    for k in sorted({k for k, _ in c}):
        print(f"{k:>2}-{k + 3:<2} {c[(k, False)]:>12} {c[(k, True)]:>11}")
    odd = sum(v for (k, o), v in c.items() if o)
    print(f"{odd} of {sum(c.values())} need an odd number of passes")


def games(count, seed):
    random.seed(seed)
    odd, tot = collections.Counter(), collections.Counter()
    for _ in range(count):
        b = [['-'] * N for _ in range(N)]
        b[3][3] = b[4][4] = 'O'
        b[3][4] = b[4][3] = 'X'
        me, passes, n = 'X', 0, 4
        while True:
            ms = moves(b, me)
            op = 'O' if me == 'X' else 'X'
            if not ms:
                if not moves(b, op):
                    break
                me, passes = op, passes + 1
                # the position after the pass: the same board, the other
                # side to move, a position of its own
                tot[n // 4 * 4] += 1
                odd[n // 4 * 4] += passes % 2
                continue
            r, c, f = random.choice(ms)
            b[r][c] = me
            for rr, cc in f:
                b[rr][cc] = me
            me, n = op, n + 1
            tot[n // 4 * 4] += 1
            odd[n // 4 * 4] += passes % 2
    print("discs  positions  after odd passes  share")
    for k in sorted(tot):
        print(f"{k:>2}-{k + 3:<2} {tot[k]:>10} {odd[k]:>17} {odd[k] / tot[k]:>6.4f}")


if sys.argv[1] == 'undecided':
    undecided(sys.argv[2] if len(sys.argv) > 2 else 'results/catalog.json')
else:
    games(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
