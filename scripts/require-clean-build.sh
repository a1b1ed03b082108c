# Sourced by the long-run scripts after `othello-census` is on PATH: a
# run's provenance is its binary's commit, so a build with uncommitted
# changes (`-dirty` in `othello-census --version`) is refused unless
# ALLOW_DIRTY=1.
case "$(othello-census --version)" in
    *-dirty*)
        echo "error: $(command -v othello-census) was built with uncommitted changes; commit, rebuild, and start again (ALLOW_DIRTY=1 to go on anyway)" >&2
        [ "${ALLOW_DIRTY:-}" = 1 ] || exit 1
        ;;
esac
