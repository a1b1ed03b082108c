//! `count --engine layers` and `resume DIR`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::{ByChoice, CountArgs, InspectArgs, OutputArgs, ResumeArgs};
use super::signals::stop_flag;
use othello_census::board::BoardSize;
use othello_census::engine::layers::store::read_manifest;
use othello_census::engine::layers::{
    LayerBy, LayersError, LayersLive, LayersOutcome, LayersPlan, LayersSettings, manifest_path, read_run, resume, start,
};
use othello_census::engine::memory::default_memory_limit;
use othello_census::report::census::write_result_files;
use othello_census::report::files::{peak_rss_bytes, timestamp_now};
use othello_census::report::group_digits;
use othello_census::report::layers::{LayersRunInfo, layers_csv, layers_json, layers_table};
use othello_census::with_geometry;

/// Plies after which every game on the largest board has ended.
const MAX_PLIES: u32 = 256;

fn threads(t: Option<u32>) -> usize {
    t.map_or_else(|| std::thread::available_parallelism().map_or(1, |t| t.get()), |t| t as usize)
}

pub fn count(a: &CountArgs, command_line: &str) -> anyhow::Result<ExitCode> {
    let stop = stop_flag();
    let n = a.size.n();
    if a.checkpoint.is_some() {
        bail!("--checkpoint is for the dfs engine; the layered engine's checkpoints are its layer files in --work-dir");
    }
    let (by, limit) = match a.by {
        ByChoice::Discs => {
            if a.plies.is_some() {
                bail!("--plies goes with --by ply; with --by discs use --max-discs");
            }
            let k = a.max_discs.unwrap_or(n * n);
            if k > n * n {
                bail!("--max-discs {k} is more than the {} squares of a {} board", n * n, a.size);
            }
            (LayerBy::Discs, k)
        }
        ByChoice::Ply => {
            if a.max_discs.is_some() {
                bail!("--max-discs goes with --by discs; with --by ply use --plies");
            }
            (LayerBy::Ply, a.plies.unwrap_or(MAX_PLIES))
        }
    };
    let work_dir = a.work_dir.clone().unwrap_or_else(|| {
        PathBuf::from("checkpoints").join(format!("{n}x{n}-layers-{}{limit}-{}", by.name(), timestamp_now()))
    });
    let plan = LayersPlan {
        by,
        limit,
        partitions: a.partitions,
        work_dir: work_dir.clone(),
        command: command_line.to_string(),
        started_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    };
    let settings =
        LayersSettings { threads: threads(a.threads), memory_limit: a.memory.unwrap_or_else(default_memory_limit) };
    let live = LayersLive::default();
    let result =
        with_geometry!(a.size, G => watch(&live, a.output.quiet, || start::<G>(&plan, &settings, stop, &live)));
    finish(result, a.size, &work_dir, &settings, &a.output, false)
}

pub fn resume_dir(a: &ResumeArgs) -> anyhow::Result<ExitCode> {
    let stop = stop_flag();
    let run = read_run(&a.file)?;
    let size = BoardSize::from_n(run.size)?;
    let settings = LayersSettings { threads: threads(a.threads), memory_limit: a.memory.unwrap_or(run.memory_limit) };
    let live = LayersLive::default();
    let result =
        with_geometry!(size, G => watch(&live, a.output.quiet, || resume::<G>(&a.file, &settings, stop, &live)));
    finish(result, size, &a.file, &settings, &a.output, true)
}

/// Runs `job` while a spinner shows the layer being worked on.
fn watch<T: Send>(live: &LayersLive, quiet: bool, job: impl FnOnce() -> T + Send) -> T {
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        b.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("valid template"));
        b
    });
    let started = Instant::now();
    let out = std::thread::scope(|s| {
        let h = s.spawn(job);
        let mut phase_start = (u64::MAX, u64::MAX, Instant::now());
        while !h.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if let Some(b) = &bar {
                let layer = live.layer.load(Ordering::Relaxed);
                let phase = live.phase.load(Ordering::Relaxed);
                if (layer, phase) != (phase_start.0, phase_start.1) {
                    phase_start = (layer, phase, Instant::now());
                }
                let msg = if phase == 0 {
                    let (done, total) = (live.done.load(Ordering::Relaxed), live.total.load(Ordering::Relaxed).max(1));
                    let secs = phase_start.2.elapsed().as_secs_f64().max(1e-3);
                    let rate = done as f64 / secs;
                    let eta = (total.saturating_sub(done)) as f64 / rate.max(1.0);
                    format!(
                        "layer {layer}: expanding {} of {} classes ({:.0}%), {}/s, ETA {:.0} s",
                        group_digits(done),
                        group_digits(total),
                        100.0 * done as f64 / total as f64,
                        group_digits(rate as u64),
                        eta
                    )
                } else {
                    format!("layer {layer}: merging, {} partitions done", live.parts_done.load(Ordering::Relaxed))
                };
                b.set_message(format!("{msg}; {:.0} s in all", started.elapsed().as_secs_f64()));
                b.tick();
            }
        }
        h.join().expect("layered census panicked")
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}

fn finish(
    result: Result<LayersOutcome, LayersError>,
    size: BoardSize,
    work_dir: &Path,
    settings: &LayersSettings,
    out: &OutputArgs,
    resumed: bool,
) -> anyhow::Result<ExitCode> {
    let outcome = match result {
        Ok(o) => o,
        Err(LayersError::Interrupted(dir)) => {
            eprintln!(
                "interrupted: complete layers are kept in {0}; continue with: othello-census resume {0}",
                dir.display()
            );
            return Ok(ExitCode::from(130));
        }
        Err(e) => return Err(e.into()),
    };
    let run = LayersRunInfo {
        command: outcome.command.clone(),
        size: size.n(),
        threads: settings.threads,
        memory_limit: settings.memory_limit,
        work_dir: work_dir.display().to_string(),
        peak_rss_bytes: peak_rss_bytes(),
        resumed,
    };
    let json = layers_json(&run, &outcome);
    let n = size.n();
    let stem = format!("{n}x{n}-layers-{}{}", outcome.by.name(), outcome.limit);
    let (jp, cp) = write_result_files(&out.out, &stem, &json, &layers_csv(&outcome))
        .with_context(|| format!("cannot write results into {}", out.out.display()))?;
    if out.json {
        println!("{json}");
    } else {
        print!("{}", layers_table(&run, &outcome));
    }
    if !out.quiet {
        eprintln!("results: {} and {}", jp.display(), cp.display());
        eprintln!(
            "the last layer stays in {} ({:.1} MiB); delete the directory when you no longer need it",
            work_dir.display(),
            dir_bytes(work_dir) as f64 / (1u64 << 20) as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// `inspect DIR`: the state of a layered run.
pub fn inspect_dir(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    let m = read_manifest(&manifest_path(&a.file))?;
    let by = if m.run.by == 0 { "discs" } else { "ply" };
    let state = if m.phase == 0 {
        format!("layer {} complete ({} classes)", m.layer, group_digits(m.part_records.iter().sum::<u64>()))
    } else {
        format!("layer {} expanded; layer {} waiting to be merged", m.layer, m.layer + 1)
    };
    if a.json {
        let doc = serde_json::json!({
            "work_dir": a.file.display().to_string(),
            "size": m.run.size,
            "by": by,
            "limit": m.run.limit,
            "partitions": m.run.partitions,
            "command": m.run.command,
            "started_unix": m.run.started_unix,
            "memory_limit": m.run.memory_limit,
            "layer": m.layer,
            "phase": if m.phase == 0 { "complete" } else { "expanded" },
            "layers_counted": m.stats.len(),
            "elapsed_seconds": m.elapsed_seconds,
            "bytes": dir_bytes(&a.file),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!(
            "layered run in {dir}\n{n}x{n} by {by} up to {limit}, {parts} partitions\ncommand: {cmd}\n\
             state: {state}; {counted} earlier layers counted, {secs:.1} s of work, {mib:.1} MiB on disk",
            dir = a.file.display(),
            n = m.run.size,
            limit = m.run.limit,
            parts = m.run.partitions,
            cmd = m.run.command,
            counted = m.stats.len(),
            secs = m.elapsed_seconds,
            mib = dir_bytes(&a.file) as f64 / (1u64 << 20) as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `path` is a layered work directory.
pub fn is_work_dir(path: &Path) -> bool {
    path.is_dir()
}
