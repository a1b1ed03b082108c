#!/usr/bin/env bash
# The measured runs quoted in results/benchmarks/README.md (several minutes, ~5 GB RAM, ~2 GB
# disk). Not part of CI. Prints wall time and peak RSS for each.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
bin=target/release/othello-census
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {
  echo "== $*"
  /usr/bin/time -f "wall %e s, peak RSS %M KB" "$bin" "$@" --out "$work/results" -q | tail -3
}
echo "== perft --size 8 --depth 11"
/usr/bin/time -f "wall %e s, peak RSS %M KB" "$bin" perft --size 8 --depth 11 | tail -2
measure count --size 6 --max-discs 16 --checkpoint "$work/a.ckpt"
measure count --size 8 --max-discs 14 --checkpoint "$work/b.ckpt"
measure count --engine layers --size 8 --by ply --plies 12 --memory 3GiB --work-dir "$work/l8"
measure count --engine layers --size 6 --max-discs 17 --memory 8GiB --work-dir "$work/l6"
