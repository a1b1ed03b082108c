#!/bin/bash
# probes/pdr_check.sh FILE LIMIT_S [--parity]: each position of FILE (lines `TAG
# POSITION`, as probes/pdr_positions.py writes them) decided by the engine
# (`othello-census reachable`, from PATH or BIN) and by ABC's pdr on
# probes/pdr_othello.py's model (apt-get install berkeley-abc), side by side.
# It writes m.aig and err.txt in the current directory.
BIN=${BIN:-$(dirname "$(command -v othello-census)")}
while read tag pos; do
  e=$(timeout 120 "$BIN"/othello-census reachable --position "$pos" 2>&1 | grep -m1 -o -E "^(reachable|unreachable|undecided)")
  if python3 "$(dirname "$0")"/pdr_othello.py m.aig "$pos" $3 > /dev/null 2> err.txt; then
    t0=$(date +%s.%N)
    a=$(timeout $(( $2 + 30 )) berkeley-abc -c "read m.aig; pdr -T $2" 2>&1 | grep -m1 -o -E "Property proved|asserted in frame [0-9]+|timeout|Reached")
    t1=$(date +%s.%N)
  else a="refused: $(cat err.txt)"; t0=0; t1=0; fi
  printf "%s %s | engine: %s | pdr: %s (%.1f s)\n" "$tag" "$pos" "$e" "$a" $(echo "$t1 - $t0" | bc)
done < $1
