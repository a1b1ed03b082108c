//! Reliability defects found by using the tool as a researcher would, each
//! checked through the real binary (issue 10): broken output, unwritable
//! results, two processes on one run, impossible resources, full disks,
//! open-file limits, flags of the other engine, completeness by ply,
//! stray directories, inspection of layer files, argument errors.

mod common;

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, fails_with, signal};
use serde_json::Value;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin()).args(args).current_dir(dir).output().unwrap()
}

fn json_of(dir: &Path, args: &[&str]) -> Value {
    let out = run(dir, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What two runs must agree on.
fn counts(doc: &Value) -> Value {
    serde_json::json!({ "layers": doc["layers"], "totals": doc["totals"], "complete": doc["complete"] })
}

/// Waits for `child` at most `limit`; kills it and fails if it is still running.
fn wait_at_most(mut child: std::process::Child, limit: Duration) -> Output {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("the run did not end within {limit:?}");
}

fn wait_for(path: &Path, limit: Duration) {
    let t0 = Instant::now();
    while !path.exists() {
        assert!(t0.elapsed() < limit, "{} did not appear", path.display());
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_broken_stderr_never_hangs_or_kills_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let want = counts(&json_of(d, &["count", "--size", "6", "--max-discs", "14", "--json", "-q", "--out", "ref"]));
    // frequent checkpoint notes, all written to a full device
    let child = Command::new(bin())
        .args(["count", "--size", "6", "--max-discs", "14", "--checkpoint-every", "50ms", "--json"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(File::options().write(true).open("/dev/full").unwrap())
        .spawn()
        .unwrap();
    let out = wait_at_most(child, Duration::from_secs(120));
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(counts(&serde_json::from_slice(&out.stdout).unwrap()), want);
    // and a signal still stops it, with its checkpoint
    let child = Command::new(bin())
        .args(["count", "--size", "6", "--max-discs", "16", "--checkpoint", "c.ckpt", "--checkpoint-every", "50ms"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(File::options().write(true).open("/dev/full").unwrap())
        .spawn()
        .unwrap();
    wait_for(&d.join("c.ckpt"), Duration::from_secs(60));
    signal(&child, "INT");
    let out = wait_at_most(child, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(130));
}

#[test]
fn an_unwritable_out_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("file"), b"").unwrap();
    for engine in ["dfs", "layers"] {
        let t0 = Instant::now();
        fails_with(d, &["count", "--engine", engine, "--size", "6", "--max-discs", "15", "--out", "file/r"], "--out");
        assert!(t0.elapsed() < Duration::from_secs(5), "refused only after the work");
    }
    // an error names the OS's reason once
    let out = run(d, &["count", "--size", "4", "--out", "file/r"]);
    let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert_eq!(err.matches("not a directory").count(), 1, "{err}");
    for cmd in ["resume", "inspect"] {
        let out = run(d, &[cmd, "missing.ckpt"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    }
    assert!(!d.join("checkpoints").exists(), "nothing created");
}

#[test]
fn two_processes_never_write_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // layered: a second process on the same work directory
    let child = Command::new(bin())
        .args(["count", "--engine", "layers", "--size", "6", "--max-discs", "15", "-j", "1", "--json", "-q"])
        .args(["--work-dir", "w", "--memory", "256MiB"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&d.join("w/run.manifest"), Duration::from_secs(30));
    let manifest = std::fs::read(d.join("w/run.manifest")).unwrap();
    fails_with(d, &["resume", "w"], "another othello-census process");
    let out = wait_at_most(child, Duration::from_secs(300));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference = json_of(d, &["count", "--size", "6", "--max-discs", "15", "--json", "-q", "--out", "ref"]);
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (a, b) in first["layers"].as_array().unwrap().iter().zip(reference["layers"].as_array().unwrap()) {
        for f in ["positions", "classes", "boards", "terminal_positions", "pass_positions"] {
            assert_eq!(a[f], b[f], "{f}");
        }
    }
    assert_ne!(manifest, std::fs::read(d.join("w/run.manifest")).unwrap(), "the first run went on");

    // dfs: a second process on the same checkpoint
    let child = Command::new(bin())
        .args(["count", "--size", "6", "--max-discs", "16", "--checkpoint", "c.ckpt", "--checkpoint-every", "100ms"])
        .args(["-q", "--out", "r"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&d.join("c.ckpt"), Duration::from_secs(60));
    fails_with(d, &["resume", "c.ckpt"], "another othello-census process");
    signal(&child, "INT");
    let out = wait_at_most(child, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(130));
}

#[test]
fn impossible_memory_limits_are_refused_and_defaults_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails_with(d, &["count", "--size", "4", "--memory", "1000TiB"], "more than this machine's");
    fails_with(d, &["count", "--engine", "layers", "--size", "4", "--memory", "1000TiB"], "more than this machine's");
    fails_with(d, &["count", "--size", "4", "--memory", "1"], "below the minimum of 1 MiB");
    let out = run(d, &["count", "--engine", "layers", "--size", "4", "--work-dir", "w"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("memory limit") && err.contains("(the default"), "{err}");
    let doc: Value = serde_json::from_slice(
        &std::fs::read(
            std::fs::read_dir(d.join("results"))
                .unwrap()
                .flatten()
                .find(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .unwrap()
                .path(),
        )
        .unwrap(),
    )
    .unwrap();
    let chosen = doc["memory_limit_bytes"].as_u64().unwrap();
    assert!((1 << 20..=4 << 30).contains(&chosen), "layered default {chosen} is at most 4 GiB");
}

#[test]
fn a_layer_that_cannot_fit_on_disk_stops_resumably() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let want = counts(&json_of(d, &["count", "--size", "6", "--max-discs", "13", "--json", "-q", "--out", "r"]));
    let args =
        ["count", "--engine", "layers", "--size", "6", "--max-discs", "13", "--work-dir", "w", "--disk", "200KiB"];
    let out = run(d, &args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs an estimated") && err.contains("othello-census resume w"), "{err}");
    // the last complete layer is kept: resuming with room finishes the census
    let doc = json_of(d, &["resume", "w", "--json", "-q", "--out", "r"]);
    let (mut a, mut b) = (counts(&doc), want);
    // the dfs engine counts no games
    for l in a["layers"].as_array_mut().unwrap().iter_mut().chain(b["layers"].as_array_mut().unwrap()) {
        for f in ["games", "games_a124004", "games_passes", "games_ended"] {
            l.as_object_mut().unwrap().remove(f);
        }
    }
    a["totals"].as_object_mut().unwrap().remove("games_ended");
    b["totals"].as_object_mut().unwrap().remove("games_ended");
    assert_eq!(a, b);
}

#[test]
fn many_partitions_under_a_low_open_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reference = json_of(d, &["count", "--engine", "layers", "--size", "6", "--max-discs", "12", "--json", "-q"]);
    let cmd = format!(
        "ulimit -n 64 && exec {} count --engine layers --size 6 --max-discs 12 --partitions 1024 --memory 1MiB \
         --work-dir w --json -q",
        bin().display()
    );
    let out = Command::new("sh").args(["-c", &cmd]).current_dir(d).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(counts(&doc), counts(&reference));
}

#[test]
fn flags_of_the_other_engine_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails_with(d, &["count", "--size", "4", "--partitions", "4"], "layered engine");
    fails_with(d, &["count", "--size", "4", "--disk", "1GiB"], "layered engine");
    fails_with(d, &["count", "--engine", "layers", "--size", "4", "--checkpoint-every", "1m"], "dfs engine");
    fails_with(d, &["count", "--engine", "layers", "--size", "4", "--checkpoint", "c.ckpt"], "dfs engine");
    json_of(d, &["count", "--engine", "layers", "--size", "4", "--work-dir", "w", "--json", "-q"]);
    fails_with(d, &["resume", "w", "--checkpoint-every", "1m"], "dfs engine");
}

#[test]
fn a_by_ply_run_in_which_every_game_ended_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for plies in ["17", "40"] {
        let doc = json_of(
            d,
            &["count", "--engine", "layers", "--size", "4", "--by", "ply", "--plies", plies, "--json", "-q"],
        );
        assert_eq!(doc["complete"], true, "--plies {plies}");
        assert_eq!(doc["totals"]["games_ended"], 60_060);
    }
    let doc =
        json_of(d, &["count", "--engine", "layers", "--size", "4", "--by", "ply", "--plies", "16", "--json", "-q"]);
    assert_eq!(doc["complete"], false, "48 games are still going after 16 plies");
}

#[test]
fn a_short_run_leaves_no_stray_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json_of(d, &["count", "--size", "4", "--json", "-q"]);
    assert!(!d.join("checkpoints").exists(), "a run that saved no checkpoint created checkpoints/");
}

#[test]
fn inspect_checks_every_layer_file_and_versions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json_of(d, &["count", "--engine", "layers", "--size", "6", "--max-discs", "9", "--work-dir", "w", "--json", "-q"]);
    let ok = run(d, &["inspect", "w"]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("checksums: ok"));
    let part = d.join("w/layer-009/part-0003.lyr");
    let good = std::fs::read(&part).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 30] ^= 0x10;
    std::fs::write(&part, &bad).unwrap();
    fails_with(d, &["inspect", "w"], "part-0003.lyr");
    assert_eq!(std::fs::read(&part).unwrap(), bad, "left as it was");
    std::fs::write(&part, &good).unwrap();

    // a checkpoint of an older format names the versions and what to do
    let child = Command::new(bin())
        .args(["count", "--size", "6", "--max-discs", "15", "--checkpoint", "c.ckpt", "--checkpoint-every", "50ms"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&d.join("c.ckpt"), Duration::from_secs(60));
    signal(&child, "INT");
    wait_at_most(child, Duration::from_secs(60));
    let mut old = std::fs::read(d.join("c.ckpt")).unwrap();
    old[8] = 1;
    std::fs::write(d.join("old.ckpt"), &old).unwrap();
    for cmd in ["resume", "inspect"] {
        fails_with(d, &[cmd, "old.ckpt"], "format version 1, this build reads version 2");
    }
    assert_eq!(std::fs::read(d.join("old.ckpt")).unwrap(), old);
}

#[test]
fn argument_errors_name_the_argument() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(dir.path(), &["perft", "--size", "4"], "--depth");
    fails_with(dir.path(), &["resume"], "FILE|DIR");
}
