#!/usr/bin/env bash
# The layered engine of two builds side by side: A124005 to ply P
# (default 12) at --memory 4GiB, run alternately (base, new, base, new),
# wall time and peak RSS of each, then each run's phases (seconds, records)
# and whether the layers of both are equal (the old schema's column name
# mapped). Usage: scripts/layers-side-by-side.sh BASE_BINARY NEW_BINARY [P]
# Build a base with: git worktree add /tmp/base COMMIT &&
#   (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target cargo build --release)
set -euo pipefail
base=$1 new=$2 plies=${3:-12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -m1 'model name' /proc/cpuinfo
echo "avx512: $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
for round in 1 2; do
    for which in base new; do
        bin=${!which}
        rm -rf "$work/w"
        /usr/bin/time -f "$which round $round: %e s, peak RSS %M KB" "$bin" count --engine layers --size 8 --by ply \
            --plies "$plies" --memory 4GiB -q --json --out "$work/o" --work-dir "$work/w" > "$work/$which.json"
    done
done
python3 - "$work/base.json" "$work/new.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for l in a["layers"]:
    if "games_a124004" in l:
        l["games_including_ended"] = l.pop("games_a124004")
# columns that both builds write (a newer build may add columns)
common = [sorted(set(x) & set(y)) for x, y in zip(a["layers"], b["layers"])]
same = len(a["layers"]) == len(b["layers"]) and all(
    all(x[k] == y[k] for k in keys) for x, y, keys in zip(a["layers"], b["layers"], common))
print("layers equal in the columns both write:", same, sorted(set().union(*map(set, common))) if common else [])
for name, doc in (("base", a), ("new", b)):
    print(name, [(p["phase"], p["layer"], round(p["seconds"], 1), p["records"]) for p in doc["engine_stats"]["phases"]][-5:])
PY
