//! `othello-census solve`.

use std::process::ExitCode;

use serde_json::json;

use super::args::SolveArgs;
use super::run::{Progress, human_duration, memory_limit, watched};
use othello_census::board::square_name;
use othello_census::board::{Color, Position};
use othello_census::engine::memory::default_solve_memory;
use othello_census::key::Keyed;
use othello_census::report::group_digits;
use othello_census::search::solve::{Solution, SolveProgress, solve_with_progress};
use othello_census::text::plural;
use othello_census::with_geometry;

pub fn run(a: &SolveArgs) -> anyhow::Result<ExitCode> {
    let memory = memory_limit(a.memory, default_solve_memory, "the transposition table", true)?;
    let threads = othello_census::engine::resources::threads(a.threads);
    let size = match &a.position {
        Some(p) => super::args::size_for_position(a.size, p)?,
        None => a.size.unwrap_or(othello_census::board::BoardSize::Four),
    };
    let n = size.n();
    let (s, shown, side): (Solution, String, Color) = with_geometry!(size, G => {
        let p = match &a.position {
            Some(t) => Position::<G>::parse(t).map_err(|e| anyhow::anyhow!("--position: {e}"))?,
            None => Position::<G>::start(),
        };
        // the four centre squares are occupied from the start on: a
        // position with one of them empty (an empty board) cannot arise,
        // and solving it would answer for a game that does not exist
        let start = Position::<G>::start();
        let centre = (start.black() | start.white()).0;
        if (p.black() | p.white()).0 & centre != centre {
            anyhow::bail!(
                "--position: a centre square is empty, but all four are occupied from the start on: no game reaches this position"
            );
        }
        refuse_beyond_reach(a, (n * n).saturating_sub(p.discs()))?;
        (solve_shown(a, &p, memory, threads), p.to_string(), p.side_to_move())
    });
    let pv: Vec<String> = s.pv.iter().map(|m| m.map_or("pass".to_string(), |sq| square_name(sq, n))).collect();
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&solve_json(n, side, &s, &pv))?)?;
    } else {
        print_solution(&shown, &s, &pv)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses, unless `--force`, a solve from more empty squares than
/// [`othello_census::engine::feasibility::SOLVE_MAX_EMPTIES`].
fn refuse_beyond_reach(a: &SolveArgs, empties: u32) -> anyhow::Result<()> {
    if empties > othello_census::engine::feasibility::SOLVE_MAX_EMPTIES && !a.force {
        anyhow::bail!(
            "an exact solve from {empties} empty squares is far beyond reach (the 6x6 start, 32 empties, takes a \
             minute or two, and each further empty square multiplies the work); solve a position with at most {} \
             empties (--position), or add --force to start it anyway",
            othello_census::engine::feasibility::SOLVE_MAX_EMPTIES
        );
    }
    Ok(())
}

/// Solves `p`, showing the proven bounds on the value as they narrow.
fn solve_shown<G: Keyed>(a: &SolveArgs, p: &Position<G>, memory: u64, threads: usize) -> Solution {
    let n = G::N;
    let side = p.side_to_move();
    let progress = SolveProgress::new();
    let mut display = Progress::new(a.quiet, a.progress_every);
    let started = std::time::Instant::now();
    let line = || {
        let (nodes, lower, upper) = progress.get();
        // the bounds for Black
        let (lo, hi) = if side == Color::Black { (lower, upper) } else { (-upper, -lower) };
        let value = if lo == hi {
            format!("value {lo:+}, tracing the variation")
        } else {
            format!("value between {lo:+} and {hi:+} (Black - White)")
        };
        format!(
            "solving {n}x{n}: {} positions, {value}, {}",
            group_digits(u128::from(nodes)),
            human_duration(started.elapsed().as_secs_f64())
        )
    };
    let solution: Solution = watched(
        std::time::Duration::from_millis(200),
        || solve_with_progress(p, memory, threads, &progress),
        || display.update(line),
    );
    // the last line from the solution itself: the live counter lags behind
    // the workers' batches
    display.last_line(|| {
        format!(
            "solved {n}x{n}: {}, value {:+} (Black - White), {}",
            plural(solution.nodes, "position"),
            solution.value,
            human_duration(solution.elapsed.as_secs_f64())
        )
    });
    display.finish();
    solution
}

/// The JSON document of a solve.
fn solve_json(n: u32, side: Color, s: &Solution, pv: &[String]) -> serde_json::Value {
    let secs = s.elapsed.as_secs_f64();
    json!({
        "tool": "othello-census",
        "version": env!("CARGO_PKG_VERSION"),
        "command": "solve",
        "size": n,
        "side_to_move": if side == Color::Black { "black" } else { "white" },
        "value": s.value,
        "value_convention": "final disc difference, Black - White, empty squares to the winner",
        "raw_difference": s.raw_difference,
        "principal_variation": pv,
        "nodes": s.nodes,
        "nodes_per_second": s.nodes as f64 / secs.max(1e-9),
        "elapsed_seconds": secs,
        "threads": s.threads,
        "table_bytes": s.table_bytes,
    })
}

/// The position, its value in words, the variation and the speed.
fn print_solution(shown: &str, s: &Solution, pv: &[String]) -> anyhow::Result<()> {
    let secs = s.elapsed.as_secs_f64();
    let outcome = match s.value {
        v if v > 0 => "Black wins",
        v if v < 0 => "White wins",
        _ => "a draw",
    };
    crate::out!("{shown}")?;
    crate::outln!(
        "\nperfect play: {outcome}, {:+} (Black - White, empty squares to the winner); the variation ends {:+} on \
         the board",
        s.value,
        s.raw_difference
    )?;
    crate::outln!("principal variation: {}", pv.join(" "))?;
    crate::outln!(
        "{} in {secs:.3} s ({} nodes/s) on {}, {} of table",
        plural(s.nodes, "node"),
        group_digits((s.nodes as f64 / secs.max(1e-9)) as u128),
        plural(s.threads as u64, "thread"),
        othello_census::text::human_bytes(s.table_bytes as f64)
    )?;
    Ok(())
}
