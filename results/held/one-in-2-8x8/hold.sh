#!/usr/bin/env bash
# After a unit (results/held/one-in-2-8x8/unit.sh) has ended: copy each
# estimate's newest partial document and its progress file from the work
# directories into results/held/one-in-2-8x8/ID/ (replacing what was held
# there), for a commit, so that a fresh machine goes on from them.
#   OUT=/work/runs/ex19 results/held/one-in-2-8x8/hold.sh      (from the repository's root)
# Refuses while a unit of the widening still runs (its files are moving).
set -euo pipefail
out=${OUT:-/work/runs/ex19}
here=results/held/one-in-2-8x8
if pgrep -f -- "--resolve $out/" > /dev/null; then
    echo "error: a resolve in $out still runs; hold its files once it has ended" >&2
    exit 1
fi
for dir in "$out"/estimate-8x8-*; do
    [ -d "$dir" ] || continue
    id=$(basename "$dir")
    newest=$(ls -t "$dir"/estimate-*.json 2>/dev/null | head -1 || true)
    progress=$(ls "$dir"/resolve-*.progress 2>/dev/null | grep -v '\.part-' || true)
    if [ -z "$newest" ]; then
        echo "$id: no document yet: nothing held"
        continue
    fi
    if [ -z "$progress" ]; then
        if grep -q '"untried": true' "$newest"; then
            echo "$id: a partial document without its progress file: nothing held" >&2
            continue
        fi
        # the whole document: the resolve has ended (its progress file goes)
        mkdir -p "$here/$id"
        rm -f "$here/$id"/estimate-*.json "$here/$id"/resolve-*.progress
        cp "$newest" "$here/$id/"
        echo "$id: held the whole document $(basename "$newest")"
        continue
    fi
    mkdir -p "$here/$id"
    rm -f "$here/$id"/estimate-*.json "$here/$id"/resolve-*.progress
    cp "$newest" $progress "$here/$id/"
    echo "$id: held $(basename "$newest") and $(basename $progress)"
done
git status --short "$here"
