//! `othello-census perft`.

use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::args::{PerftArgs, PerftMethod};
use super::run::{Progress, human_duration, memory_limit};
use othello_census::engine::memory::available_memory;
use othello_census::perft::hashed::perft_hashed_with_progress;
use othello_census::perft::{PerftProgress, PerftRow, perft_with_progress};
use othello_census::report::{Table, group_digits};
use othello_census::with_geometry;

pub fn run(a: &PerftArgs) -> anyhow::Result<ExitCode> {
    let memory = match a.method {
        PerftMethod::Hashed => Some(memory_limit(a.memory, default_table_memory, "the perft table", true)?),
        PerftMethod::Brute if a.memory.is_some() => anyhow::bail!("--memory is for --method hashed"),
        PerftMethod::Brute => None,
    };
    let started = Instant::now();
    let progress = PerftProgress::new();
    let mut display = Progress::new(a.quiet, a.progress_every);
    let (rows, stats): (Vec<PerftRow>, _) = std::thread::scope(|scope| {
        let job = scope.spawn(|| {
            with_geometry!(a.size, G => match memory {
                Some(m) => {
                    let (rows, stats) = perft_hashed_with_progress::<G>(a.depth, m, &progress);
                    (rows, Some(stats))
                }
                None => (perft_with_progress::<G>(a.depth, &progress), None),
            })
        });
        while !job.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(200));
            display.update(|| progress_line(a, &progress, started.elapsed().as_secs_f64()));
        }
        display.last_line(|| progress_line(a, &progress, started.elapsed().as_secs_f64()));
        display.finish();
        job.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
    });
    let elapsed = started.elapsed().as_secs_f64();
    let method = if stats.is_some() { "hashed" } else { "brute" };
    let leaves = rows.last().map_or(0, |r| r.games);
    if a.json {
        let doc = json!({
            "tool": "othello-census",
            "version": env!("CARGO_PKG_VERSION"),
            "command": "perft",
            "size": a.size.n(),
            "depth": a.depth,
            "conventions": {
                "games": "paths of exactly n plies, a pass is a ply, finished games dropped",
                "games_a124004": "OEIS A124004: a game that ended before ply n still counts at ply n",
            },
            "plies": rows,
            "method": method,
            "table": stats.map(|s| json!({
                "hits": s.hits,
                "stored": s.stored,
                "bytes": s.table_bytes,
                "split_ply": othello_census::perft::SPLIT_PLY.min(a.depth - 1),
                "split_paths": s.split_paths,
                "split_shapes": s.split_shapes,
            })),
            "elapsed_seconds": elapsed,
            "games_per_second": leaves as f64 / elapsed.max(1e-9),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("perft {}, plies 1..{} (a pass counts as a ply)\n", a.size, a.depth);
        let mut t = Table::new(["ply", "games", "games (A124004)", "passes", "ended here"]);
        for r in &rows {
            t.row([
                r.ply.to_string(),
                group_digits(r.games),
                group_digits(r.games_a124004),
                group_digits(r.passes),
                r.ended.map_or("-".to_string(), group_digits),
            ]);
        }
        print!("{}", t.render());
        println!(
            "\ngames: finished games dropped; games (A124004): finished games keep counting.\n\
             {method} method: {:.3} s, {} games counted per second{}",
            elapsed,
            group_digits((leaves as f64 / elapsed.max(1e-9)) as u64),
            stats.map_or(String::new(), |s| format!(
                "; table: {} subtrees stored ({:.1} MiB), {} found again",
                group_digits(s.stored),
                s.table_bytes as f64 / (1u64 << 20) as f64,
                group_digits(s.hits)
            ))
        );
    }
    Ok(ExitCode::SUCCESS)
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

/// A quarter of the available memory, at most 8 GiB.
fn default_table_memory() -> u64 {
    available_memory().map_or(1 << 30, |a| (a / 4).min(8 << 30))
}
