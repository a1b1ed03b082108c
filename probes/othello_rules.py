"""The rules on an N x N board of lists of 'X', 'O' and '-', for the Python
probes (a second reading, sharing no code with the engine)."""
D = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(b, r, c, me, n=8):
    """The discs `me` flips by playing (r, c)."""
    op = 'O' if me == 'X' else 'X'
    out = []
    for dr, dc in D:
        rr, cc, run = r + dr, c + dc, []
        while 0 <= rr < n and 0 <= cc < n and b[rr][cc] == op:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < n and 0 <= cc < n and b[rr][cc] == me:
            out += run
    return out


def moves(b, me, n=8):
    """`me`'s legal moves: (row, column, flips)."""
    return [(r, c, f) for r in range(n) for c in range(n) if b[r][c] == '-' for f in [flips(b, r, c, me, n)] if f]
