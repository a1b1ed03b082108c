//! The layered census over MPI ranks, through `mpirun` and the real binary
//! (built with `--features mpi`; `.ci/run` installs Open MPI and runs
//! these): every number of ranks gives the single process's counts, a
//! killed rank ends the job, and the job resumes to identical counts.
#![cfg(feature = "mpi")]

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::bin;
use serde_json::Value;

/// `mpirun -np N othello-census ARGS` in `dir` (Open MPI; as root too).
fn mpirun(dir: &Path, np: u32, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", &np.to_string()])
        .arg(bin())
        .args(args)
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    c
}

fn json(out: Output, what: &str) -> Value {
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn counts(doc: &Value) -> Value {
    serde_json::json!({ "layers": doc["layers"], "totals": doc["totals"], "complete": doc["complete"] })
}

fn single(dir: &Path, args: &[&str], work: &str) -> Value {
    let out = Command::new(bin())
        .args(args)
        .args(["--json", "-q", "--threads", "1", "--work-dir", work, "--out", "r"])
        .current_dir(dir)
        .output()
        .unwrap();
    json(out, "single process")
}

const SIX: [&str; 7] = ["count", "--engine", "layers", "--size", "6", "--max-discs", "14"];
const EIGHT: [&str; 9] = ["count", "--engine", "layers", "--size", "8", "--by", "ply", "--plies", "9"];

#[test]
fn one_to_four_ranks_give_the_counts_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, name) in [(&SIX[..], "six"), (&EIGHT[..], "eight")] {
        let want = counts(&single(d, args, &format!("{name}-single")));
        for np in 1..=4 {
            let work = format!("{name}-np{np}");
            // small buffers and odd partition counts: many runs, all ranks busy
            let extra = ["--json", "-q", "--threads", "1", "--memory", "8MiB", "--partitions", "7"];
            let out = mpirun(d, np, args).args(extra).args(["--work-dir", &work, "--out", "r"]).output().unwrap();
            let doc = json(out, &format!("{name} with {np} ranks"));
            assert_eq!(counts(&doc), want, "{name} with {np} ranks");
            assert_eq!(doc["engine_stats"]["ranks"], np);
            let sent: u64 = doc["engine_stats"]["phases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["exchanged_bytes"].as_u64().unwrap())
                .sum();
            assert_eq!(sent == 0, np == 1, "{name} with {np} ranks sent {sent} bytes");
            for r in 0..np {
                assert!(d.join(&work).join(format!("rank-{r:04}-of-{np:04}")).is_dir());
            }
        }
    }
}

#[test]
fn ranks_count_a_last_layer_in_slices_like_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let want = counts(&single(d, &SIX, "single"));
    let sliced = ["--no-store-last", "--slices", "3", "--partitions", "7", "--memory", "8MiB"];
    let extra = ["--json", "-q", "--threads", "1", "--work-dir", "w", "--out", "r"];
    let doc = json(mpirun(d, 3, &SIX).args(sliced).args(extra).output().unwrap(), "3 ranks, 3 slices");
    assert_eq!(counts(&doc), want);
    let slices: Vec<&Value> = doc["engine_stats"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["phase"] == "merge and count")
        .map(|p| &p["slice"])
        .collect();
    assert_eq!(slices.len(), 3, "{slices:?}");
    assert!(slices.iter().all(|s| s["of"] == 3));
}

/// The process of rank `rank` among the children of `mpirun`.
fn rank_pid(mpirun_pid: u32, rank: u32) -> Option<u32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        let vars: Vec<&[u8]> = environ.split(|&b| b == 0).collect();
        let is = |v: &str| vars.contains(&v.as_bytes());
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let child_of_mpirun = status.lines().any(|l| l == format!("PPid:\t{mpirun_pid}"));
        if child_of_mpirun && is(&format!("OMPI_COMM_WORLD_RANK={rank}")) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_killed_rank_ends_the_job_and_the_job_resumes_to_identical_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["count", "--engine", "layers", "--size", "6", "--max-discs", "15"];
    let want = counts(&single(d, &args, "single"));
    let mut child = mpirun(d, 3, &args)
        .args(["-q", "--threads", "1", "--memory", "4MiB", "--work-dir", "w", "--out", "r"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // kill rank 1 once the run is a few layers in
    let t0 = Instant::now();
    while !d.join("w/rank-0001-of-0003/layer-011").exists() && t0.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = rank_pid(child.id(), 1).expect("rank 1 is running");
    assert!(Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap().success());
    let killed = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(!status.success(), "the job reports the failure");
            eprintln!("the job ended {:.2} s after rank 1 was killed", killed.elapsed().as_secs_f64());
            break;
        }
        assert!(killed.elapsed() < Duration::from_secs(60), "the job still runs a minute after a rank died");
        std::thread::sleep(Duration::from_millis(50));
    }
    // the run resumes from its last committed phase, with the same ranks
    let out = mpirun(d, 3, &["resume", "w", "--json", "-q", "--threads", "1", "--out", "r"]).output().unwrap();
    assert_eq!(counts(&json(out, "resume")), want);
}

#[test]
fn another_number_of_ranks_and_a_single_process_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out =
        mpirun(d, 2, &SIX[..5]).args(["--max-discs", "9", "-q", "--work-dir", "w", "--out", "r"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = mpirun(d, 3, &["resume", "w", "-q", "--out", "r"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the number of ranks it was started with"), "{err}");
    let out = Command::new(bin()).args(["resume", "w", "-q", "--out", "r"]).current_dir(d).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("was made by 2 MPI ranks") && err.lines().count() == 1, "{err}");
    // the run is intact: its own number of ranks reports it again
    let out = mpirun(d, 2, &["resume", "w", "--json", "-q", "--out", "r"]).output().unwrap();
    assert_eq!(json(out, "resume")["layers"].as_array().unwrap().len(), 6);
}
