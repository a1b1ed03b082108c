//! The command-line front end: parse (`args`), then run one command.

pub mod args;
mod catalog;
mod count;
mod estimate;
mod estimate_doc;
mod inspect;
mod layers;
mod perft;
mod reachable;
mod reproduce;
mod resolve;
mod run;
mod search_setup;
mod signals;
mod solve;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use args::{Cli, Command};

/// Entry point of the binary: parses the arguments, runs the command and
/// turns any error into one line on stderr and a non-zero exit.
pub fn main() -> ExitCode {
    if stdout_was_closed() {
        // the runtime put /dev/null in its place: the table would be lost
        run::note(
            "error: standard output is closed, so the table would be lost; redirect it to a file or to /dev/null",
        );
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refuse_arguments(e),
    };
    // as a user would type it again: the program's name, each word quoted
    // where a shell needs it (not the path of the binary that ran)
    let command_line = format!("othello-census {}", othello_census::text::shell_words(std::env::args().skip(1)));
    one_line_panics();
    use othello_census::engine::layers::Transport;
    let ranks = match othello_census::engine::layers::Ranks::init() {
        Ok(r) => r,
        Err(e) => {
            run::note(format!("error: {e:#}"));
            return ExitCode::FAILURE;
        }
    };
    let layered = matches!(&cli.command, Command::Count(a) if a.engine == args::EngineChoice::Layers)
        || matches!(&cli.command, Command::Resume(a) if a.file.is_dir());
    let result = match cli.command {
        _ if ranks.ranks() > 1 && !layered => Err(anyhow::anyhow!(
            "only the layered census (count --engine layers, resume DIR) runs over several MPI ranks; run other \
             commands without mpirun"
        )),
        Command::Perft(a) => perft::run(&a),
        Command::Solve(a) => solve::run(&a),
        Command::Count(a) => match args::CountOptions::try_from(a) {
            Ok(args::CountOptions::Layers(o)) => layers::count(&o, &command_line, &ranks),
            Ok(args::CountOptions::Dfs(o)) => count::run(&o, &command_line),
            Err(e) => Err(e),
        },
        // a directory is a layered run (one without a manifest gets a clear error), a file a checkpoint
        Command::Resume(a) if !a.file.exists() => Err(anyhow::anyhow!(
            "{} does not exist; give the checkpoint file (dfs) or the work directory (layers) of a run",
            a.file.display()
        )),
        Command::Inspect(a) if !a.file.exists() => Err(anyhow::anyhow!(
            "{} does not exist; give a checkpoint file, a work directory, or a file of one",
            a.file.display()
        )),
        // a FIFO or a device would be opened and waited on forever
        Command::Resume(a) if !a.file.is_dir() && !a.file.is_file() => Err(not_a_run(&a.file)),
        Command::Inspect(a) if !a.file.is_dir() && !a.file.is_file() => Err(not_a_run(&a.file)),
        Command::Resume(a) if a.file.is_dir() => layers::resume_dir(&a, &ranks),
        Command::Resume(a) => count::resume(&a),
        Command::Inspect(a) if a.file.is_dir() => layers::inspect_dir(&a),
        Command::Inspect(a) => inspect::run(&a),
        Command::Estimate(a) => estimate::run(&a, &command_line),
        Command::Reachable(a) => reachable::run(&a),
        Command::Reproduce(a) => reproduce::run(&a),
        Command::Catalog(a) => catalog::run(&a),
        Command::Plot(a) => catalog::plot(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = std::io::stdout().flush();
            let who = if ranks.distributed() { format!("rank {}: ", ranks.rank()) } else { String::new() };
            run::note(format!("error: {who}{}", format!("{e:#}").replace('\n', " ")));
            // the other ranks may be waiting for this one: end the job
            ranks.abort(1);
            ExitCode::FAILURE
        }
    }
}

/// What arguments clap could not parse give: help and version as clap
/// prints them; any other error as one line naming what is wrong (clap
/// spreads it over several) and exit status 2.
fn refuse_arguments(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => e.exit(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let text = e.render().to_string();
            let line = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let line = if line.is_empty() { "error: bad arguments".to_string() } else { line };
            run::note(format!("{line} (see --help)"));
            ExitCode::from(2)
        }
    }
}

/// The error for a path given to `resume` or `inspect` that is neither a
/// regular file nor a directory (a FIFO, a device, a socket).
fn not_a_run(p: &std::path::Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} is neither a regular file nor a directory; give the checkpoint file (dfs) or the work directory \
         (layers) of a run",
        p.display()
    )
}

/// Whether file descriptor 1 was closed when the process started (`>&-`).
/// Rust's runtime opens /dev/null on a closed standard descriptor before
/// `main`, which then cannot tell it from `>/dev/null` (a legitimate
/// choice); so a constructor in `.init_array`, run by the loader before the
/// runtime, looks first. Linux only: elsewhere nothing is recorded.
fn stdout_was_closed() -> bool {
    #[cfg(target_os = "linux")]
    {
        closed_stdout::CLOSED.load(std::sync::atomic::Ordering::SeqCst)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(target_os = "linux")]
mod closed_stdout {
    use std::sync::atomic::{AtomicBool, Ordering};

    pub static CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn look() {
        // SAFETY: fcntl with F_GETFD only reads the descriptor's flags
        let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        CLOSED.store(closed, Ordering::SeqCst);
    }

    #[used]
    #[unsafe(link_section = ".init_array")]
    static LOOK: extern "C" fn() = look;
}

/// Reports a panic (a bug) in one line on stderr, like every other error,
/// and only the first when several threads panic at once; the panic then
/// unwinds and ends the process with exit status 101. Files are replaced
/// atomically, so what a run committed before stays. `RUST_BACKTRACE` set
/// adds the standard report, backtrace included.
fn one_line_panics() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static TOLD: AtomicBool = AtomicBool::new(false);
    let standard = std::panic::take_hook();
    let backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    std::panic::set_hook(Box::new(move |info| {
        if backtrace {
            standard(info);
        }
        if TOLD.swap(true, Ordering::SeqCst) {
            return;
        }
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let at = info.location().map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        run::note(format!(
            "error: internal error{at}: {}; this is a bug of othello-census (please report it with the command \
             line); what the run committed before is kept",
            what.replace('\n', " ")
        ));
    }));
}
