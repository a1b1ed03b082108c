#!/usr/bin/env bash
# FFO #40-#49 (tests/data/ffo-40-49.obf): `solve` on 2 threads, capped, and
# Edax 4.6 built from source (1 thread, `-l 60`: exact, no selective
# search), side by side, as quoted in docs/solve.md.
# usage: CAP=600 scripts/ffo-vs-edax.sh [EDAX_DIR]     Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
E_DIR=${1:-/tmp/edax}
[ -x "$E_DIR/edax" ] || ../shared/anchors/edax/build.sh "$E_DIR"
cargo build --release
O=$PWD/target/release/othello-census; CAP=${CAP:-600}; i=40
while IFS= read -r line; do
  pos=${line%%;*}; want=${line##*; }
  out=$(timeout "$CAP" "$O" solve --size 8 --position "$pos" --threads 2 --json 2>/dev/null || true)
  if [ -n "$out" ]; then
    echo "#$i (for the side to move: $want) ours: $(echo "$out" | python3 -c 'import json,sys;d=json.load(sys.stdin);print("value for Black", d["value"], "nodes", d["nodes"], "seconds", round(d["elapsed_seconds"],2))')"
  else echo "#$i ours: over $CAP s"; fi
  echo "$line" > /tmp/ffo-one.obf
  (cd "$E_DIR" && /usr/bin/time -f "  edax wall %e s" ./edax -n 1 -l 60 -solve /tmp/ffo-one.obf 2>&1 | grep -E "^ *1\||wall" | tail -2)
  i=$((i+1))
done < tests/data/ffo-40-49.obf
