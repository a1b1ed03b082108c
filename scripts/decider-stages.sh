#!/usr/bin/env bash
# The share of 8x8 samples each stage of `reachable` decides, per layer,
# with and without the flip-history relaxation, at the same per-sample
# limits (issue 50's table). Usage:
#   scripts/decider-stages.sh BIN [SAMPLES] [SEED] [BUDGET] [LAYERS...]
# SETTINGS="SAT:EXACT[:BEAM] ..." in the environment: the settings
# compared, each the flip-history relaxation's conflicts, the exact
# encoding's, and the beam's width (default 0: none; default settings
# "0:0 20000:0": without and with the relaxation, no exact stage or beam).
# Prints one line per layer and setting: samples, joined, unreachable by
# the relaxation, reachable and unreachable decided by the exact encoding,
# reachable, unreachable, undecided, seconds.
set -euo pipefail
bin=$1
samples=${2:-200}
seed=${3:-31}
budget=${4:-1000000}
shift $(( $# < 4 ? $# : 4 ))
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(44 48 52 56 60 64)
echo "# $($bin --version); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores"
echo "# discs sat_conflicts exact_conflicts beam_width samples joined relaxed exact_reachable exact_unreachable reachable unreachable undecided seconds"
for d in "${layers[@]}"; do
    for setting in ${SETTINGS:-0:0 20000:0}; do
        IFS=: read -r c x w <<< "$setting"
        w=${w:-0}
        start=$(date +%s.%N)
        json=$($bin estimate --size 8 --discs "$d" --samples "$samples" --seed "$seed" --budget "$budget" \
            --sat-conflicts "$c" --exact-conflicts "$x" --beam-width "$w" --threads 1 --json -q)
        end=$(date +%s.%N)
        JSON=$json python3 -c '
import json, os, sys
d, c, x, w, start, end = sys.argv[1:]
t = json.loads(os.environ["JSON"])["layers"][0]["tally"]
print(d, c, x, w, t["samples"], t["joined"], t.get("relaxed", 0), t.get("exact_reachable", 0), t.get("exact_unreachable", 0),
      t["reachable"], t["unreachable"], t["undecided"], f"{float(end) - float(start):.1f}")' "$d" "$c" "$x" "$w" "$start" "$end"
    done
done
