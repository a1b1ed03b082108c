//! `othello-census count` and `othello-census resume` with the DFS engine.

use othello_census::text::shell_path;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};

use super::args::{DfsCount, OutputArgs, ResumeArgs};
use super::run::{EXIT_INTERRUPTED, Progress, check_out_dir, human_duration, memory_limit, note, report, watched};
use super::signals::stop_flag;
use othello_census::board::BoardSize;
use othello_census::engine::dfs::{
    CheckpointPlan, Control, DfsConfig, DfsError, Live, Resume, SaveReport, census_with,
};
use othello_census::engine::feasibility;
use othello_census::engine::memory::{cache_bytes_per_class_worst, default_dfs_memory, estimate_classes, total_memory};
use othello_census::engine::resources::free_disk;
use othello_census::formats::atomic::check_writable_dir;
use othello_census::formats::checkpoint::read_header;
use othello_census::key::Keyed;
use othello_census::report::census::{RunInfo, stats_map};
use othello_census::report::files::{fresh_path, peak_rss_bytes, timestamp_now};
use othello_census::report::group_digits;
use othello_census::text::human_bytes;
use othello_census::{software, with_geometry};

const MIB: f64 = (1u64 << 20) as f64;
/// Time between two checkpoints unless `--checkpoint-every` says otherwise.
const DEFAULT_EVERY: Duration = Duration::from_secs(30 * 60);

/// Everything a DFS run needs besides the board size.
struct Job {
    config: DfsConfig,
    plan: CheckpointPlan,
    resumed_from: Option<PathBuf>,
    /// Held while the run lives: no second process writes this checkpoint.
    _lock: Option<othello_census::formats::atomic::FileLock>,
}

pub fn run(a: &DfsCount, command_line: &str) -> anyhow::Result<ExitCode> {
    stop_flag();
    let n = a.size.n();
    let max_discs = a.max_discs;
    let threads = othello_census::engine::resources::threads(a.threads);
    let out = a.output.out_dir();
    check_out_dir(&out)?;
    let path = match &a.checkpoint {
        Some(p) => {
            refuse_existing(p, a.size, max_discs)?;
            p.clone()
        }
        None => fresh_path(
            Path::new("checkpoints"),
            &format!("{n}x{n}-dfs-{max_discs}-{}-{}", timestamp_now(), std::process::id()),
            "ckpt",
        ),
    };
    check_writable_dir(&path).with_context(|| {
        format!("cannot write checkpoints next to {} (choose another --checkpoint)", path.display())
    })?;
    let memory = memory_limit(a.memory, default_dfs_memory, "the DFS cache", a.output.quiet)?;
    let lock = othello_census::formats::checkpoint::lock(&path)?;
    if lock.is_some() {
        refuse_existing(&path, a.size, max_discs)?; // created meanwhile by another process
    }
    let job = Job {
        config: DfsConfig { threads, max_discs, memory_limit: memory },
        plan: CheckpointPlan {
            path,
            every: a.output.checkpoint_every.unwrap_or(DEFAULT_EVERY),
            command: command_line.to_string(),
            started_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            // absolute: a resume may run in another directory
            out: std::path::absolute(&out).unwrap_or_else(|_| out.clone()).to_string_lossy().into_owned(),
        },
        resumed_from: None,
        _lock: lock,
    };
    with_geometry!(a.size, G => {
        check_fits::<G>(a.size, max_discs, memory, 0)?;
        drive::<G>(job, &a.output, &out, None, (0, 0))
    })
}

pub fn resume(a: &ResumeArgs) -> anyhow::Result<ExitCode> {
    stop_flag(); // a signal while loading stops the run right after it starts
    if a.layered.disk.is_some() || a.layered.no_store_last || a.layered.compact_buckets {
        bail!(
            "--disk, --no-store-last and --compact-buckets are for the layered engine; {} is a DFS checkpoint",
            a.file.display()
        );
    }
    if a.max_discs.is_some() || a.plies.is_some() {
        bail!(
            "a DFS run cannot be extended: its checkpoint does not keep the last layer apart from the others; \
             count the larger census again, or use the layered engine (--engine layers), whose runs extend"
        );
    }
    let header = read_header(&a.file)?;
    if header.engine != "dfs" || header.rules != "standard" {
        bail!(
            "{}: a {} checkpoint with {} rules, which this build cannot resume",
            a.file.display(),
            header.engine,
            header.rules
        );
    }
    let size = BoardSize::from_n(header.size)?;
    let memory = memory_limit(Some(a.memory.unwrap_or(header.memory_limit)), default_dfs_memory, "", true)?;
    check_writable_dir(&a.file).with_context(|| format!("cannot write the checkpoint {}", a.file.display()))?;
    // the run's own result directory unless this resume gives one (a
    // checkpoint of version 3 holds none: the default)
    let out = a.output.out.clone().unwrap_or_else(|| match header.out.as_str() {
        "" => PathBuf::from(super::args::DEFAULT_OUT),
        dir => PathBuf::from(dir),
    });
    check_out_dir(&out)?;
    let lock = othello_census::formats::checkpoint::lock(&a.file)?;
    if !a.output.quiet && header.software != software() {
        note(format!("{} was written by {}; this is {}", a.file.display(), header.software, software()));
    }
    let job = Job {
        config: DfsConfig {
            threads: othello_census::engine::resources::threads(a.threads),
            max_discs: header.max_discs,
            memory_limit: memory,
        },
        plan: CheckpointPlan {
            path: a.file.clone(),
            every: a.output.checkpoint_every.unwrap_or(DEFAULT_EVERY),
            command: header.command.clone(),
            started_unix: header.started_unix,
            out: std::path::absolute(&out).unwrap_or_else(|_| out.clone()).to_string_lossy().into_owned(),
        },
        resumed_from: Some(a.file.clone()),
        _lock: lock,
    };
    with_geometry!(size, G => {
        check_fits::<G>(size, header.max_discs, memory, header.cache_len)?;
        if !a.output.quiet && std::io::stderr().is_terminal() {
            note(format!("loading {} ({} classes)...", a.file.display(), group_digits(header.cache_len)));
        }
        let loaded = Resume::<G>::load(&a.file)?;
        drive::<G>(job, &a.output, &out, Some(loaded), (header.explored, header.cache_len))
    })
}

/// `count` never overwrites an existing file at the checkpoint path.
fn refuse_existing(path: &Path, size: BoardSize, max_discs: u32) -> anyhow::Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let shown = path.display();
    let quoted = shell_path(path);
    match read_header(path) {
        Ok(h) if h.size != size.n() || h.max_discs != max_discs => bail!(
            "{shown} holds a {0}x{0} checkpoint to {1} discs, which conflicts with --size {2} --max-discs {max_discs}; \
             continue it with `othello-census resume {quoted}` or choose another --checkpoint",
            h.size,
            h.max_discs,
            size.n()
        ),
        Ok(_) => bail!(
            "{shown} already holds a checkpoint of this census; continue it with `othello-census resume {quoted}` \
             (count never overwrites a checkpoint)"
        ),
        Err(e) => bail!(
            "{shown} exists and is not a usable checkpoint ({e}); count never overwrites a file: choose another --checkpoint"
        ),
    }
}

/// Runs `job`, its result files into `out_dir`; `before`: the classes a
/// resumed run had explored and found (its rates count this session's).
fn drive<G: Keyed>(
    job: Job,
    out: &OutputArgs,
    out_dir: &Path,
    resume: Option<Resume<G>>,
    before: (u64, u64),
) -> anyhow::Result<ExitCode> {
    let stop = stop_flag();
    let live = Live::default();
    let progress = std::sync::Mutex::new(Progress::new(out.quiet, out.progress_every));
    let on_save = |r: &SaveReport| {
        if let Some(line) = save_line(r, out.quiet) {
            progress.lock().expect("progress lock").note(&line);
        }
    };
    let control = Control { stop, checkpoint: Some(job.plan.clone()), on_save: &on_save };
    let expected = BoardSize::from_n(G::N).map_or(f64::INFINITY, |s| estimate_classes(s, job.config.max_discs));
    let started = Instant::now();
    let result = watched(
        Duration::from_millis(100),
        || census_with::<G>(&job.config, &live, &control, resume),
        || progress.lock().expect("progress lock").update(|| progress_line::<G>(&live, started, before, expected)),
    );
    progress.lock().expect("progress lock").finish();
    let outcome = match result {
        Ok(o) => o,
        Err(DfsError::Interrupted(path)) => {
            note(format!(
                "interrupted: checkpoint saved to {}; continue with: othello-census resume {}",
                path.display(),
                shell_path(&path)
            ));
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        Err(DfsError::InterruptedUnsaved(why)) if read_header(&job.plan.path).is_ok() => {
            note(format!(
                "interrupted: the checkpoint could not be updated ({why}), but the previous one is intact; \
                 continue with: othello-census resume {}",
                shell_path(&job.plan.path)
            ));
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        Err(DfsError::MemoryLimit { classes, limit }) => bail!(
            "the DFS cache reached the memory limit ({}) after {classes} classes; lower --max-discs, raise \
             --memory, or use the out-of-core layered engine (--engine layers)",
            human_bytes(limit as f64)
        ),
        Err(e) => return Err(e.into()),
    };
    let run = RunInfo {
        command: job.plan.command.clone(),
        engine: "dfs",
        threads: job.config.threads,
        memory_limit: job.config.memory_limit,
        elapsed_seconds: outcome.elapsed.as_secs_f64(),
        peak_rss_bytes: peak_rss_bytes(),
        // the checkpoint is removed once the result is out (below): the
        // result names it only where it stays, a failed report
        run_files: None,
        resumed: job.resumed_from.is_some(),
        engine_stats: stats_map(&outcome.stats()),
    };
    let kept = job.plan.path.exists();
    // where the result goes when --out refuses it at the end: beside the
    // checkpoint (its directory was checked writable before the run)
    let beside = match job.plan.path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let code = report(out_dir, out.json, out.quiet, &run, &outcome.census, Some(&beside))
        .map_err(|e| if kept { e.context(format!("the checkpoint {} is kept", job.plan.path.display())) } else { e })?;
    // the result is written: the checkpoint of the finished run would only
    // make a later `resume` of it count its last stretch again and write
    // a second result
    if kept && std::fs::remove_file(&job.plan.path).is_ok() && !out.quiet {
        note(format!("the checkpoint {} of the finished run was removed", job.plan.path.display()));
    }
    Ok(code)
}

/// The line a checkpoint save prints: none for a save when `quiet`, a
/// warning for a failed one.
fn save_line(r: &SaveReport, quiet: bool) -> Option<String> {
    match &r.result {
        Ok(bytes) => (!quiet).then(|| {
            format!(
                "checkpoint: {} classes saved to {} ({:.1} MiB; walkers paused {:.3} s)",
                group_digits(r.classes),
                r.path.display(),
                *bytes as f64 / MIB,
                r.pause.as_secs_f64()
            )
        }),
        // (a first save that fails has no previous one to speak of)
        Err(e) if r.path.exists() => Some(format!("warning: checkpoint not saved ({e}); the previous one is intact")),
        Err(e) => Some(format!("warning: checkpoint not saved ({e}); there is none yet: the run goes on")),
    }
}

/// The progress line of a DFS run: classes, positions, the rate of this
/// session (a resumed run starts from the saved counts, `before`; taken
/// from the first line instead, that line always said 0 classes/s), the
/// cache's size and, once measured, the share done and an ETA.
fn progress_line<G: Keyed>(live: &Live, started: Instant, before: (u64, u64), expected: f64) -> String {
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let classes = live.classes.load(Ordering::Relaxed);
    let explored = live.explored.load(Ordering::Relaxed);
    let first = before.0.min(explored);
    let rate = (explored - first) as f64 / secs;
    // classes are found faster than they are explored early on and slower
    // late: the ETA takes the rate of finding them, this session's
    let found_rate = classes.saturating_sub(before.1) as f64 / secs;
    format!(
        "{} classes, {} positions, {} classes/s, cache ~{}, {:.0} s{}",
        group_digits(classes),
        group_digits(live.positions.load(Ordering::Relaxed)),
        group_digits(rate as u64),
        human_bytes(classes as f64 * cache_bytes_per_class_worst::<G>()),
        secs,
        // (the share counts classes found: every class of the census is
        // found, while those of the last layer are never explored)
        dfs_eta(classes, found_rate, secs, expected),
    )
}

/// The DFS engine walks depth first, every layer at once, so it has no
/// layer to show; its share of the census is the classes it found against
/// the classes expected to `--max-discs` ([`estimate_classes`]: the
/// measured counts where known, extrapolated beyond), and the ETA that
/// share gives at the rate since the run's start. None until the rate has
/// been measured for a few seconds, or past the expected count (an
/// extrapolation that fell short says nothing false).
fn dfs_eta(found: u64, rate: f64, secs: f64, expected: f64) -> String {
    const MEASURED_AFTER: f64 = 5.0;
    let left = expected - found as f64;
    if secs < MEASURED_AFTER || rate < 1.0 || left <= 0.0 || !expected.is_finite() {
        return String::new();
    }
    format!(
        ", ~{:.0}% of about {:.2e} classes, ETA ~{}",
        100.0 * found as f64 / expected,
        expected,
        human_duration(left / rate)
    )
}

/// Refuses a run whose cache cannot fit in `memory`, with advice that
/// leads to a command that works: on a resume (`classes_now` > 0, the
/// checkpoint's own limit) a larger --memory; on a new run fewer discs,
/// more memory, or the layered engine where its disk is within reach.
fn check_fits<G: Keyed>(size: BoardSize, max_discs: u32, memory: u64, classes_now: u64) -> anyhow::Result<()> {
    let per_class = cache_bytes_per_class_worst::<G>();
    let need = estimate_classes(size, max_discs).max(classes_now as f64) * per_class;
    if need <= memory as f64 {
        return Ok(());
    }
    let head = format!(
        "a DFS census of {size} to {max_discs} discs needs an estimated {} of cache ({:.2e} classes at {per_class:.0} \
         bytes each), over the limit of {}",
        human_bytes(need),
        need / per_class,
        human_bytes(memory as f64)
    );
    if classes_now > 0 {
        let total = total_memory().map_or(String::new(), |t| format!(" (this machine has {})", human_bytes(t as f64)));
        bail!(
            "{head}; resume it with --memory of at least {}{total}, or count it again with the layered engine \
             (--engine layers)",
            human_bytes(need)
        );
    }
    let fits = (4..max_discs).rev().find(|&k| estimate_classes(size, k) * per_class <= memory as f64);
    let fewer = fits.map_or(String::new(), |k| format!("use --max-discs {k} or lower, "));
    let free = free_disk(Path::new(".")).map_or(f64::INFINITY, |b| b as f64);
    if feasibility::layered_peak_disk(size, max_discs) <= 4.0 * free {
        bail!(
            "{head}; {fewer}raise --memory if the machine has it, or use the out-of-core layered engine (--engine layers)"
        )
    }
    bail!(
        "{head}; the layered engine would need far more disk than this machine has, so {}",
        fits.map_or("this census is beyond reach here".to_string(), |k| format!("use --max-discs {k} or lower"))
    )
}

#[cfg(test)]
mod tests {
    /// Issue 52, item 10: the DFS line gives its share and an ETA once its
    /// rate has been measured, never before, nor past the expected count.
    #[test]
    fn the_dfs_eta_needs_a_measured_rate() {
        assert_eq!(super::dfs_eta(100, 50.0, 2.0, 1000.0), "");
        let eta = super::dfs_eta(250, 50.0, 6.0, 1000.0);
        assert!(eta.contains("~25% of about 1.00e3 classes") && eta.contains("ETA ~"), "{eta}");
        assert_eq!(super::dfs_eta(1200, 50.0, 6.0, 1000.0), "");
    }
}
