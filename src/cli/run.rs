//! What `count` and `resume` share, for both engines: notes on stderr that
//! never fail, checks made before any work, and the result report, which
//! is never lost.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};

use othello_census::atomic::check_writable_dir;
use othello_census::census::Census;
use othello_census::engine::memory::{MIN_MEMORY, total_memory};
use othello_census::report::census::{RunInfo, census_json, census_table, write_results};

const GIB: f64 = (1u64 << 30) as f64;

/// Exit code of a run stopped by a signal with its state saved.
pub const EXIT_INTERRUPTED: u8 = 130;

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
/// run's data is kept.
pub fn report(out: &Path, json: bool, quiet: bool, run: &RunInfo, census: &Census) -> anyhow::Result<ExitCode> {
    let written = write_results(out, run, census);
    let mut o = std::io::stdout().lock();
    let shown = if json {
        writeln!(o, "{}", serde_json::to_string_pretty(&census_json(run, census)).expect("serialisable"))
    } else {
        write!(o, "{}", census_table(run, census))
    };
    let _ = shown.and_then(|_| o.flush());
    match written {
        Ok((j, c)) => {
            if !quiet {
                note(format!("results: {} and {}", j.display(), c.display()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let kept = run.run_files.as_deref().map_or(String::new(), |f| format!("; the run's data stays in {f}"));
            bail!(
                "the result files could not be written into {} ({e}); the result is on stdout above{kept}",
                out.display()
            )
        }
    }
}
