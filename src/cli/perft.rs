//! `othello-census perft`.

use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::args::PerftArgs;
use othello_census::perft::{PerftRow, perft};
use othello_census::report::{Table, group_digits};
use othello_census::with_geometry;

pub fn run(a: &PerftArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let rows: Vec<PerftRow> = with_geometry!(a.size, G => perft::<G>(a.depth));
    let elapsed = started.elapsed().as_secs_f64();
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
            "elapsed_seconds": elapsed,
            "leaves_per_second": leaves as f64 / elapsed.max(1e-9),
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
             {:.3} s, {} leaves/s",
            elapsed,
            group_digits((leaves as f64 / elapsed.max(1e-9)) as u64)
        );
    }
    Ok(ExitCode::SUCCESS)
}
