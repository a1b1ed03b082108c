//! Reliability defects found by using the tool as a researcher would, each
//! checked through the real binary (issue 10): broken output, unwritable
//! results, two processes on one run, impossible resources, full disks,
//! open-file limits, flags of the other engine, completeness by ply,
//! stray directories, inspection of layer files, argument errors.

mod common;

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
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
/// The counts both engines give (the layered engine's path counts left out).
fn counts(doc: &Value) -> Value {
    let mut layers = doc["layers"].clone();
    for l in layers.as_array_mut().unwrap() {
        for f in ["positions_unique", "positions_by_games", "games", "games_ended", "shapes", "shapes_unique"] {
            l.as_object_mut().unwrap().remove(f);
        }
    }
    let mut totals = doc["totals"].clone();
    totals.as_object_mut().unwrap().remove("games_ended");
    serde_json::json!({ "layers": layers, "totals": totals, "complete": doc["complete"] })
}

/// Starts the binary in `dir` with its output going where it is told.
fn start(dir: &Path, args: &[&str], stdout: impl Into<Stdio>, stderr: impl Into<Stdio>) -> Child {
    Command::new(bin()).args(args).current_dir(dir).stdout(stdout).stderr(stderr).spawn().unwrap()
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
    let child = start(
        d,
        &["count", "--size", "6", "--max-discs", "14", "--checkpoint-every", "50ms", "--json"],
        Stdio::piped(),
        File::options().write(true).open("/dev/full").unwrap(),
    );
    let out = wait_at_most(child, Duration::from_secs(120));
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(counts(&serde_json::from_slice(&out.stdout).unwrap()), want);
    // and a signal still stops it, with its checkpoint
    let child = start(
        d,
        &["count", "--size", "6", "--max-discs", "16", "--checkpoint", "c.ckpt", "--checkpoint-every", "50ms"],
        Stdio::null(),
        File::options().write(true).open("/dev/full").unwrap(),
    );
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
        assert_eq!(err.matches("does not exist").count(), 1, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!d.join("checkpoints").exists(), "nothing created");
}

#[test]
fn two_processes_never_write_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // layered: a second process on the same work directory
    let child = start(
        d,
        &[
            "count",
            "--engine",
            "layers",
            "--size",
            "6",
            "--max-discs",
            "15",
            "-j",
            "1",
            "--json",
            "-q",
            "--work-dir",
            "w",
            "--memory",
            "256MiB",
        ],
        Stdio::piped(),
        Stdio::piped(),
    );
    wait_for(&d.join("w/run.manifest"), Duration::from_secs(30));
    let manifest = std::fs::read(d.join("w/run.manifest")).unwrap();
    fails_with(d, &["resume", "w"], "error: w: another othello-census process");
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
    let child = start(
        d,
        &[
            "count",
            "--size",
            "6",
            "--max-discs",
            "16",
            "--checkpoint",
            "c.ckpt",
            "--checkpoint-every",
            "100ms",
            "-q",
            "--out",
            "r",
        ],
        Stdio::null(),
        Stdio::null(),
    );
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
            std::fs::read_dir(d.join("results/runs"))
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
    let args = [
        "count",
        "--engine",
        "layers",
        "--size",
        "6",
        "--max-discs",
        "13",
        "--work-dir",
        "w",
        "--disk",
        "200KiB",
        "--force",
    ];
    // without --force the run is refused before it starts, nothing written
    let refused = run(d, &args[..args.len() - 1]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("fits here") && !d.join("w").exists(), "{err}");
    // forced, it stops at the first layer that does not fit
    let out = run(d, &args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs an estimated") && err.contains("othello-census resume w"), "{err}");
    // the last complete layer is kept: resuming with room (the run keeps
    // its --disk: raised, as the message says) finishes the census
    let doc = json_of(d, &["resume", "w", "--disk", "1GiB", "--json", "-q", "--out", "r"]);
    let (mut a, mut b) = (counts(&doc), want);
    // the dfs engine counts no games
    for l in a["layers"].as_array_mut().unwrap().iter_mut().chain(b["layers"].as_array_mut().unwrap()) {
        for f in ["games", "games_including_ended", "games_passes", "games_ended"] {
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
    let child = start(
        d,
        &["count", "--size", "6", "--max-discs", "15", "--checkpoint", "c.ckpt", "--checkpoint-every", "50ms"],
        Stdio::null(),
        Stdio::null(),
    );
    wait_for(&d.join("c.ckpt"), Duration::from_secs(60));
    signal(&child, "INT");
    wait_at_most(child, Duration::from_secs(60));
    let mut old = std::fs::read(d.join("c.ckpt")).unwrap();
    old[8] = 1;
    std::fs::write(d.join("old.ckpt"), &old).unwrap();
    for cmd in ["resume", "inspect"] {
        fails_with(
            d,
            &[cmd, "old.ckpt"],
            "format version 1, written by an older othello-census (this build reads version 4)",
        );
    }
    assert_eq!(std::fs::read(d.join("old.ckpt")).unwrap(), old);

    // so does a manifest of version 2 (layer records without outcomes)
    let manifest = d.join("w/run.manifest");
    let mut old = std::fs::read(&manifest).unwrap();
    old[8] = 2;
    std::fs::write(&manifest, &old).unwrap();
    for cmd in ["resume", "inspect"] {
        fails_with(
            d,
            &[cmd, "w"],
            &format!(
                "format version 2, written by an older othello-census (this build reads version {})",
                othello_census::engine::layers::store::MANIFEST_KIND.version
            ),
        );
    }
    assert_eq!(std::fs::read(&manifest).unwrap(), old);
}

#[test]
fn argument_errors_name_the_argument() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(dir.path(), &["perft", "--size", "4"], "--depth");
    fails_with(dir.path(), &["resume"], "FILE|DIR");
}

#[test]
fn both_engines_write_one_schema() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dfs = json_of(d, &["count", "--size", "4", "--json", "-q", "--out", "a"]);
    let lay =
        json_of(d, &["count", "--engine", "layers", "--size", "4", "--json", "-q", "--out", "b", "--work-dir", "w"]);
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&dfs), keys(&lay));
    assert_eq!(dfs["schema"], "othello-census-results");
    assert_eq!(dfs["schema_version"], othello_census::report::census::SCHEMA_VERSION);
    // only meaningful columns: no game columns where no game is counted,
    // and by discs none of the by-ply game columns
    let games = ["games", "games_ended", "positions_unique", "shapes", "shapes_unique", "positions_by_games"];
    let by_ply = ["games_including_ended", "games_passes"];
    for (a, b) in dfs["layers"].as_array().unwrap().iter().zip(lay["layers"].as_array().unwrap()) {
        for f in games.iter().chain(&by_ply) {
            assert!(a.get(f).is_none(), "dfs layer has {f}");
        }
        for f in &by_ply {
            assert!(b.get(f).is_none(), "layers by discs has {f}");
        }
        for f in &games {
            assert!(!b[f].is_null(), "layers by discs lacks {f}");
        }
        for (k, v) in a.as_object().unwrap() {
            assert_eq!(v, &b[k], "{k}");
        }
        assert_eq!(keys(a).len() + games.len(), keys(b).len());
    }
    assert!(dfs["totals"].get("games_ended").is_none());
    assert!(lay["totals"]["games_ended"].is_u64());
    let header = |sub: &str| {
        let f = std::fs::read_dir(d.join(sub)).unwrap().flatten().find(|e| e.path().extension().unwrap() == "csv");
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        text.lines().find(|l| !l.starts_with('#')).unwrap().to_string()
    };
    let count_columns = "discs,positions,classes,boards,terminal_positions,terminal_classes,terminal_boards,\
                         terminal_black_wins,terminal_draws,terminal_white_wins,pass_positions,pass_classes";
    assert_eq!(header("a"), format!("{count_columns},terminal_disc_differences"));
    assert_eq!(
        header("b"),
        format!(
            "{count_columns},games,games_ended,positions_unique,shapes,shapes_unique,terminal_disc_differences,\
             positions_by_games"
        )
    );
    // by ply, the column of games including ended ones and the pass column are there
    let ply = json_of(
        d,
        &[
            "count",
            "--engine",
            "layers",
            "--size",
            "4",
            "--by",
            "ply",
            "--json",
            "-q",
            "--out",
            "c",
            "--work-dir",
            "w2",
        ],
    );
    assert_eq!(
        header("c"),
        format!(
            "{},games,games_including_ended,games_passes,games_ended,positions_unique,shapes,shapes_unique,\
             terminal_disc_differences,positions_by_games",
            count_columns.replacen("discs", "ply", 1)
        )
    );
    assert!(ply["layers"][3]["games_including_ended"].is_u64());
}

#[test]
fn results_that_cannot_be_written_at_the_end_still_reach_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("out")).unwrap();
    let child = start(
        d,
        &[
            "count",
            "--engine",
            "layers",
            "--size",
            "6",
            "--max-discs",
            "14",
            "-j",
            "1",
            "--memory",
            "1MiB",
            "--json",
            "-q",
            "--work-dir",
            "w",
            "--out",
            "out",
        ],
        Stdio::piped(),
        Stdio::piped(),
    );
    wait_for(&d.join("w/run.manifest"), Duration::from_secs(30));
    // the output directory turns into a file while the run goes on
    std::fs::remove_dir(d.join("out")).unwrap();
    std::fs::write(d.join("out"), b"").unwrap();
    let out = wait_at_most(child, Duration::from_secs(120));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("the result is on stdout") && err.contains("stays in w"), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = json_of(d, &["count", "--size", "6", "--max-discs", "14", "--json", "-q", "--out", "ref"]);
    assert_eq!(doc["totals"]["classes"], want["totals"]["classes"]);
    assert_eq!(doc["totals"]["boards"], want["totals"]["boards"]);
}

#[test]
fn runs_started_together_get_their_own_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("checkpoints")).unwrap();
    let spawn = || {
        start(
            d,
            &["count", "--size", "6", "--max-discs", "16", "--checkpoint-every", "100ms", "-q"],
            Stdio::null(),
            Stdio::null(),
        )
    };
    let (a, b) = (spawn(), spawn());
    let t0 = Instant::now();
    let saved = || {
        std::fs::read_dir(d.join("checkpoints"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".ckpt"))
            .count()
    };
    while saved() < 2 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for c in [a, b] {
        signal(&c, "INT");
        assert_eq!(wait_at_most(c, Duration::from_secs(60)).status.code(), Some(130));
    }
    assert_eq!(saved(), 2, "two runs, two checkpoints");
}

/// A small tmpfs at `at`, unmounted on drop; `None` where this process may
/// not mount (not root, or a container that forbids it).
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(at: &Path, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| SmallDisk(at.to_path_buf()))
    }

    /// Fills the disk to the last byte.
    fn fill(&self) {
        let mut f = File::create(self.0.join("filler")).unwrap();
        let block = vec![0u8; 1 << 16];
        while std::io::Write::write_all(&mut f, &block).is_ok() {}
        let byte = [0u8; 1];
        while std::io::Write::write_all(&mut f, &byte).is_ok() {}
    }

    fn empty(&self) {
        std::fs::remove_file(self.0.join("filler")).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Issue 52, item 9: a layer that does not fit in the free space, with a
/// --disk far above it, is told to make room, not to raise --disk.
#[test]
fn a_disk_too_small_under_a_large_budget_is_not_told_to_raise_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(_disk) = SmallDisk::mount(&d.join("small"), "600k") else {
        eprintln!("SKIPPED: cannot mount a tmpfs here (needs root); the test did not run");
        return;
    };
    let args = [
        "count",
        "--engine",
        "layers",
        "--size",
        "6",
        "--max-discs",
        "13",
        "--work-dir",
        "small/w",
        "--disk",
        "10GiB",
        "--force",
        "-q",
    ];
    let out = run(d, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("is free; make room, then continue with") && !err.contains("raise --disk"), "{err}");
}

#[test]
fn a_disk_that_fills_mid_run_keeps_what_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(disk) = SmallDisk::mount(&d.join("small"), "256m") else {
        eprintln!("SKIPPED: cannot mount a tmpfs here (needs root); the full-disk test did not run");
        return;
    };
    // layered: the disk fills while layers are being written
    let want = json_of(d, &["count", "--size", "6", "--max-discs", "15", "--json", "-q", "--out", "r"]);
    let child = start(
        d,
        &[
            "count",
            "--engine",
            "layers",
            "--size",
            "6",
            "--max-discs",
            "15",
            "-j",
            "1",
            "--memory",
            "1MiB",
            "--json",
            "-q",
            "--work-dir",
            "small/w",
            "--out",
            "r",
        ],
        Stdio::piped(),
        Stdio::piped(),
    );
    wait_for(&d.join("small/w/layer-010"), Duration::from_secs(60));
    disk.fill();
    let out = wait_at_most(child, Duration::from_secs(120));
    assert!(!out.status.success(), "the run ended before the disk was full");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // a write that fails, or (when the run reached the next layer's check
    // first) the refusal to start a layer that cannot fit: either way one
    // line that says how to continue
    assert!(err.contains("No space left") || err.contains("make room"), "{err}");
    assert!(err.contains("othello-census resume small/w"), "{err}");
    disk.empty();
    let doc = json_of(d, &["resume", "small/w", "--json", "-q", "--out", "r"]);
    for (a, b) in doc["layers"].as_array().unwrap().iter().zip(want["layers"].as_array().unwrap()) {
        assert_eq!((&a["classes"], &a["boards"]), (&b["classes"], &b["boards"]));
    }
    assert_eq!(doc["layers"].as_array().unwrap().len(), want["layers"].as_array().unwrap().len());
    std::fs::remove_dir_all(d.join("small/w")).unwrap();

    // dfs: Ctrl-C when the new checkpoint cannot be written names the old one
    let child = start(
        d,
        &[
            "count",
            "--size",
            "6",
            "--max-discs",
            "16",
            "--checkpoint",
            "small/c.ckpt",
            "--checkpoint-every",
            "100ms",
            "--out",
            "r",
        ],
        Stdio::null(),
        Stdio::piped(),
    );
    wait_for(&d.join("small/c.ckpt"), Duration::from_secs(60));
    disk.fill();
    // a save under way when the disk filled has ended (written or not) by now
    std::thread::sleep(Duration::from_millis(500));
    let saved = std::fs::read(d.join("small/c.ckpt")).unwrap();
    signal(&child, "INT");
    let out = wait_at_most(child, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the previous one is intact") && err.contains("othello-census resume small/c.ckpt"), "{err}");
    assert!(std::fs::read(d.join("small/c.ckpt")).unwrap() == saved, "the last good checkpoint is untouched");
}

#[test]
fn a_log_file_gets_timestamped_progress_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (engine, needle) in [("layers", "layer 1"), ("dfs", "classes/s")] {
        let out = run(
            d,
            &["count", "--engine", engine, "--size", "6", "--max-discs", "14", "-j", "1", "--progress-every", "50ms"],
        );
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[2") && l.contains(needle)).collect();
        assert!(!lines.is_empty(), "{engine}: {err}");
        // [YYYYMMDDTHHMMSSZ]
        assert!(lines.iter().all(|l| l.as_bytes()[17] == b']' && l.as_bytes()[9] == b'T'), "{lines:?}");
    }
}
