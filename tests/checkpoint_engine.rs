//! The DFS engine's pauses and snapshots, through the library: saving does
//! not change any count, a saved snapshot resumes to the same counts, and a
//! save that fails leaves the run going.

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use othello_census::board::{B6, B8};
use othello_census::engine::dfs::{CheckpointPlan, Control, DfsConfig, Live, Resume, SaveReport, census, census_with};

fn config(max_discs: u32, threads: usize) -> DfsConfig {
    DfsConfig { threads, max_discs, memory_limit: 1 << 32 }
}

fn plan(path: std::path::PathBuf, every: Duration) -> CheckpointPlan {
    CheckpointPlan { path, every, command: "test".into(), started_unix: 0, out: String::new() }
}

#[test]
fn frequent_saves_change_nothing_and_each_snapshot_resumes_exactly() {
    let want = census::<B6>(&config(13, 2), &Live::default()).map(|o| (o.census, o.explored, o.repeated)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ckpt");
    let saves = Mutex::new(Vec::new());
    let on_save = |r: &SaveReport| saves.lock().unwrap().push(r.result.clone());
    let never = AtomicBool::new(false);
    let control =
        Control { stop: &never, checkpoint: Some(plan(path.clone(), Duration::from_millis(1))), on_save: &on_save };
    let got = census_with::<B6>(&config(13, 2), &Live::default(), &control, None)
        .map(|o| (o.census, o.explored, o.repeated))
        .unwrap();
    assert_eq!(got, want);
    let saves = saves.into_inner().unwrap();
    assert!(!saves.is_empty() && saves.iter().all(Result::is_ok), "{saves:?}");
    // the last snapshot, resumed on another thread count, ends the same
    let resumed = Resume::<B6>::load(&path).unwrap();
    let quiet = Control { stop: &never, checkpoint: None, on_save: &|_| {} };
    let again = census_with::<B6>(&config(13, 3), &Live::default(), &quiet, Some(resumed))
        .map(|o| (o.census, o.explored, o.repeated))
        .unwrap();
    assert_eq!(again, want);
}

#[test]
fn stop_saves_and_resume_finishes() {
    let want = census::<B8>(&config(12, 2), &Live::default()).map(|o| (o.census, o.explored, o.repeated)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ckpt");
    let stop = AtomicBool::new(true); // asked to stop at once
    let control =
        Control { stop: &stop, checkpoint: Some(plan(path.clone(), Duration::from_secs(3600))), on_save: &|_| {} };
    let err = census_with::<B8>(&config(12, 2), &Live::default(), &control, None).unwrap_err();
    assert!(err.to_string().contains("checkpoint saved"), "{err}");
    let never = AtomicBool::new(false);
    let quiet = Control { stop: &never, checkpoint: None, on_save: &|_| {} };
    let resumed = Resume::<B8>::load(&path).unwrap();
    assert_eq!(
        census_with::<B8>(&config(12, 1), &Live::default(), &quiet, Some(resumed))
            .map(|o| (o.census, o.explored, o.repeated))
            .unwrap(),
        want
    );
    // a checkpoint of one size is not read as another
    assert!(Resume::<B6>::load(&path).is_err());
}

#[test]
fn a_failing_save_is_reported_and_the_run_goes_on() {
    // 14 discs: long enough (~0.5 s) for the coordinator, which polls every
    // 10 ms, to attempt saves
    let want = census::<B6>(&config(14, 2), &Live::default()).map(|o| (o.census, o.explored, o.repeated)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // a regular file where the checkpoint's directory should be: every save fails
    std::fs::write(dir.path().join("not-a-dir"), b"").unwrap();
    let path = dir.path().join("not-a-dir").join("s.ckpt");
    let failures = Mutex::new(0);
    let on_save = |r: &SaveReport| {
        if r.result.is_err() {
            *failures.lock().unwrap() += 1;
        }
    };
    let never = AtomicBool::new(false);
    let control = Control { stop: &never, checkpoint: Some(plan(path, Duration::from_millis(1))), on_save: &on_save };
    let got = census_with::<B6>(&config(14, 2), &Live::default(), &control, None)
        .map(|o| (o.census, o.explored, o.repeated))
        .unwrap();
    assert_eq!(got, want);
    assert!(*failures.lock().unwrap() > 0);
}

#[test]
fn a_memory_abort_during_frequent_saves_ends_cleanly() {
    // The memory limit is hit while the coordinator keeps pausing the
    // walkers for saves: the run must end with the memory error, not hang.
    // (A detached thread, so that a hang fails the test instead of
    // hanging it.)
    for round in 0..5u64 {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let dir = tempfile::tempdir().unwrap();
            let never = AtomicBool::new(false);
            let control = Control {
                stop: &never,
                checkpoint: Some(plan(dir.path().join("m.ckpt"), Duration::from_millis(1))),
                on_save: &|_| {},
            };
            let cfg = DfsConfig { threads: 2, max_discs: 14, memory_limit: (1 << 20) * (round + 1) };
            let r = census_with::<B6>(&cfg, &Live::default(), &control, None);
            let _ = tx.send(r.map(|_| ()).map_err(|e| e.to_string()));
        });
        let got = rx.recv_timeout(Duration::from_secs(60)).expect("the census hung");
        assert!(got.unwrap_err().contains("memory limit"));
    }
}
