"""For each 8x8 position read from stdin (`reachable`'s notation, one a
line), prints four lines: the position; its colour swap with the other
side to move (the same mover's discs, so the same pair (mover's discs,
other discs) as Ishii and Tanaka count); the position turned 90 degrees;
and that one's colour swap. Feed to probes/beam_probe.rs to see how often
the images of a reachable position are reachable (docs/estimate.md,
"Compared with Ishii and Tanaka").
Usage: python3 random_positions.py SEED 40,44,48,52 COUNT | python3 d4_images.py"""
import sys
N=8
def swap(ch): return {'X':'O','O':'X','-':'-'}[ch]
def turn(rows): return [''.join(rows[N-1-c][r] for c in range(N)) for r in range(N)]
for text in sys.stdin:
    *rows, side = text.split()
    swapped = [''.join(swap(ch) for ch in row) for row in rows]
    for b, s in [(rows, side), (swapped, swap(side)), (turn(rows), side), (turn(swapped), swap(side))]:
        print(' '.join(b) + ' ' + s)
