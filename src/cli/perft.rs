//! `othello-census perft`.

use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::args::{PerftArgs, PerftMethod};
use super::run::{Progress, human_duration, memory_limit, watched};
use othello_census::engine::feasibility;
use othello_census::engine::memory::default_perft_memory;
use othello_census::report::{Table, group_digits};
use othello_census::search::perft::hashed::{HashedStats, perft_hashed_with_progress};
use othello_census::search::perft::{PerftProgress, PerftRow, perft_with_progress};
use othello_census::with_geometry;

pub fn run(a: &PerftArgs) -> anyhow::Result<ExitCode> {
    let memory = match a.method {
        PerftMethod::Hashed => Some(memory_limit(a.memory, default_perft_memory, "the perft table", true)?),
        PerftMethod::Brute if a.memory.is_some() => anyhow::bail!("--memory is for --method hashed"),
        PerftMethod::Brute => None,
    };
    refuse_beyond_reach(a)?;
    let started = Instant::now();
    let progress = PerftProgress::new();
    let mut display = Progress::new(a.quiet, a.progress_every);
    let (rows, stats): (Vec<PerftRow>, _) = watched(
        std::time::Duration::from_millis(200),
        || {
            with_geometry!(a.size, G => match memory {
                Some(m) => {
                    let (rows, stats) = perft_hashed_with_progress::<G>(a.depth, m, &progress);
                    (rows, Some(stats))
                }
                None => (perft_with_progress::<G>(a.depth, &progress), None),
            })
        },
        || display.update(|| progress_line(a, &progress, started.elapsed().as_secs_f64())),
    );
    let elapsed = started.elapsed().as_secs_f64();
    display.last_line(|| progress_line(a, &progress, elapsed));
    display.finish();
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&perft_json(a, &rows, stats.as_ref(), elapsed))?)?;
    } else {
        print_table(a, &rows, stats.as_ref(), elapsed)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses, unless `--force`, a perft that would take longer than
/// [`feasibility::MAX_SECONDS`] even by an optimistic estimate; and, always, a
/// depth beyond the longest game of the board (it printed rows of zeros
/// after reserving its table: 83 of them for 4x4 to depth 100).
fn refuse_beyond_reach(a: &PerftArgs) -> anyhow::Result<()> {
    let n = a.size.n();
    // every move adds a disc, and a pass is followed by a move (two
    // passes end the game): at most N*N - 4 moves and as many passes
    let longest = 2 * (n * n - 4);
    if a.depth > longest {
        anyhow::bail!(
            "--depth {} is beyond the longest {n}x{n} game: {} moves and a pass after each at most, {longest} plies; give --depth {longest} or less",
            a.depth,
            n * n - 4
        );
    }
    let hashed = a.method == PerftMethod::Hashed;
    let threads = othello_census::engine::resources::threads(None);
    if let Some(secs) = feasibility::perft_seconds(a.size, a.depth, hashed, threads)
        && secs > feasibility::MAX_SECONDS
        && !a.force
    {
        anyhow::bail!(
            "perft {} to depth {} would take at least {} on {} (an optimistic estimate from OEIS A124004); depth \
             {} is within a month here; add --force to start it anyway",
            a.size,
            a.depth,
            human_duration(secs),
            othello_census::text::plural(threads as u32, "thread"),
            feasibility::perft_depth_within_reach(a.size, hashed, threads)
        );
    }
    Ok(())
}

/// Every game the walk counted: those alive at the last ply and those
/// that ended before it (a deep 4x4 perft has no game left at the end).
fn leaves(rows: &[PerftRow]) -> u128 {
    rows.last().map_or(0, |r| r.games_including_ended)
}

/// The JSON document of a perft.
fn perft_json(a: &PerftArgs, rows: &[PerftRow], stats: Option<&HashedStats>, elapsed: f64) -> serde_json::Value {
    json!({
        "tool": "othello-census",
        "version": env!("CARGO_PKG_VERSION"),
        "command": "perft",
        "size": a.size.n(),
        "depth": a.depth,
        // the row fields `passes` and `ended` are the census's
        // `games_passes` and `games_ended`
        "conventions": othello_census::census::game_conventions(othello_census::census::LayerBy::Ply)
            .into_iter()
            .map(|(k, v)| (k.strip_prefix("games_").filter(|k| *k != "including_ended").unwrap_or(k).to_string(), json!(v)))
            .collect::<serde_json::Map<_, _>>(),
        "plies": rows,
        "method": if stats.is_some() { "hashed" } else { "brute" },
        "table": stats.map(|s| json!({
            "hits": s.hits,
            "stored": s.stored,
            "bytes": s.table_bytes,
            "split_ply": othello_census::search::perft::SPLIT_PLY.min(a.depth - 1),
            "split_paths": s.split_paths,
            "split_shapes": s.split_shapes,
        })),
        "elapsed_seconds": elapsed,
        "games_per_second": leaves(rows) as f64 / elapsed.max(1e-9),
    })
}

/// The table of a perft, with the conventions and the speed.
fn print_table(a: &PerftArgs, rows: &[PerftRow], stats: Option<&HashedStats>, elapsed: f64) -> anyhow::Result<()> {
    crate::outln!("perft {}, plies 1..{} (a pass counts as a ply)\n", a.size, a.depth)?;
    let mut t = Table::new(["ply", "games", "incl. ended", "passes", "ended here"]);
    for r in rows {
        t.row([
            r.ply.to_string(),
            group_digits(r.games),
            group_digits(r.games_including_ended),
            group_digits(r.passes),
            r.ended.map_or("-".to_string(), group_digits),
        ]);
    }
    crate::out!("{}", t.render())?;
    let leaves = leaves(rows);
    crate::outln!(
        "\ngames: finished games dropped (OEIS A124004 on 8x8); incl. ended: finished games keep counting \
         (Bik's perft).\n\
         {} method: {:.3} s, {} counted, {} per second{}",
        if stats.is_some() { "hashed" } else { "brute" },
        elapsed,
        othello_census::text::plural(leaves, "game"),
        group_digits((leaves as f64 / elapsed.max(1e-9)) as u64),
        stats.map_or(String::new(), |s| format!(
            "; table: {} stored, {} found again, {} reserved (memory is used only as the table fills)",
            othello_census::text::plural(s.stored, "subtree"),
            group_digits(s.hits),
            othello_census::text::human_bytes(s.table_bytes as f64),
        ))
    )?;
    Ok(())
}

/// The progress of a perft: subtrees below the split ply done, and the
/// time left if the rest go as fast as those done (the hashed method's
/// later subtrees find more in the table, so it tends to overestimate).
fn progress_line(a: &PerftArgs, p: &PerftProgress, elapsed: f64) -> String {
    let (done, total) = p.get();
    let head = format!("perft {} depth {}", a.size, a.depth);
    if total == 0 {
        return format!("{head}: walking the first plies");
    }
    let eta = if done == total {
        "done".to_string()
    } else if done == 0 {
        "time left unknown yet".to_string()
    } else {
        format!("about {} left", human_duration(elapsed * (total - done) as f64 / done as f64))
    };
    format!("{head}: {done} of {total} subtrees, {}, {eta}", human_duration(elapsed))
}
