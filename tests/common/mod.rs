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

/// Runs the binary in `dir` and expects failure with exactly one line on
/// stderr, starting `error: ` and containing `needle`.
pub fn fails_with(dir: &Path, args: &[&str], needle: &str) {
    let out = Command::new(bin()).args(args).current_dir(dir).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{args:?}: {err}");
}
