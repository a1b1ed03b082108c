//! Checkpoints end to end: interrupted and killed runs resume to the counts
//! of an uninterrupted run, and bad checkpoint files get one clear line, a
//! non-zero exit, and stay as they were.

mod common;

use std::path::Path;
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use common::{bin, fails_with, signal};
use serde_json::Value;

fn spawn(args: &[&str], dir: &Path) -> Child {
    StdCommand::new(bin()).args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// The parts of a census document that must not depend on interruptions.
fn counts(doc: &Value) -> Value {
    serde_json::json!({
        "layers": doc["layers"],
        "totals": doc["totals"],
        "explored": doc["engine_stats"]["explored_classes"],
        "repeated": doc["engine_stats"]["repeated"],
        "complete": doc["complete"],
        "limit": doc["limit"],
    })
}

fn reference_6x6_14(dir: &Path) -> Value {
    let out = StdCommand::new(bin())
        .args(["count", "--size", "6", "--max-discs", "14", "--json", "-q", "--out", "res", "--checkpoint", "ref.ckpt"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let c = counts(&serde_json::from_slice(&out.stdout).unwrap());
    assert!(c["explored"].as_u64().is_some_and(|e| e > 0) && c["limit"] == 14, "{c}");
    c
}

#[test]
fn sigint_at_random_moments_then_resume_gives_identical_counts() {
    let dir = tempfile::tempdir().unwrap();
    let want = reference_6x6_14(dir.path());
    // A fixed, varied set of delays (ms): reproducible "random" moments.
    let delays = [40u64, 170, 90, 260, 130, 60, 210];
    let count_args = [
        "count",
        "--size",
        "6",
        "--max-discs",
        "14",
        "--threads",
        "1",
        "--json",
        "-q",
        "--out",
        "res",
        "--checkpoint",
        "c.ckpt",
    ];
    let resume_args = ["resume", "c.ckpt", "--threads", "1", "--json", "-q", "--out", "res"];
    let mut interrupts = 0;
    let mut first = true;
    let mut final_doc = None;
    for round in 0..40 {
        let args: &[&str] = if first { &count_args } else { &resume_args };
        let child = spawn(args, dir.path());
        std::thread::sleep(Duration::from_millis(delays[round % delays.len()]));
        signal(&child, "INT");
        if round % 2 == 1 {
            // a second Ctrl-C while the checkpoint is being saved
            std::thread::sleep(Duration::from_millis(3));
            signal(&child, "INT");
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        match out.status.code() {
            Some(0) => {
                final_doc = Some(serde_json::from_slice::<Value>(&out.stdout).unwrap());
                break;
            }
            Some(130) => {
                assert!(stderr.contains("othello-census resume c.ckpt"), "{stderr}");
                interrupts += 1;
                first = false;
            }
            // killed before the handler was installed (a very loaded
            // machine): nothing was started, so start again
            None => first = !dir.path().join("c.ckpt").exists(),
            other => panic!("unexpected exit {other:?}: {stderr}"),
        }
    }
    assert!(interrupts >= 2, "only {interrupts} interrupts landed");
    let doc = final_doc.unwrap_or_else(|| {
        // Too many interrupts for the run to end: finish it undisturbed.
        let out = StdCommand::new(bin()).args(resume_args).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    });
    assert_eq!(counts(&doc), want);
}

#[test]
fn sigkill_between_saves_resumes_from_the_last_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let want = reference_6x6_14(dir.path());
    let child = spawn(
        &[
            "count",
            "--size",
            "6",
            "--max-discs",
            "14",
            "--threads",
            "1",
            "--checkpoint-every",
            "100ms",
            "-q",
            "--out",
            "res",
            "--checkpoint",
            "k.ckpt",
        ],
        dir.path(),
    );
    let ckpt = dir.path().join("k.ckpt");
    let t0 = Instant::now();
    while !ckpt.exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(ckpt.exists(), "no checkpoint was written");
    std::thread::sleep(Duration::from_millis(150));
    signal(&child, "KILL");
    let _ = child.wait_with_output().unwrap();
    let inspect =
        StdCommand::new(bin()).args(["inspect", "k.ckpt", "--json"]).current_dir(dir.path()).output().unwrap();
    assert!(inspect.status.success(), "{}", String::from_utf8_lossy(&inspect.stderr));
    let info: Value = serde_json::from_slice(&inspect.stdout).unwrap();
    assert_eq!(info["checksums_ok"], true);
    let out = StdCommand::new(bin())
        .args(["resume", "k.ckpt", "--json", "-q", "--out", "res"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(counts(&serde_json::from_slice(&out.stdout).unwrap()), want);
}

#[test]
fn bad_checkpoints_get_one_line_and_stay_intact() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // a small but real checkpoint: interrupt a run right away
    let child = spawn(
        &[
            "count",
            "--size",
            "6",
            "--max-discs",
            "14",
            "--threads",
            "1",
            "-q",
            "--out",
            "res",
            "--checkpoint",
            "good.ckpt",
        ],
        d,
    );
    std::thread::sleep(Duration::from_millis(150));
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let good = std::fs::read(d.join("good.ckpt")).unwrap();
    let variant = |name: &str, bytes: &[u8]| {
        std::fs::write(d.join(name), bytes).unwrap();
        name.to_string()
    };

    let truncated = variant("truncated.ckpt", &good[..good.len() / 2]);
    let mut flipped_bytes = good.clone();
    let mid = good.len() / 2;
    flipped_bytes[mid] ^= 0x10;
    let flipped = variant("flipped.ckpt", &flipped_bytes);
    let mut v9 = good.clone();
    v9[8] = 9;
    let version = variant("v9.ckpt", &v9);
    let foreign = variant("results.json", b"{\"tool\": \"othello-census\"}\n");

    for cmd in ["resume", "inspect"] {
        fails_with(d, &[cmd, &truncated], "truncated");
        fails_with(d, &[cmd, &flipped], "checksum mismatch");
        fails_with(d, &[cmd, &version], "format version 9");
        fails_with(d, &[cmd, &foreign], "not an othello-census checkpoint");
        fails_with(d, &[cmd, "missing.ckpt"], "missing.ckpt");
    }
    // the damaged files were left exactly as they were
    assert_eq!(std::fs::read(d.join(&flipped)).unwrap(), flipped_bytes);
    assert_eq!(std::fs::read(d.join(&version)).unwrap(), v9);

    // count never overwrites a checkpoint, and names the conflict
    fails_with(d, &["count", "--size", "8", "--max-discs", "12", "-q", "--checkpoint", "good.ckpt"], "conflicts");
    fails_with(d, &["count", "--size", "6", "--max-discs", "14", "-q", "--checkpoint", "good.ckpt"], "resume");
    fails_with(d, &["count", "--size", "4", "-q", "--checkpoint", &foreign], "never overwrites");
    assert_eq!(std::fs::read(d.join("good.ckpt")).unwrap(), good);

    // an unwritable place for checkpoints is refused before any work
    std::fs::write(d.join("plain-file"), b"x").unwrap();
    fails_with(d, &["count", "--size", "4", "-q", "--checkpoint", "plain-file/c.ckpt"], "cannot write checkpoints");

    // and the good checkpoint still resumes, to the counts of a run that
    // was never interrupted
    let out = StdCommand::new(bin())
        .args(["resume", "good.ckpt", "-q", "--json", "--out", "res"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(counts(&serde_json::from_slice(&out.stdout).unwrap()), reference_6x6_14(d));
}
