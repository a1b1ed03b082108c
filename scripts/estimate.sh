#!/usr/bin/env bash
# A long estimate in units that survive a stop: one `estimate --time UNIT`
# per seed, each written to OUT as soon as it ends; `catalog add OUT/*.json`
# pools them (distinct seeds draw distinct samples). A run killed midway
# goes on when the same command runs again: a seed with a document in OUT
# (and, with RESOLVE_BUDGET, in OUT/resolved) is not run again, the unit
# under way goes on from its progress file in OUT, and a resolve from its
# own (a kill loses at most their last 30 seconds).
#   setsid nohup scripts/estimate.sh BIN_DIR SIZE DISCS UNIT FIRST_SEED LAST_SEED OUT > est.log 2>&1 &
# e.g. scripts/estimate.sh target/release 6 15-22 30m 10 17 results/runs
# BUDGET=N in the environment passes --budget N (positions per backward
# search before a sample counts as undecided; the binary's default else);
# ODD_PASS_CENSUS=DIR passes --odd-pass-census DIR (a census work directory
# whose stored layer's odd-pass positions the searches also stop at);
# CENSUS_LAYER=DIR passes --census-layer DIR (the whole stored layer).
# BEAM_WIDTH=W and SWEEP_WIDTH=W pass --beam-width W and --sweep-width W
# (to the unit and to its resolve); THREADS=T passes --threads T to the
# unit (all cores else).
# FOCUS=terminal passes --focus terminal (only terminal candidates decided;
# the catalogue pools such runs into terminal positions only, under seeds
# no run of every sample of the board uses).
# RESOLVE_BUDGET=N: after each unit, its undecided samples are searched
# again at budget N (`estimate --resolve`), written to OUT/resolved: the
# same samples at budget N (`catalog add` both: the catalogue pools the
# resolved document in place of its unit, with the other seeds);
# RESOLVE_THREADS=T passes --threads T to it (a search of budget N holds up
# to 16 bytes a position in a half-full table, 6 GiB a thread at 1.3e8:
# the command refuses, in one line, a budget whose searches do not fit).
set -euo pipefail
bin_dir=$1 size=$2 discs=$3 unit=$4 first=$5 last=$6 out=$7
export PATH="$bin_dir:$PATH"
. "$(dirname "$0")/require-clean-build.sh"
grep -m1 'model name' /proc/cpuinfo
for seed in $(seq "$first" "$last"); do
    if ls "$out"/estimate-"$size"x"$size"-*-seed"$seed".json > /dev/null 2>&1; then
        echo "seed $seed: its unit is written already"
    else
        othello-census estimate --size "$size" --discs "$discs" --time "$unit" --seed "$seed" \
            --out "$out" --progress-every 5m -q ${BUDGET:+--budget "$BUDGET"} \
            ${THREADS:+--threads "$THREADS"} \
            ${ODD_PASS_CENSUS:+--odd-pass-census "$ODD_PASS_CENSUS"} \
            ${CENSUS_LAYER:+--census-layer "$CENSUS_LAYER"} \
            ${BEAM_WIDTH:+--beam-width "$BEAM_WIDTH"} \
            ${SWEEP_WIDTH:+--sweep-width "$SWEEP_WIDTH"} \
            ${FOCUS:+--focus "$FOCUS"}
    fi
    if [ -n "${RESOLVE_BUDGET:-}" ] \
        && ! ls "$out"/resolved/estimate-"$size"x"$size"-*-seed"$seed".json > /dev/null 2>&1; then
        unit_doc=$(ls -t "$out"/estimate-"$size"x"$size"-*-seed"$seed".json | head -1)
        othello-census estimate --resolve "$unit_doc" --budget "$RESOLVE_BUDGET" --out "$out/resolved" -q \
            ${RESOLVE_THREADS:+--threads "$RESOLVE_THREADS"} \
            ${BEAM_WIDTH:+--beam-width "$BEAM_WIDTH"} \
            ${SWEEP_WIDTH:+--sweep-width "$SWEEP_WIDTH"} \
            ${CENSUS_LAYER:+--census-layer "$CENSUS_LAYER"}
    fi
done
