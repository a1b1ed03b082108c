//! What `count` and `resume` share, for both engines: notes on stderr that
//! never fail, checks made before any work, and the result report, which
//! is never lost.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};

use othello_census::census::Census;
use othello_census::engine::memory::{MIN_MEMORY, total_memory};
use othello_census::formats::atomic::check_writable_dir;
use othello_census::report::census::{RunInfo, census_json, census_table, reported_before, write_results};

const GIB: f64 = (1u64 << 30) as f64;

/// Exit code of a run stopped by a signal with its state saved.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Writes to standard output, as `print!`, but returns an error (one line
/// in the end, a non-zero exit) where `print!` would panic: a full disk, a
/// closed pipe, `/dev/full`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::run::write_stdout(format_args!($($arg)*))
    };
}

/// [`out!`] with a newline.
#[macro_export]
macro_rules! outln {
    () => { $crate::out!("\n") };
    ($($arg:tt)*) => {
        $crate::cli::run::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes `args` on stdout and flushes it; an error says that the output
/// did not reach its destination.
pub fn write_stdout(args: std::fmt::Arguments) -> anyhow::Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_fmt(args).and_then(|_| o.flush()).context("the output could not be written to standard output")
}

/// Writes a line on stderr. A broken or full stderr is ignored: output
/// trouble never stops or hangs a run.
pub fn note(line: impl AsRef<str>) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{}", line.as_ref());
    let _ = e.flush();
}

/// The memory limit of a run: the one asked for, checked against the
/// machine, or the engine's default; says which on stderr.
pub fn memory_limit(asked: Option<u64>, default: fn() -> u64, what: &str, quiet: bool) -> anyhow::Result<u64> {
    let total = total_memory();
    let Some(m) = asked else {
        let m = default();
        if !quiet {
            note(format!("memory limit {:.2} GiB for {what} (the default; set it with --memory)", m as f64 / GIB));
        }
        return Ok(m);
    };
    if m < MIN_MEMORY {
        bail!("--memory {m} bytes is below the minimum of 1 MiB; give a limit such as 512MiB or 4GiB");
    }
    if let Some(t) = total
        && m > t
    {
        bail!(
            "--memory {:.2} GiB is more than this machine's {:.2} GiB of RAM; give at most {:.0} GiB",
            m as f64 / GIB,
            t as f64 / GIB,
            (t as f64 / GIB).floor().max(1.0)
        );
    }
    Ok(m)
}

/// Refuses an output directory that cannot take the result files, before
/// any work is done (nothing is created).
pub fn check_out_dir(out: &Path) -> anyhow::Result<()> {
    check_writable_dir(&out.join("result.json"))
        .with_context(|| format!("cannot write results into {} (choose another --out)", out.display()))
}

/// Prints the report and writes the result files. If the files cannot be
/// written, the result still reaches stdout, and the error says where the
/// run's data is kept. `fallback`: where the files go when `out` refuses
/// them (a DFS run's checkpoint directory: a short run has no checkpoint,
/// so without them nothing would be left to report from but stdout).
pub fn report(
    out: &Path,
    json: bool,
    quiet: bool,
    run: &RunInfo,
    census: &Census,
    fallback: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    report_once(out, json, quiet, run, census, fallback, false)
}

/// [`report`]; with `finished_before` (a resume of a run that had nothing
/// left to do), the result files of the session that finished it, when
/// `out` holds them, are named instead of written again (a second result
/// of the same run: a kill between writing them and exiting, then the
/// resume the stop suggests).
pub fn report_once(
    out: &Path,
    json: bool,
    quiet: bool,
    run: &RunInfo,
    census: &Census,
    fallback: Option<&Path>,
    finished_before: bool,
) -> anyhow::Result<ExitCode> {
    let before = if finished_before { reported_before(out, run, census) } else { None };
    let reported = before.is_some();
    let written = match before {
        Some(files) => Ok(files),
        None => write_results(out, run, census),
    };
    let rescued = match (&written, fallback) {
        (Err(_), Some(dir)) => write_results(dir, run, census).ok(),
        _ => None,
    };
    let mut o = std::io::stdout().lock();
    let shown = if json {
        writeln!(o, "{}", serde_json::to_string_pretty(&census_json(run, census)).expect("serialisable"))
    } else {
        write!(o, "{}", census_table(run, census))
    };
    let shown = shown.and_then(|_| o.flush());
    drop(o);
    let kept = run.run_files.as_deref().map_or(String::new(), |f| format!("; the run's data stays in {f}"));
    match (written, shown) {
        (Ok((j, c)), Ok(())) => {
            if !quiet && reported {
                note(format!(
                    "this run had finished and its results were written before: {} and {} (nothing written)",
                    j.display(),
                    c.display()
                ));
            } else if !quiet {
                note(format!("results: {} and {}", j.display(), c.display()));
            }
            Ok(ExitCode::SUCCESS)
        }
        (Ok((j, c)), Err(e)) => bail!(
            "the result could not be written to standard output ({e}); it is in {} and {}",
            j.display(),
            c.display()
        ),
        (Err(e), _) if rescued.is_some() => {
            let (j, c) = rescued.expect("some");
            bail!(
                "the result files could not be written into {} ({e}); they were written to {} and {} instead{kept}",
                out.display(),
                j.display(),
                c.display()
            )
        }
        (Err(e), Ok(())) => bail!(
            "the result files could not be written into {} ({e}); the result is on stdout above{kept}",
            out.display()
        ),
        (Err(e), Err(o)) => bail!(
            "neither the result files could be written into {} ({e}) nor standard output ({o}){kept}",
            out.display()
        ),
    }
}

/// Runs `work` on a thread of its own and calls `tick` every `every` until
/// it ends; returns as soon as it ends (the waiting thread is woken then,
/// not at the next tick), so a run's wall time is its own. A panic in
/// `work` goes on in the caller.
pub fn watched<T: Send>(every: std::time::Duration, work: impl FnOnce() -> T + Send, mut tick: impl FnMut()) -> T {
    use std::sync::mpsc::{RecvTimeoutError, channel};
    std::thread::scope(|scope| {
        let (done, ended) = channel::<()>();
        let job = scope.spawn(move || {
            let out = work();
            let _ = done.send(());
            out
        });
        while let Err(RecvTimeoutError::Timeout) = ended.recv_timeout(every) {
            tick();
        }
        job.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// Progress on stderr: a spinner line on a terminal; elsewhere (a batch
/// job's log, `nohup`) a plain timestamped line every `every` (default
/// one minute), with the same content. Nothing with `--quiet`.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    every: Option<std::time::Duration>,
    next_line: std::time::Instant,
}

/// Time between two progress lines when stderr is not a terminal.
const DEFAULT_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl Progress {
    /// The display for a run; `every` forces lines even on a terminal.
    pub fn new(quiet: bool, every: Option<std::time::Duration>) -> Progress {
        use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
        use std::io::IsTerminal;
        let now = std::time::Instant::now();
        if quiet {
            return Progress { bar: None, every: None, next_line: now };
        }
        if every.is_none() && std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("valid template"));
            return Progress { bar: Some(bar), every: None, next_line: now };
        }
        let every = every.unwrap_or(DEFAULT_PROGRESS_EVERY);
        Progress { bar: None, every: Some(every), next_line: now + every }
    }

    /// Shows `msg()` now on the spinner, or as a line when one is due.
    pub fn update(&mut self, msg: impl FnOnce() -> String) {
        if let Some(bar) = &self.bar {
            bar.set_message(msg());
            bar.tick();
        } else if let Some(every) = self.every
            && std::time::Instant::now() >= self.next_line
        {
            self.next_line = std::time::Instant::now() + every;
            note(format!("[{}] {}", othello_census::report::files::timestamp_now(), msg()));
        }
    }

    /// In line mode, a last progress line now (the state at the end), so
    /// that a log shows how a run finished even when it took less than
    /// one interval.
    pub fn last_line(&mut self, msg: impl FnOnce() -> String) {
        if self.every.is_some() {
            self.next_line = std::time::Instant::now();
            self.update(msg);
        }
    }

    /// A line of its own (above the spinner, if any).
    pub fn note(&self, line: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| note(line)),
            None => note(line),
        }
    }

    /// Clears the spinner.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `seconds` in words: `45 s`, `12 min`, `3.5 h`, `4.0 days`.
pub fn human_duration(seconds: f64) -> String {
    match seconds {
        s if !s.is_finite() => "forever".to_string(),
        s if s > 3.2e11 => format!("{:.1e} years", s / 3.156e7),
        s if s > 6.3e7 => format!("{:.0} years", s / 3.156e7),
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}
