#!/usr/bin/env bash
# 6x6 by discs to 20 on one machine: layers up to 19 stored (layer 19 has
# 5.67 G classes, about 17 GB), layer 20 (an estimated 24 G classes) counted
# unstored in as many slices as the disk needs, each slice a unit of
# resume. Starts the run, or resumes it if WORK holds one. Run it with the
# same binary from start to end (its commit is the run's provenance), in the
# background:
#   setsid nohup scripts/6x6-discs20.sh /path/to/dir-holding-othello-census WORK > WORK.log 2>&1 &
# then `othello-census catalog add WORK.out/*.json` once it has finished.
# Measured for planning: layers to 19 (unstored) took 34 min and 24.8 GiB of
# peak disk on 2 cores; each slice of layer 20 expands all of layer 19.
set -euo pipefail
bin_dir=$1 work=$2
export PATH="$bin_dir:$PATH"
. "$(dirname "$0")/require-clean-build.sh"
grep -m1 'model name' /proc/cpuinfo
echo "avx512: $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
if [ -e "$work/run.manifest" ]; then
    othello-census resume "$work" --json --out "$work.out" --progress-every 2m > "$work.json"
else
    othello-census count --engine layers --size 6 --max-discs 20 --no-store-last --partitions 64 \
        --memory 10GiB --json --out "$work.out" --work-dir "$work" --progress-every 2m > "$work.json"
fi
