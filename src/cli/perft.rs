//! `othello-census perft`.

use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::args::{PerftArgs, PerftMethod};
use super::run::memory_limit;
use othello_census::engine::memory::available_memory;
use othello_census::perft::hashed::perft_hashed;
use othello_census::perft::{PerftRow, perft};
use othello_census::report::{Table, group_digits};
use othello_census::with_geometry;

pub fn run(a: &PerftArgs) -> anyhow::Result<ExitCode> {
    let memory = match a.method {
        PerftMethod::Hashed => Some(memory_limit(a.memory, default_table_memory, "the perft table", true)?),
        PerftMethod::Brute if a.memory.is_some() => anyhow::bail!("--memory is for --method hashed"),
        PerftMethod::Brute => None,
    };
    let started = Instant::now();
    let (rows, stats): (Vec<PerftRow>, _) = with_geometry!(a.size, G => match memory {
        Some(m) => {
            let (rows, stats) = perft_hashed::<G>(a.depth, m);
            (rows, Some(stats))
        }
        None => (perft::<G>(a.depth), None),
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
            "table": stats.map(|s| json!({"hits": s.hits, "stored": s.stored, "bytes": s.table_bytes})),
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

/// A quarter of the available memory, at most 8 GiB.
fn default_table_memory() -> u64 {
    available_memory().map_or(1 << 30, |a| (a / 4).min(8 << 30))
}
