//! Issue 52, item 12: `cargo test --release` writes nothing into the
//! source tree. Cargo runs the test targets in the order of their names,
//! so this one runs after the others: every file it finds in the tree
//! that git does not track (ignored ones included), changed since this
//! test was built, was written by a test (tests/estimate.rs left
//! results/runs/4x4-layers-discs10-*.json and
//! checkpoints/4x4-layers-discs9-*/ there). Tests that run the binary give
//! it a temporary directory (`current_dir`, `--out`, `--work-dir`,
//! `--checkpoint`). Skipped where git or the tree's history is missing (a
//! packaged crate).

use std::path::Path;
use std::process::Command;

#[test]
fn the_tests_left_nothing_in_the_source_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(out) = Command::new("git")
        .args(["status", "--porcelain", "--ignored", "--untracked-files=all", "-z"])
        .current_dir(root)
        .output()
    else {
        return;
    };
    if !out.status.success() {
        return;
    }
    let built = std::fs::metadata(std::env::current_exe().unwrap()).unwrap().modified().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR").map(std::path::PathBuf::from);
    let written: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter_map(|entry| entry.strip_prefix("?? ").or_else(|| entry.strip_prefix("!! ")))
        .filter(|p| !p.starts_with("target/") && !target.as_ref().is_some_and(|t| root.join(p).starts_with(t)))
        .filter(|p| std::fs::symlink_metadata(root.join(p)).and_then(|m| m.modified()).is_ok_and(|m| m > built))
        .map(str::to_string)
        .collect();
    assert!(written.is_empty(), "tests wrote into the source tree: {written:?}");
}
