#!/usr/bin/env bash
# Decide again the undecided samples of the estimates a catalogue pools,
# from the documents the catalogue stores (`catalog export`): for when the
# runs' own files are gone (another machine, a cleaned work directory).
# One unit per estimate, each resumable: run the same command again after
# a stop and each resolve takes up its progress file in OUT/ID/.
#   setsid nohup scripts/resolve-catalogued.sh BIN_DIR SIZE OUT RESOLVE_ARGS... > res.log 2>&1 &
# e.g. scripts/resolve-catalogued.sh target/release 8 /work/runs/res --budget 1000000 --beam-width 10000 --sweep-width 16000000 --threads 1
# The estimates are those the table SIZExSIZE-estimate.csv of the
# catalogue pools (its `runs` column); CATALOG=DIR names another catalogue
# directory than results/; IDS="ID ..." resolves only those estimates
# (one seed a session, say). Each resolved document lands in OUT/ID/; then
# `othello-census catalog add OUT/*/estimate-*.json`. Across machines, add
# `--part K/N` on machine K (each keeps its share in
# OUT/ID/resolve-*.part-K-of-N.progress and writes no document), then on
# one machine, per estimate:
# IDS=ID scripts/resolve-catalogued.sh BIN SIZE OUT ARGS... --gather FILE...
# with the parts' progress files of that estimate (docs/long-runs.md).
# Time-boxed units: with `--time 50m` each estimate's resolve stops
# starting samples after 50 minutes and writes a partial document (every
# verdict exact, the rest marked untried; `catalog add` takes it); the
# same command later goes on from the progress in OUT/ID/.
set -euo pipefail
bin_dir=$1 size=$2 out=$3
shift 3
export PATH="$bin_dir:$PATH"
. "$(dirname "$0")/require-clean-build.sh"
grep -m1 'model name' /proc/cpuinfo
dir=${CATALOG:-results}
table="$dir/${size}x${size}-estimate.csv"
[ -f "$table" ] || { echo "error: $table does not exist: no catalogued estimate of ${size}x${size}" >&2; exit 1; }
ids=${IDS:-$(grep -v '^#' "$table" | tail -n +2 | awk -F, '{print $NF}' | tr ' ' '\n' | grep . | sort -u)}
for id in $ids; do
    mkdir -p "$out/$id/from"
    doc="$out/$id/from/$id.json"
    [ -e "$doc" ] || othello-census catalog export "$id" --dir "$dir" --out "$doc"
    if grep -q '"undecided_samples": \[\]' "$doc"; then
        echo "$id: nothing undecided"
        continue
    fi
    # a document with untried samples is a partial one (a resolve stopped
    # by --time or a signal): the same command goes on from its progress
    whole=$(grep -L '"untried": true' "$out/$id"/estimate-*.json 2>/dev/null | head -1 || true)
    if [ -n "$whole" ]; then
        echo "$id: resolved already: $whole"
        continue
    fi
    echo "$id: $(date -u +%H:%M:%S) deciding again"
    othello-census estimate --resolve "$doc" --out "$out/$id" -q "$@"
done
# the newest document of each estimate (a whole one, or the partial one
# of the last unit): a partial one added before would be refused again
newest=$(for id in $ids; do ls "$out/$id"/estimate-*.json 2>/dev/null | sort | tail -1 || true; done | tr '\n' ' ')
echo "done; add them (the newest of each; runs with --part write none: gather them first): othello-census catalog add $newest"
