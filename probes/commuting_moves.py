#!/usr/bin/env python3
"""Probe (issue 50): how often moves of real 8x8 games commute, to judge
symmetry breaking in the exact game encoding ("an order on commuting
moves"). Random games (uniform legal moves, passes as the rules say);
for each window of consecutive moves without a pass it asks whether the
moves are pairwise independent:
  lines: no square a move changed (placed or flipped) lies on a row,
         column or diagonal through the other's square, either way;
  rays:  no such square lies on the other's rays up to and including
         the first empty square of each (on the board it was played on).
Either makes the two moves commute (both orders legal, the same board).
Swapping A and C in A B C (same mover) needs A, B, C pairwise
independent; swapping the pairs (A B) and (C D) needs all four.
  python3 probes/commuting_moves.py GAMES SEED
"""
import random
import sys

N = 8
DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(b, r, c, me):
    if b[r][c] != 0:
        return []
    out = []
    for dr, dc in DIRS:
        run = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < N and 0 <= cc < N and b[rr][cc] == -me:
            run.append((rr, cc))
            rr += dr
            cc += dc
        if run and 0 <= rr < N and 0 <= cc < N and b[rr][cc] == me:
            out += run
    return out


def rays(b, r, c):
    """Squares on the rays from (r, c) up to and including the first empty one."""
    out = set()
    for dr, dc in DIRS:
        rr, cc = r + dr, c + dc
        while 0 <= rr < N and 0 <= cc < N:
            out.add((rr, cc))
            if b[rr][cc] == 0:
                break
            rr += dr
            cc += dc
    return out


def on_line(a, s):
    return a[0] == s[0] or a[1] == s[1] or a[0] - a[1] == s[0] - s[1] or a[0] + a[1] == s[0] + s[1]


def game(rng):
    b = [[0] * N for _ in range(N)]
    b[3][3] = b[4][4] = -1
    b[3][4] = b[4][3] = 1
    me, moves = 1, []
    while True:
        legal = [(r, c) for r in range(N) for c in range(N) if flips(b, r, c, me)]
        if not legal:
            me = -me
            legal = [(r, c) for r in range(N) for c in range(N) if flips(b, r, c, me)]
            if not legal:
                return moves
            moves.append(None)
        r, c = rng.choice(legal)
        f = flips(b, r, c, me)
        influence = rays(b, r, c)
        b[r][c] = me
        for x, y in f:
            b[x][y] = me
        moves.append(((r, c), [(r, c)] + f, influence))
        me = -me


def independent(m1, m2, by_rays):
    if by_rays:
        # m1 played first: m2's rays are taken on the board after m1, a
        # superset test uses both boards' rays of the later move
        return not any(q in m2[2] for q in m1[1]) and not any(q in m1[2] for q in m2[1])
    return not any(on_line(q, m2[0]) for q in m1[1]) and not any(on_line(q, m1[0]) for q in m2[1])


def main():
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    bands = {}
    for _ in range(games):
        moves = game(rng)
        for t in range(len(moves) - 3):
            w = moves[t:t + 4]
            discs = 4 + sum(1 for m in moves[:t] if m is not None)
            if None in w[:3]:
                continue
            row = bands.setdefault(discs // 8 * 8, [0] * 7)
            row[0] += 1
            for k, by_rays in ((1, False), (4, True)):
                a, b_, c = w[0], w[1], w[2]
                row[k] += independent(a, b_, by_rays)
                three = independent(a, b_, by_rays) and independent(b_, c, by_rays) and independent(a, c, by_rays)
                row[k + 1] += three
                if w[3] is not None:
                    d = w[3]
                    row[k + 2] += three and all(independent(x, d, by_rays) for x in (a, b_, c))
    print("discs  windows  lines:pair  lines:A-B-C  lines:AB-CD  rays:pair  rays:A-B-C  rays:AB-CD")
    for k in sorted(bands):
        row = bands[k]
        print(f"{k:>2}-{k + 7:<2} {row[0]:>8}" + "".join(f"  {x / row[0]:>10.3f}" for x in row[1:]))


if __name__ == "__main__":
    main()
