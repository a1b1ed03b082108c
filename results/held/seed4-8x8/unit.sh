#!/usr/bin/env bash
# The fourth 8x8 seed's chain (docs/estimate-history.md, "Widening to one in 2"),
# one step after another, each resumable: run the same command again after a stop
# and it takes up the step it is in from that step's progress file.
#   results/held/seed4-8x8/unit.sh WORK DEADLINE THREADS     (from the repository's root)
# WORK: the work directory (seed4/, seed4r1/, seed4r2/, seed4r3/ under it); DEADLINE: when
# to stop, as `date -d` reads it (e.g. 19:50); THREADS: threads for each step.
# BIN (default target/release) holds a clean build of search generation 10 with
# --features cadical. On a fresh machine, copy the held files first: each of
# results/held/seed4-8x8/seed4*/ to WORK/ (`cp -r results/held/seed4-8x8/seed4* WORK/`;
# before hold.sh's layout, the first phase's estimate-*.progress lay at the top:
# copy it to WORK/seed4/). After a unit, hold.sh keeps them here for a commit.
# Steps, fixed by the plan before any of the seed's samples was searched again:
#   1. the first phase, drawn by its sample count (no beam, no sweep);
#   2. its undecided samples with a beam of 10,000;
#   3. what that leaves with the exact encoding at 10^6 conflicts, a first
#      round at 3 x 10^5; that document is the first phase of the double
#      sampling;
#   4. its subsample of one in 4 at 2 x 10^7 conflicts, a first round at
#      5 x 10^6, with --carry-exact (the widening's settings, and the same
#      beam as steps 2-3). The seed is pooled once this step's first round
#      is through: the resolve's last line then says that every sample it
#      has not searched is one the first round left, kept for the second.
#      The script ends when the second round is through too.
set -euo pipefail
work=$1 deadline=$(date -d "$2" +%s) threads=$3
export PATH="$(cd "${BIN:-target/release}" && pwd):$PATH"
grep -m1 'model name' /proc/cpuinfo
othello-census --version
mkdir -p "$work"
cd "$work"
left() { echo $(( deadline - $(date +%s) )); }
# the whole document of a resolve step's directory, if any: the newest whose
# resolve left no sample of its own untried (`resolved.untried` 0; samples
# outside a subsample are listed as untried too, so the samples' marks
# cannot tell)
whole() {
    local f
    for f in $(ls "$1"/estimate-*.json 2>/dev/null | sort -r); do
        if python3 -c 'import json, sys
r = json.load(open(sys.argv[1])).get("resolved") or {}
sys.exit(0 if r.get("untried", 1) == 0 else 1)' "$f"; then
            echo "$f"
            return
        fi
    done
}

first=$(ls seed4/estimate-*.json 2>/dev/null | sort | tail -1 || true)
if [ -z "$first" ]; then
    s=$(left); [ "$s" -gt 60 ] || { echo "no time left for the first phase"; exit 0; }
    echo "step 1, the first phase: $(date -u +%H:%M:%S), ${s}s"
    # stopped by the deadline, it keeps its progress file and writes no document
    rc=0
    timeout -s INT "$s" othello-census estimate --size 8 --discs all --samples 39973431 --seed 4 \
        --out seed4 --progress-every 5m -q --budget 1000000 --beam-width 0 --sweep-width 0 \
        --threads "$threads" || rc=$?
    first=$(ls seed4/estimate-*.json 2>/dev/null | sort | tail -1 || true)
    [ -n "$first" ] || { echo "step 1 stopped (exit $rc) at $(date -u +%H:%M:%S); the same command goes on"; exit 0; }
fi
echo "step 1 done: $first"

# a resolve step: N, what it is, the document it resolves, its directory,
# then its limits; sets `done` to its whole document, or stops the unit
# (exit 0) when the deadline leaves it unfinished
resolve_step() {
    local n=$1 what=$2 from=$3 out=$4
    shift 4
    done=$(whole "$out")
    if [ -z "$done" ]; then
        local m=$(( $(left) / 60 ))
        [ "$m" -ge 2 ] || { echo "no time left for step $n"; exit 0; }
        echo "step $n, $what: $(date -u +%H:%M:%S), ${m}m"
        othello-census estimate --resolve "$from" --out "$out" -q --budget 1000000 "$@" \
            --threads "$threads" --time "${m}m"
        done=$(whole "$out")
        [ -n "$done" ] || { echo "step $n stopped at $(date -u +%H:%M:%S); the same command goes on"; exit 0; }
    fi
    echo "step $n done: $done"
}

resolve_step 2 "the beam" "$first" seed4r1 --beam-width 10000 --sweep-width 0
# the same beam (a resolve never runs weaker limits than its document's;
# the beam is run again on each sample, about 2 s of its 20); --carry-exact
# from 2026-12-07 21:20 on (215 through the first round then): the second
# round goes on from what the first learned, and the limit of 10^6 counts
# both (it is not part of the resolve's ID: the same progress file goes on)
resolve_step 3 "the exact encoding" "$done" seed4r2 --beam-width 10000 --sweep-width 0 \
    --exact-conflicts 1000000 --exact-first 300000 --carry-exact
echo "the first phase's document: $done"
resolve_step 4 "the subsample of one in 4" "$done" seed4r3 --beam-width 10000 --sweep-width 0 \
    --exact-conflicts 20000000 --exact-first 5000000 --subsample 4 --carry-exact
