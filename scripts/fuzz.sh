#!/usr/bin/env bash
# Fuzzes the binary decoders (DFS checkpoint, layered manifest, expansion
# progress, part, bucket, rank message) with cargo fuzz (libFuzzer), SECONDS each
# (default 60): scripts/fuzz.sh [SECONDS]
# Needs the nightly toolchain and cargo-fuzz; installs both when missing.
# Seeds its corpus with real files from tiny runs; a crash leaves its input
# under fuzz/artifacts/<target>/ and stops the script with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked

cargo build --release --quiet
bin=$PWD/target/release/othello-census
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
for t in checkpoint manifest progress part bucket rank_message; do mkdir -p "fuzz/corpus/$t"; done
# a finished 4x4 run by discs in one partition: its manifest and last part
"$bin" count --engine layers --size 4 --by discs --partitions 1 --work-dir "$seeds/w" --quiet >/dev/null
cp "$seeds/w/run.manifest" fuzz/corpus/manifest/seed-4x4
cp "$seeds/w/layer-016/part-0000.lyr" fuzz/corpus/part/seed-4x4-layer16
# a DFS checkpoint, written when the run is interrupted
timeout -s INT 0.5 "$bin" count --engine dfs --size 6 --max-discs 16 --checkpoint "$seeds/c.ckpt" --quiet >/dev/null 2>&1 || true
if [ -f "$seeds/c.ckpt" ]; then cp "$seeds/c.ckpt" fuzz/corpus/checkpoint/seed-6x6; fi

for t in checkpoint manifest progress part bucket rank_message; do
    echo "== $t ($secs s)"
    # a checkpoint seed is a few MB (its cache and stacks); the others small
    max_len=65536
    if [ "$t" = checkpoint ]; then max_len=$((16 << 20)); fi
    cargo +nightly fuzz run "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$max_len" 2>&1 | tail -n 3
done
