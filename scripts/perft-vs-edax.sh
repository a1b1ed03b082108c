#!/usr/bin/env bash
# perft side by side with Edax 4.6 built from source, as quoted in results/benchmarks/README.md
# (about 9 minutes on 2 cores, 6 GB RAM at ply 15). Not part of CI.
# usage: scripts/perft-vs-edax.sh [EDAX_DIR]   (built there if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
E_DIR=${1:-/tmp/edax}
[ -x "$E_DIR/edax" ] || ../shared/anchors/edax/build.sh "$E_DIR"
E=$E_DIR/edax
cargo build --release
O=target/release/othello-census
t() { /usr/bin/time -f "  wall %e s, max RSS %M KB" "$@"; }
printf 'perft 9\n' | $E -n 1 >/dev/null 2>&1   # Edax's first-run set-up, not timed
for i in 1 2; do echo "== edax count games 14 (1 thread), run $i"; t $E -n 1 -count games 14 2>&1 | grep -E "^ *14,|wall"; done
echo "== edax perft 12, one core"; printf 'perft 12\n' | t taskset -c 1 $E -n 1 2>&1 | grep -E "^ *12,|wall"
echo "== brute 12, one core"; t taskset -c 1 $O perft --size 8 --depth 12 --method brute -q | tail -1
echo "== edax perft 13 (1 thread)"; printf 'perft 13\n' | t $E -n 1 2>&1 | grep -E "^ *13,|wall"
echo "== brute 13"; t $O perft --size 8 --depth 13 --method brute -q | tail -1
echo "== hashed 13"; t $O perft --size 8 --depth 13 -q | tail -1
for i in 1 2 3; do echo "== hashed 14, run $i"; t $O perft --size 8 --depth 14 -q | tail -1; done
echo "== hashed 14, one core"; t taskset -c 1 $O perft --size 8 --depth 14 -q | tail -1
echo "== hashed 15"; t $O perft --size 8 --depth 15 -q | tail -1
