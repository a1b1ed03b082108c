#!/usr/bin/env bash
# A124005 a(15) (and A124004 a(15), A124006/A125528/A125529 a(15)) on one
# machine: 8x8 by ply to 15, the last layer counted unstored in as many
# slices as the disk needs; layers up to 14 are stored (about 24 GB), each
# slice of ply 15 is a unit of resume. Starts the run, or resumes it if
# WORK holds one. Run it with the same binary from start to end (its
# commit is the run's provenance), in the background:
#   setsid nohup scripts/a15.sh /path/to/dir-holding-othello-census WORK > WORK.log 2>&1 &
# then `othello-census catalog add WORK.out/*.json` once it has finished.
set -euo pipefail
bin_dir=$1 work=$2
export PATH="$bin_dir:$PATH"
. "$(dirname "$0")/require-clean-build.sh"
grep -m1 'model name' /proc/cpuinfo
echo "avx512: $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
if [ -e "$work/run.manifest" ]; then
    # (--no-store-last again: builds before manifest version 6 do not
    # remember it, and it is harmless after)
    othello-census resume "$work" --no-store-last --json --out "$work.out" --progress-every 2m > "$work.json"
else
    othello-census count --engine layers --size 8 --by ply --plies 15 --no-store-last --partitions 64 \
        --memory 10GiB --json --out "$work.out" --work-dir "$work" --progress-every 2m > "$work.json"
fi
