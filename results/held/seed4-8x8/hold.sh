#!/usr/bin/env bash
# After a unit of the fourth seed's chain (results/held/seed4-8x8/unit.sh) has
# ended: copy what a fresh machine needs to go on into results/held/seed4-8x8/,
# replacing what was held there, for a commit:
#   - seed4/: the first phase's document, or its progress file while it is drawn;
#   - seed4r1/, seed4r2/, seed4r3/: each step's newest document and its progress file.
#   WORK=/work/runs/ex18 results/held/seed4-8x8/hold.sh      (from the repository's root)
# Refuses while a step still runs (its files are moving).
set -euo pipefail
work=${WORK:-/work/runs/ex18}
here=results/held/seed4-8x8
if pgrep -f -- "--out seed4( |r1 |r2 |r3 )" > /dev/null; then
    echo "error: a step of seed 4's chain still runs; hold its files once it has ended" >&2
    exit 1
fi
for step in seed4 seed4r1 seed4r2 seed4r3; do
    dir=$work/$step
    [ -d "$dir" ] || continue
    newest=$(ls "$dir"/estimate-*.json 2>/dev/null | sort | tail -1 || true)
    progress=$(ls "$dir"/*.progress 2>/dev/null | grep -v '\.part-' || true)
    [ -n "$newest$progress" ] || continue
    mkdir -p "$here/$step"
    rm -f "$here/$step"/estimate-*.json "$here/$step"/*.progress
    # the first phase's progress file goes once its document is written
    if [ "$step" = seed4 ] && [ -n "$newest" ]; then progress=; fi
    cp $newest $progress "$here/$step/"
    echo "$step: held $(cd "$here/$step" && ls | tr '\n' ' ')"
done
# the progress file of the first phase, held before this layout, lies at the top
if [ -d "$here/seed4" ]; then rm -f "$here"/estimate-*.progress; fi
git status --short "$here"
