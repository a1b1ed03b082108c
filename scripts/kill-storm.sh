#!/usr/bin/env bash
# Kill storm (issue 52): `kill -9` at random moments of a DFS run and of a
# layered run with --slices, each killed run continued with the command the
# tool suggests (`othello-census resume CHECKPOINT` or `resume WORK_DIR`),
# until the run finishes; then checks that
#   - its counts (the result JSON's layers and totals, not its timings) are
#     those of an uninterrupted run of the same command;
#   - nothing is left that the finished run does not need: the DFS
#     checkpoint folder is empty (the checkpoint of a finished run, killed
#     saves' temporaries and the lock file all removed), the layered work
#     directory holds only run.manifest (no layer, bucket, temporary or
#     run.lock), the --out folder one JSON and one CSV (no second result, no
#     temporary, no probe), and nothing else was written;
#   - the settings are the ones the run was started with: the recorded
#     command and limit, the result in the run's --out, and for the layered
#     run the --slices and --out its manifest keeps (`inspect DIR --json`).
# A run that finishes before KILLS kills is checked, and a new one (a new
# round) is stormed, until KILLS kills have landed on each engine; the round
# under way when they have then finishes unkilled.
#
# Usage (from the repository root, after `cargo build --release`):
#   scripts/kill-storm.sh [ENGINE...]       # ENGINE: dfs, layers (default both)
# Settings (environment):
#   BIN          the binary (target/release/othello-census, or
#                $CARGO_TARGET_DIR/release/othello-census)
#   KILLS        kills per engine, at least (100)
#   MAX_DELAY    each run is killed after a uniform random delay in
#                [0, MAX_DELAY) seconds (3)
#   DFS_DISCS    the DFS run: count --size 6 --max-discs DFS_DISCS
#                --checkpoint-every 1s (15: ~10 s uninterrupted on 2 cores)
#   LAYERS_DISCS the layered run: count --engine layers --size 6
#                --max-discs LAYERS_DISCS --no-store-last --slices SLICES (14)
#   SLICES       (4)
#   WORK         where the runs are made (a new temporary directory, removed
#                at the end unless KEEP=1)
# Exit status 0 when every check holds, 1 at the first that does not (the
# run's folder is then kept). Docs: docs/engines.md (checkpoints).
set -euo pipefail

BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/othello-census}
BIN=$(realpath "$BIN")
KILLS=${KILLS:-100}
MAX_DELAY=${MAX_DELAY:-3}
DFS_DISCS=${DFS_DISCS:-15}
LAYERS_DISCS=${LAYERS_DISCS:-14}
SLICES=${SLICES:-4}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/kill-storm.XXXXXX")}
mkdir -p "$WORK"
WORK=$(realpath "$WORK") # as the runs' getcwd gives it (the manifest keeps --out absolute)
ENGINES=("$@")
[[ ${#ENGINES[@]} -gt 0 ]] || ENGINES=(dfs layers)

say() { printf '%s\n' "$*"; }
fail() {
    say "FAILED: $*"
    KEEP=1
    exit 1
}
cleanup() { [[ ${KEEP:-0} == 1 ]] || rm -rf "$WORK"; }
trap cleanup EXIT

# the counts of a result document: its layers and totals, keys sorted
counts() { jq -S -c '{size, layer_by, limit, complete, layers, totals}' "$1"; }

# the command that starts the run of ENGINE in folder DIR (relative paths:
# it runs in DIR)
start_command() {
    case $1 in
    dfs) echo count --size 6 --max-discs "$DFS_DISCS" --checkpoint ck/run.ckpt --checkpoint-every 1s --out out --json -q ;;
    layers) echo count --engine layers --size 6 --max-discs "$LAYERS_DISCS" --no-store-last --slices "$SLICES" \
        --work-dir w --out out --json -q ;;
    esac
}

# whether process PID is alive (a zombie is not)
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n $state && $state != Z ]]
}

say "kill storm $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "binary: $BIN ($("$BIN" --version))"
say "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
say "settings: KILLS=$KILLS MAX_DELAY=$MAX_DELAY DFS_DISCS=$DFS_DISCS LAYERS_DISCS=$LAYERS_DISCS SLICES=$SLICES"
say "work: $WORK"

storm() {
    local engine=$1
    local ref="$WORK/$engine-reference"
    local -a start
    read -r -a start <<<"$(start_command "$engine")"
    mkdir -p "$ref"
    local t0=$SECONDS
    (cd "$ref" && "$BIN" "${start[@]}" >stdout 2>stderr) || fail "$engine: the uninterrupted run: $(cat "$ref/stderr")"
    local want
    want=$(counts "$ref/stdout")
    say ""
    say "== $engine: othello-census ${start[*]}"
    say "uninterrupted: $((SECONDS - t0)) s, classes $(jq .totals.classes "$ref/stdout"), positions $(jq .totals.positions "$ref/stdout")"
    local kills=0 round=0 sessions=0 restarts=0 stale=0 storm_t0=$SECONDS
    while ((kills < KILLS)); do
        round=$((round + 1))
        local dir="$WORK/$engine-storm-$round"
        local round_kills=0 round_sessions=0 round_t0=$SECONDS printed=0
        mkdir -p "$dir"
        while true; do
            local -a cmd
            case $engine in
            dfs)
                if [[ -f $dir/ck/run.ckpt ]]; then
                    cmd=(resume ck/run.ckpt --json -q)
                elif compgen -G "$dir/out/*.json" >/dev/null; then
                    break # killed after its result was written and its checkpoint removed
                else
                    cmd=("${start[@]}") # killed before its first checkpoint: start it again
                fi
                ;;
            layers)
                if [[ -f $dir/w/run.manifest ]]; then
                    cmd=(resume w --json -q) # the command a stopped run suggests
                else
                    cmd=("${start[@]}") # killed before its first commit: start it again
                fi
                ;;
            esac
            # what the kills left for this session to clean up: temporaries
            # of atomic writes and lock files
            stale=$((stale + $(find "$dir" \( -name '.*tmp-*' -o -name '*.lock' \) | wc -l)))
            [[ ${cmd[0]} == count ]] && restarts=$((restarts + 1))
            sessions=$((sessions + 1))
            round_sessions=$((round_sessions + 1))
            (cd "$dir" && exec "$BIN" "${cmd[@]}" >stdout 2>>stderr) &
            local pid=$! delay
            delay=$(awk -v r="$RANDOM" -v m="$MAX_DELAY" 'BEGIN { printf "%.3f", r / 32768 * m }')
            local until_ms
            until_ms=$(($(date +%s%3N) + 10#${delay/./}))
            while alive "$pid" && (($(date +%s%3N) < until_ms)); do sleep 0.02; done
            local rc=0
            if ((kills < KILLS)) && alive "$pid"; then
                kill -9 "$pid" 2>/dev/null || true
                { wait "$pid"; } 2>/dev/null || rc=$?
                if ((rc == 137)); then
                    kills=$((kills + 1))
                    round_kills=$((round_kills + 1))
                    continue
                fi
            else
                wait "$pid" || rc=$?
            fi
            ((rc == 0)) || fail "$engine round $round: ${cmd[*]} exited $rc: $(tail -3 "$dir/stderr")"
            printed=1
            break
        done
        # the finished run: its result, in its --out
        local results
        results=$(find "$dir/out" -name '*.json' 2>/dev/null | sort || true)
        [[ $(wc -l <<<"$results") == 1 && -n $results ]] ||
            fail "$engine round $round: results in out/: ${results:-none}; the folder holds: $(cd "$dir" && find . -mindepth 1 | sort | tr '\n' ' ')"
        local got
        got=$(counts "$results")
        [[ $got == "$want" ]] || fail "$engine round $round: counts differ from the uninterrupted run's: $got"
        if ((printed)); then
            [[ $(counts "$dir/stdout") == "$want" ]] || fail "$engine round $round: the printed counts differ"
        fi
        # the settings it was started with
        [[ $(jq -r .command "$results") == "othello-census ${start[*]}" ]] ||
            fail "$engine round $round: recorded command $(jq -r .command "$results")"
        # nothing left that the finished run does not need
        local left
        left=$(cd "$dir" && find . -mindepth 1 -not -path ./stdout -not -path ./stderr -not -path ./out \
            -not -path "./out/$(basename "$results")" -not -path "./out/$(basename "${results%.json}").csv" |
            sort | tr '\n' ' ')
        case $engine in
        dfs) [[ $left == "./ck " || -z $left ]] || fail "dfs round $round: left behind: $left" ;;
        layers)
            [[ $left == "./w ./w/run.manifest " ]] || fail "layers round $round: left behind: $left"
            local kept
            kept=$("$BIN" inspect "$dir/w" --json | jq -c .settings)
            [[ $kept == "{\"slices\":$SLICES,\"compact_buckets\":false,\"disk_limit\":null,\"out\":\"$dir/out\"}" ]] ||
                fail "layers round $round: settings kept: $kept"
            ;;
        esac
        say "round $round: $round_kills kills in $round_sessions sessions, $((SECONDS - round_t0)) s; counts equal; left: ${left:-nothing}"
    done
    say "$engine: $kills kills, $sessions sessions ($restarts started with count: the first of each round, and after a kill before anything was saved), $round rounds, $((SECONDS - storm_t0)) s; $stale temporaries and lock files left by kills met by the next session; every round: the uninterrupted counts, nothing left behind, the settings it was started with"
}

for e in "${ENGINES[@]}"; do
    case $e in
    dfs | layers) storm "$e" ;;
    *) fail "unknown engine $e (dfs or layers)" ;;
    esac
done
say ""
say "kill storm passed"
