//! Helpers for the tests that run the real binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The built binary.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("othello-census")
}

/// Sends `sig` (`INT`, `TERM`, `KILL`) to a child process.
pub fn signal(child: &Child, sig: &str) {
    let status = Command::new("sh").args(["-c", &format!("kill -{sig} {}", child.id())]).status().unwrap();
    assert!(status.success());
}

/// Waits until a child process has had `secs` seconds of CPU (user and
/// system, from `/proc/PID/stat`), or `limit` of wall time: a signal sent
/// after a fixed sleep finds a starved child (a loaded machine) before it
/// has done anything.
pub fn wait_for_cpu(child: &Child, secs: f64, limit: std::time::Duration) {
    let started = std::time::Instant::now();
    let ticks = |stat: &str| -> Option<f64> {
        // the fields after the command name (in parentheses): utime and
        // stime are the 12th and 13th, in clock ticks of 1/100 s
        let rest = stat.rsplit_once(')')?.1;
        let f: Vec<&str> = rest.split_whitespace().collect();
        Some((f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?) as f64 / 100.0)
    };
    while started.elapsed() < limit {
        match std::fs::read_to_string(format!("/proc/{}/stat", child.id())).ok().as_deref().and_then(ticks) {
            Some(cpu) if cpu >= secs => return,
            None => {
                // no /proc: the old fixed wait
                std::thread::sleep(std::time::Duration::from_secs_f64(secs));
                return;
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
}

/// Runs the binary in `dir` and expects failure with exactly one line on
/// stderr, starting `error: ` and containing `needle`.
pub fn fails_with(dir: &Path, args: &[&str], needle: &str) {
    let out = Command::new(bin()).args(args).current_dir(dir).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{args:?}: {err}");
}
