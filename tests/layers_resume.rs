//! The layered engine through the binary: a killed or interrupted run
//! resumes to identical counts; damaged or foreign work directories get
//! one clear line and are left as they were.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, fails_with, signal};
use serde_json::Value;

fn run_json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(bin()).args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn counts(doc: &Value) -> Value {
    serde_json::json!({ "layers": doc["layers"], "totals": doc["totals"], "complete": doc["complete"] })
}

const COUNT: [&str; 15] = [
    "count",
    "--engine",
    "layers",
    "--size",
    "6",
    "--max-discs",
    "14",
    "--threads",
    "1",
    "--memory",
    "4MiB",
    "--json",
    "-q",
    "--work-dir",
    "w",
];

#[test]
fn killed_and_interrupted_runs_resume_to_identical_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut reference_args = COUNT.to_vec();
    reference_args[14] = "ref";
    let want = counts(&run_json(d, &reference_args));

    // SIGKILL once the run is two layers in
    let child =
        Command::new(bin()).args(COUNT).current_dir(d).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let t0 = Instant::now();
    while !d.join("w/layer-006").exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_millis(30));
    signal(&child, "KILL");
    let mut child = child;
    child.wait().unwrap();

    // SIGINT during the resumed run, then resume to the end
    let child = Command::new(bin())
        .args(["resume", "w", "--threads", "1", "--json", "-q"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(150));
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let doc = match out.status.code() {
        Some(0) => serde_json::from_slice(&out.stdout).unwrap(),
        Some(130) => {
            assert!(String::from_utf8_lossy(&out.stderr).contains("othello-census resume w"));
            run_json(d, &["resume", "w", "--json", "-q"])
        }
        other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
    };
    assert_eq!(counts(&doc), want);
}

#[test]
fn bad_work_directories() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // a finished small run leaves its manifest and last layer
    let finished = run_json(
        d,
        &["count", "--engine", "layers", "--size", "6", "--max-discs", "9", "--json", "-q", "--work-dir", "w"],
    );
    let manifest = d.join("w/run.manifest");
    let good = std::fs::read(&manifest).unwrap();

    // count never reuses a work directory
    fails_with(d, &["count", "--engine", "layers", "--size", "6", "-q", "--work-dir", "w"], "resume");

    // a damaged manifest
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    std::fs::write(&manifest, &bad).unwrap();
    fails_with(d, &["resume", "w"], "checksum mismatch");
    assert_eq!(std::fs::read(&manifest).unwrap(), bad, "left as it was");
    std::fs::write(&manifest, &good).unwrap();

    // a damaged layer part
    let part = d.join("w/layer-009/part-0000.lyr");
    let bytes = std::fs::read(&part).unwrap();
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 20] ^= 0x55;
    std::fs::write(&part, &bad).unwrap();
    // (the last layer was counted while it was written: resuming the
    // finished run reads no part, but inspecting it and extending it do)
    fails_with(d, &["inspect", "w"], "part-0000.lyr");
    fails_with(d, &["resume", "w", "--max-discs", "10"], "part-0000.lyr");
    std::fs::write(&part, &bytes).unwrap();
    std::fs::write(&manifest, &good).unwrap();

    // a directory that is not a work directory
    std::fs::create_dir(d.join("empty")).unwrap();
    fails_with(d, &["resume", "empty"], "not a layered-census work directory");

    // flags of the other engine
    fails_with(d, &["count", "--size", "6", "--by", "ply"], "layered engine");
    fails_with(d, &["count", "--engine", "layers", "--by", "ply", "--max-discs", "9"], "--plies");
    fails_with(d, &["count", "--engine", "layers", "--plies", "9"], "--by ply");

    // and the good run, its files restored, still resumes (it was finished:
    // it reports the same counts again)
    assert_eq!(counts(&run_json(d, &["resume", "w", "--json", "-q"])), counts(&finished));
}

#[test]
fn a_finished_run_extends_to_the_counts_of_a_run_made_in_one_go() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let layers = ["count", "--engine", "layers", "--json", "-q"];
    // by ply, 8x8: 7 plies, then 9
    let one_go =
        run_json(d, &[&layers[..], &["--size", "8", "--by", "ply", "--plies", "9", "--work-dir", "a"]].concat());
    let short =
        run_json(d, &[&layers[..], &["--size", "8", "--by", "ply", "--plies", "7", "--work-dir", "b"]].concat());
    assert_eq!(short["layers"].as_array().unwrap().len(), 8);
    let extended = run_json(d, &["resume", "b", "--plies", "9", "--json", "-q"]);
    assert_eq!(counts(&extended), counts(&one_go));
    assert_eq!(extended["limit"], 9);
    // by discs, 6x6: 10 discs, then 12, then 13
    let one_go = run_json(d, &[&layers[..], &["--size", "6", "--max-discs", "13", "--work-dir", "c"]].concat());
    run_json(d, &[&layers[..], &["--size", "6", "--max-discs", "10", "--work-dir", "e"]].concat());
    run_json(d, &["resume", "e", "--max-discs", "12", "--json", "-q"]);
    assert_eq!(counts(&run_json(d, &["resume", "e", "--max-discs", "13", "--json", "-q"])), counts(&one_go));
    // what cannot be done is said in one line
    fails_with(d, &["resume", "e", "--plies", "20"], "--max-discs");
    fails_with(d, &["resume", "e", "--max-discs", "11"], "already reached layer 13");
    fails_with(d, &["resume", "e", "--max-discs", "40"], "more than the 36 squares");
    // a DFS checkpoint cannot be extended (refused before it is read)
    std::fs::write(d.join("c.ckpt"), b"any checkpoint").unwrap();
    fails_with(d, &["resume", "c.ckpt", "--max-discs", "14"], "cannot be extended");
}

#[test]
fn a_last_layer_counted_unstored_equals_a_stored_one_and_is_not_extended() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut reference_args = COUNT.to_vec();
    reference_args[14] = "ref";
    let want = counts(&run_json(d, &reference_args));
    let mut lean = COUNT.to_vec();
    lean.push("--no-store-last");
    let doc = run_json(d, &lean);
    assert_eq!(counts(&doc), want);
    let phases = doc["engine_stats"]["phases"].as_array().unwrap();
    assert_eq!(phases.last().unwrap()["phase"], "merge and count");
    assert_eq!(phases.last().unwrap()["layer"], 14);
    // the last layer took no disk: nothing of layer 14 is left
    assert!(!d.join("w/layer-014").exists());
    // resuming reports the committed counts again; extending is refused
    assert_eq!(counts(&run_json(d, &["resume", "w", "--json", "-q"])), want);
    fails_with(d, &["resume", "w", "--max-discs", "15", "-q"], "counted without being stored");
    // and a stored run is still extended from its last layer
    let mut stored = run_json(d, &["resume", "ref", "--max-discs", "15", "--no-store-last", "--json", "-q"]);
    let mut one_go = COUNT.to_vec();
    one_go[6] = "15";
    one_go[14] = "one";
    assert_eq!(counts(&stored.take()), counts(&run_json(d, &one_go)));
}
