//! `othello-census count`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::{CountArgs, EngineChoice};
use crate::board::{BoardSize, Geometry};
use crate::engine::dfs::{DfsConfig, Live, census};
use crate::engine::memory::{cache_bytes_per_class_worst, default_memory_limit, estimate_classes};
use crate::report::census::{RunInfo, census_json, census_table, write_results};
use crate::report::files::peak_rss_bytes;
use crate::report::group_digits;
use crate::with_geometry;

const GIB: f64 = (1u64 << 30) as f64;

pub fn run(a: &CountArgs, command_line: &str) -> anyhow::Result<ExitCode> {
    let n = a.size.n();
    let max_discs = a.max_discs.unwrap_or(n * n);
    if max_discs > n * n {
        bail!("--max-discs {max_discs} is more than the {} squares of a {} board", n * n, a.size);
    }
    let threads = a.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()), |t| t as usize);
    let memory = a.memory.unwrap_or_else(default_memory_limit);
    match a.engine {
        EngineChoice::Dfs => {
            with_geometry!(a.size, G => run_dfs::<G>(a, command_line, max_discs, threads, memory))
        }
    }
}

fn run_dfs<G: Geometry>(
    a: &CountArgs,
    command_line: &str,
    max_discs: u32,
    threads: usize,
    memory: u64,
) -> anyhow::Result<ExitCode> {
    check_fits::<G>(a.size, max_discs, memory)?;
    let live = Live::default();
    let config = DfsConfig { threads, max_discs, memory_limit: memory };
    let bar = progress_bar(a.quiet);
    let started = Instant::now();
    let outcome = std::thread::scope(|s| {
        let handle = s.spawn(|| census::<G>(&config, &live));
        while !handle.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if let Some(bar) = &bar {
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                let classes = live.classes.load(Ordering::Relaxed);
                let explored = live.explored.load(Ordering::Relaxed);
                bar.set_message(format!(
                    "{} classes, {} positions, {} expanded/s, cache ~{:.2} GiB",
                    group_digits(classes),
                    group_digits(live.positions.load(Ordering::Relaxed)),
                    group_digits((explored as f64 / secs) as u64),
                    classes as f64 * cache_bytes_per_class_worst::<G>() / GIB,
                ));
                bar.tick();
            }
        }
        handle.join().expect("census thread panicked")
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let outcome = outcome?;
    let mut run = RunInfo::new(command_line.to_string(), "dfs", a.size, max_discs, threads);
    run.elapsed_seconds = outcome.elapsed.as_secs_f64();
    run.peak_rss_bytes = peak_rss_bytes();
    run.cache_bytes = Some(outcome.cache_bytes);
    let (json_path, csv_path) = write_results(&a.out, &run, &outcome.counts)
        .with_context(|| format!("cannot write results into {}", a.out.display()))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&census_json(&run, &outcome.counts))?);
    } else {
        print!("{}", census_table(&run, &outcome.counts));
    }
    if !a.quiet {
        eprintln!("results: {} and {}", json_path.display(), csv_path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a run whose cache cannot fit in `memory`.
fn check_fits<G: Geometry>(size: BoardSize, max_discs: u32, memory: u64) -> anyhow::Result<()> {
    let per_class = cache_bytes_per_class_worst::<G>();
    let need = estimate_classes(size, max_discs) * per_class;
    if need <= memory as f64 {
        return Ok(());
    }
    let fits = (4..max_discs).rev().find(|&k| estimate_classes(size, k) * per_class <= memory as f64);
    bail!(
        "a DFS census of {size} to {max_discs} discs needs an estimated {:.1} GiB of cache ({:.2e} classes at \
         {per_class:.0} bytes each), over the limit of {:.1} GiB; {}raise --memory if the machine has it, \
         or use the layered engine for runs beyond memory (not built yet)",
        need / GIB,
        need / per_class,
        memory as f64 / GIB,
        fits.map_or(String::new(), |k| format!("use --max-discs {k} or lower, "))
    )
}

fn progress_bar(quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("valid template"));
    Some(bar)
}
