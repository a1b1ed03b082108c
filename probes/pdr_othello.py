"""Othello reachability as a hardware model-checking problem, for ABC's
`pdr` (IC3): writes a binary AIGER file whose single output is 1 exactly
in the target position, so that "the property holds" (the output is never
1) means the target is unreachable, and a counterexample is a game.

A probe, not a decider: it shares no code with the engine (a second
reading of the rules, written for this question) and nothing it says is
believed by the project. It asks whether IC3, which looks for an
inductive invariant instead of refuting every game of the position's
length as the exact encoding does, decides dense 8x8 samples faster.

Model. State: a black and a white bit a square and the side to move
(Black = 0); every latch starts at 0, so a square that starts with a disc
is stored inverted. Inputs: one a square. A step plays the lowest-indexed
square whose input is set and that is a legal move for the side to move
and occupied in the target (a disc never leaves a square, so a move on a
square the target leaves empty leads nowhere); with no legal move at all
the side to move passes; otherwise (inputs naming no such move) the state
stays as it is, which changes no reachability. A pass is taken here also
when neither side can move (the rules end the game there); a target with
a move for either side is never reached through such a position, since
no move changes it, so the model's answer is the rules' for such
targets, and terminal targets are refused.

Usage: python3 probes/pdr_othello.py OUT.aig 'POSITION' [--parity]
  POSITION as `reachable --position` takes it (N*N squares row by row from
  the top left, X Black, O White, - empty, spaces anywhere, then the side
  to move); --parity adds a latch that flips on every move (not on a pass),
  a hint IC3 can use in its clauses.
Then: berkeley-abc -c "read OUT.aig; pdr -T 600"
  ("Property proved" = unreachable; "Output 0 ... asserted in frame F" =
  reachable in F steps). Sizes 4, 6 and 8.
"""
import sys

D8 = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


class Aig:
    """An and-inverter graph: literals are 2*var (+1 for the negation);
    0 is false, 1 true. Inputs, then latches, then and gates take the
    variables in order, as binary AIGER requires."""

    def __init__(self, n_inputs, n_latches):
        self.i, self.l = n_inputs, n_latches
        self.ands = []  # (a, b) of gate k: variable i + l + 1 + k
        self.seen = {}

    def input(self, k):
        return 2 * (1 + k)

    def latch(self, k):
        return 2 * (1 + self.i + k)

    def AND(self, a, b):
        if a > b:
            a, b = b, a
        if a == 0:
            return 0
        if a == 1:
            return b
        if a == b:
            return a
        if a ^ 1 == b:
            return 0
        key = (a, b)
        if key not in self.seen:
            self.ands.append((b, a))
            self.seen[key] = 2 * (self.i + self.l + len(self.ands))
        return self.seen[key]

    def OR(self, a, b):
        return self.AND(a ^ 1, b ^ 1) ^ 1

    def all(self, lits):
        out = 1
        for x in lits:
            out = self.AND(out, x)
        return out

    def any(self, lits):
        out = 0
        for x in lits:
            out = self.OR(out, x)
        return out

    def mux(self, s, t, e):
        return self.OR(self.AND(s, t), self.AND(s ^ 1, e))

    def xor(self, a, b):
        return self.mux(a, b ^ 1, b)

    def write(self, path, nexts, outputs):
        m = self.i + self.l + len(self.ands)
        with open(path, 'wb') as f:
            f.write(f"aig {m} {self.i} {self.l} {len(outputs)} {len(self.ands)}\n".encode())
            for x in nexts:
                f.write(f"{x}\n".encode())
            for x in outputs:
                f.write(f"{x}\n".encode())
            for k, (r0, r1) in enumerate(self.ands):
                lhs = 2 * (self.i + self.l + 1 + k)
                assert lhs > r0 >= r1
                for delta in (lhs - r0, r0 - r1):
                    while delta >= 0x80:
                        f.write(bytes([(delta & 0x7F) | 0x80]))
                        delta >>= 7
                    f.write(bytes([delta]))


def read_position(text):
    s = ''.join(text.split())
    side = s[-1]
    board = s[:-1]
    n = {16: 4, 36: 6, 64: 8}.get(len(board))
    if n is None or side not in 'XO':
        sys.exit(f"error: a position is 16, 36 or 64 squares then X or O, not {len(board)} squares and {side!r}")
    black = [ch == 'X' for ch in board]
    white = [ch == 'O' for ch in board]
    return n, black, white, side == 'O'


def legal_anywhere(n, me, op):
    for sq in range(n * n):
        if me[sq] or op[sq]:
            continue
        r, c = divmod(sq, n)
        for dr, dc in D8:
            rr, cc, run = r + dr, c + dc, 0
            while 0 <= rr < n and 0 <= cc < n and op[rr * n + cc]:
                rr, cc, run = rr + dr, cc + dc, run + 1
            if run and 0 <= rr < n and 0 <= cc < n and me[rr * n + cc]:
                return True
    return False


def build(n, tb, tw, tside, parity):
    nn = n * n
    h = n // 2
    start_black = {(h - 1) * n + h, h * n + h - 1}
    start_white = {(h - 1) * n + h - 1, h * n + h}
    n_latches = 2 * nn + 1 + (1 if parity else 0)
    g = Aig(nn, n_latches)
    # stored latch k holds the state bit, inverted where it starts at 1
    inverted = [sq in start_black for sq in range(nn)] + [sq in start_white for sq in range(nn)] + [False] * (n_latches - 2 * nn)
    state = [g.latch(k) ^ (1 if inverted[k] else 0) for k in range(n_latches)]
    b, w, side = state[:nn], state[nn:2 * nn], state[2 * nn]
    mover = [g.mux(side, w[x], b[x]) for x in range(nn)]
    other = [g.mux(side, b[x], w[x]) for x in range(nn)]
    empty = [g.AND(b[x] ^ 1, w[x] ^ 1) for x in range(nn)]
    allowed = [tb[x] or tw[x] for x in range(nn)]
    legal = []
    flip_terms = [[] for _ in range(nn)]  # per square: (move square, its flip literal)
    for sq in range(nn):
        r, c = divmod(sq, n)
        captures = []
        for dr, dc in D8:
            ray = []
            rr, cc = r + dr, c + dc
            while 0 <= rr < n and 0 <= cc < n:
                ray.append(rr * n + cc)
                rr, cc = rr + dr, cc + dc
            if len(ray) < 2:
                continue
            # prefix[j]: ray[0..=j] all the other side's; bracket[j]: the
            # mover's disc at ray[j] closes a run ray[0..j] (j >= 1)
            prefix = []
            p = 1
            for x in ray:
                p = g.AND(p, other[x])
                prefix.append(p)
            bracket = [0] + [g.AND(prefix[j - 1], mover[ray[j]]) for j in range(1, len(ray))]
            # closed_after[j]: some bracket beyond j
            closed_after = [0] * len(ray)
            acc = 0
            for j in range(len(ray) - 1, -1, -1):
                closed_after[j] = acc
                acc = g.OR(acc, bracket[j])
            captures.append(acc)
            if allowed[sq]:
                for j in range(len(ray) - 1):
                    flip_terms[ray[j]].append((sq, g.AND(prefix[j], closed_after[j])))
        legal.append(g.AND(empty[sq], g.any(captures)))
    any_legal = g.any(legal)
    chosen = [0] * nn
    taken = 0
    for sq in range(nn):
        if not allowed[sq]:
            continue
        cand = g.AND(g.input(sq), legal[sq])
        chosen[sq] = g.AND(cand, taken ^ 1)
        taken = g.OR(taken, cand)
    moved = taken
    flip = [g.any(g.AND(chosen[m], f) for m, f in flip_terms[x]) for x in range(nn)]
    new_mover = [g.OR(g.OR(mover[x], chosen[x]), flip[x]) for x in range(nn)]
    new_other = [g.AND(other[x], flip[x] ^ 1) for x in range(nn)]
    nb = [g.mux(moved, g.mux(side, new_other[x], new_mover[x]), b[x]) for x in range(nn)]
    nw = [g.mux(moved, g.mux(side, new_mover[x], new_other[x]), w[x]) for x in range(nn)]
    nside = g.xor(side, g.OR(moved, any_legal ^ 1))
    nexts_state = nb + nw + [nside]
    if parity:
        nexts_state.append(g.xor(state[2 * nn + 1], moved))
    nexts = [x ^ (1 if inverted[k] else 0) for k, x in enumerate(nexts_state)]
    eq = [b[x] ^ (0 if tb[x] else 1) for x in range(nn)] + [w[x] ^ (0 if tw[x] else 1) for x in range(nn)]
    eq.append(side ^ (0 if tside else 1))
    bad = g.all(eq)
    return g, nexts, [bad]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, text = sys.argv[1], sys.argv[2]
    parity = '--parity' in sys.argv[3:]
    n, tb, tw, tside = read_position(text)
    if any(tb[x] and tw[x] for x in range(n * n)):
        sys.exit("error: a square holds both colours")
    if not legal_anywhere(n, tb, tw) and not legal_anywhere(n, tw, tb):
        sys.exit("error: a terminal position (the model lets a pass follow a pass; see the module's text)")
    g, nexts, outputs = build(n, tb, tw, tside, parity)
    g.write(out, nexts, outputs)
    print(f"{out}: {n}x{n}, {g.i} inputs, {g.l} latches, {len(g.ands)} and gates")


if __name__ == '__main__':
    main()
