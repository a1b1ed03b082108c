#!/usr/bin/env bash
# A124005 to ply P by the layered engine on T threads, for each "T" or
# "T:PARTITIONS" given: wall, user and system time and peak RSS (GNU
# time), the phases in seconds and ns a record, and the CPU. What the
# scaling figures in results/benchmarks/layers-a13-threads-16core-*.txt
# come from (on a lent 16-core machine, the binary built here and
# carried). Usage:
#   scripts/layers-threads.sh BINARY PLIES MEMORY T[:PARTITIONS]...
#   e.g. scripts/layers-threads.sh ./othello-census 13 32GiB 16 8 4 2 16:256
# Work directory and outputs in $WORK (default: a fresh temporary
# directory, removed at the end); each run's JSON kept in $OUT when set.
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 BINARY PLIES MEMORY T[:PARTITIONS]..." >&2
    exit 2
fi
bin=$1 plies=$2 memory=$3
shift 3
work=${WORK:-$(mktemp -d)}
[ -n "${OUT:-}" ] && mkdir -p "$OUT"
if [ -n "${WORK:-}" ]; then trap 'rm -rf "$work/w" "$work/o"' EXIT; else trap 'rm -rf "$work"' EXIT; fi
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\)|L3" || true
echo "avx512: $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
for tp in "$@"; do
    t=${tp%%:*} p=64
    [[ $tp == *:* ]] && p=${tp##*:}
    rm -rf "$work/w" "$work/o"
    json=${OUT:-$work}/a$plies-t$t-p$p.json
    /usr/bin/time -f "ply $plies threads $t partitions $p: wall %e s, user %U s, sys %S s, peak RSS %M KB" \
        "$bin" count --engine layers --size 8 --by ply --plies "$plies" --memory "$memory" --threads "$t" \
        --partitions "$p" --work-dir "$work/w" --out "$work/o" -q --json > "$json"
    python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["engine_stats"]["phases"]:
    if p["seconds"] > 0.5:
        print(f'  {p["phase"]} {p["layer"]}: {p["seconds"]:.2f} s, {p["seconds"] * 1e9 / max(1, p["records"]):.1f} ns a record')
PY
done
