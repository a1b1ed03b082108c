#!/usr/bin/env bash
# The widening of seeds 1-3's subsample to one in 2 (docs/estimate-history.md,
# "Widening to one in 2"), one seed a unit, resumable: the same command goes on.
#   results/held/one-in-2-8x8/unit.sh ID TIME     (from the repository's root)
# ID: estimate-8x8-20261206T234625Z-seed1, estimate-8x8-20261206T142249Z-seed2 or
# estimate-8x8-20261206T080548Z-seed3. BIN (default target/release) holds a clean
# build with --features cadical; OUT (default /work/runs/ex19) the work directories:
# before the first unit on a fresh machine, copy results/held/one-in-2-8x8/ID/*.progress
# to OUT/ID/.
set -euo pipefail
IDS=$1 scripts/resolve-catalogued.sh "${BIN:-target/release}" 8 "${OUT:-/work/runs/ex19}" --budget 1000000 \
  --beam-width 0 --sweep-width 0 --exact-conflicts 20000000 --exact-first 5000000 --subsample 2 \
  --carry-exact --threads 1 --time "$2"
date -u
