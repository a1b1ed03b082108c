#!/usr/bin/env bash
# The share of 8x8 samples each stage of `reachable` decides, per layer,
# with and without the flip-history relaxation, at the same per-sample
# limits (issue 50's table). Usage:
#   scripts/decider-stages.sh BIN [SAMPLES] [SEED] [BUDGET] [LAYERS...]
# SETTINGS="SAT:EXACT[:BEAM[:SWEEP]] ..." in the environment: the settings
# compared, each the flip-history relaxation's conflicts, the exact
# encoding's, the beam's width and the sweep's (default 0: none; default
# settings "0:0 20000:0": without and with the relaxation, no exact stage,
# beam, and the build's default sweep).
# Prints one line per layer and setting: samples, joined, unreachable by
# the relaxation, reachable and unreachable decided by the exact encoding,
# by the beam and by the sweep, unreachable by the flip-count balance (0
# from builds before their counters), reachable, unreachable, undecided,
# seconds.
set -euo pipefail
bin=$1
samples=${2:-200}
seed=${3:-31}
budget=${4:-1000000}
shift $(( $# < 4 ? $# : 4 ))
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(44 48 52 56 60 64)
echo "# $($bin --version); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores"
echo "# discs sat_conflicts exact_conflicts beam_width sweep_width samples joined relaxed exact_reachable exact_unreachable beam_reachable beam_unreachable sweep_reachable sweep_unreachable balanced reachable unreachable undecided seconds"
for d in "${layers[@]}"; do
    for setting in ${SETTINGS:-0:0 20000:0}; do
        IFS=: read -r c x w s <<< "$setting"
        w=${w:-0}
        # builds before the sweep (generation 5) have no --sweep-width: it is
        # given only when the setting names it (else the build's default)
        sweep=()
        [ -z "$s" ] || sweep=(--sweep-width "$s")
        s=${s:-default}
        start=$(date +%s.%N)
        json=$($bin estimate --size 8 --discs "$d" --samples "$samples" --seed "$seed" --budget "$budget" \
            --sat-conflicts "$c" --exact-conflicts "$x" --beam-width "$w" "${sweep[@]}" --threads 1 --json -q)
        end=$(date +%s.%N)
        JSON=$json python3 -c '
import json, os, sys
d, c, x, w, s, start, end = sys.argv[1:]
t = json.loads(os.environ["JSON"])["layers"][0]["tally"]
print(d, c, x, w, s, t["samples"], t["joined"], t.get("relaxed", 0), t.get("exact_reachable", 0), t.get("exact_unreachable", 0),
      t.get("beam_reachable", 0), t.get("beam_unreachable", 0), t.get("sweep_reachable", 0), t.get("sweep_unreachable", 0),
      t.get("balanced", 0), t["reachable"], t["unreachable"], t["undecided"], f"{float(end) - float(start):.1f}")' "$d" "$c" "$x" "$w" "$s" "$start" "$end"
    done
done
