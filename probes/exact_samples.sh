#!/bin/bash
# Probe (issue 50): the exact game encoding alone on each position of a
# file (one a line, `reachable`'s notation), all at once (one process a
# position), each under a wall limit. Prints per position its index, exit
# status (124: the limit), wall seconds, verdict, time and peak RSS; each
# run's output goes to OUT/rI.txt.
#   probes/exact_samples.sh BIN POSITIONS CONFLICTS LIMIT_S OUT
# e.g. probes/exact_samples.sh target/release/othello-census left16.txt 2500000 550 /tmp/ex
set -u
bin=$1 positions=$2 conflicts=$3 limit=$4 out=$5
mkdir -p "$out"
nproc; grep -m1 'model name' /proc/cpuinfo; grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
i=0
while read -r line; do
    i=$((i+1))
    (
        s=$(date +%s)
        timeout "$limit" /usr/bin/time -f "%e s %M KB" "$bin" reachable --position "$line" --budget 1000 \
            --beam-width 0 --sweep-width 0 --exact-conflicts "$conflicts" --frontier 8 > "$out/r$i.txt" 2>&1
        rc=$?
        echo "$i rc=$rc wall=$(( $(date +%s) - s )) | $line | $(grep -E '^(reachable|unreachable|undecided)' "$out/r$i.txt" | cut -c1-100) | $(tail -n1 "$out/r$i.txt")"
    ) &
done < "$positions"
wait
