//! Faults of issue 52 that lost work or hung, each driven to happen: a
//! damaged bucket found only after the layer it came from was deleted, a
//! panic in the layered driver that left the process waiting forever.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::bin;
use othello_census::board::B6;
use othello_census::census::LayerBy;
use othello_census::engine::layers::{LayersError, LayersLive, LayersPlan, LayersSettings, progress, resume, start};
use othello_census::formats::framed::{get_varint, put_varint};

fn plan(limit: u32, dir: &Path) -> LayersPlan {
    LayersPlan {
        by: LayerBy::Discs,
        limit,
        partitions: 8,
        work_dir: dir.join("work"),
        command: "test".into(),
        started_unix: 0,
    }
}

/// One thread and 1 MiB: a round per parent part, many runs per bucket.
fn settings() -> LayersSettings {
    LayersSettings { threads: 1, ..LayersSettings::new(1, 1 << 20) }
}

/// Starts a run of `p` and stops it once `at` says so; the run must have
/// been stopped.
fn stop_when(p: &LayersPlan, at: impl Fn(&LayersLive) -> bool) {
    assert!(try_stop_when(p, at), "the run was not stopped");
}

/// As [`stop_when`], saying whether the run was stopped (a run that ends
/// before the watcher sees `at`, under load, is not).
fn try_stop_when(p: &LayersPlan, at: impl Fn(&LayersLive) -> bool) -> bool {
    let stop = AtomicBool::new(false);
    let live = LayersLive::default();
    let first = std::thread::scope(|s| {
        let h = s.spawn(|| start::<B6>(p, &settings(), &stop, &live));
        let t0 = Instant::now();
        while !h.is_finished() && t0.elapsed() < Duration::from_secs(120) {
            if at(&live) {
                stop.store(true, Ordering::SeqCst);
                break;
            }
            std::hint::spin_loop();
        }
        h.join().unwrap()
    });
    match first {
        Err(LayersError::Interrupted(_)) => true,
        Ok(_) => false,
        Err(e) => panic!("the run failed: {e}"),
    }
}

/// The sections of a framed file after its 16-byte preamble: (tag, payload
/// start, payload length).
fn sections(bytes: &[u8]) -> Vec<([u8; 4], usize, usize)> {
    let mut out = Vec::new();
    let mut at = 16;
    while at < bytes.len() {
        let tag: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
        let len = u64::from_le_bytes(bytes[at + 4..at + 12].try_into().unwrap()) as usize;
        out.push((tag, at + 12, len));
        at += 12 + len + 8;
    }
    out
}

/// Issue 52, item 2: a bucket damaged while its layer is expanded is found
/// before the commit that deletes the parent layer: the parent stays, the
/// buckets go, and a resume expands it again to the right counts. It was
/// found only in the merge, after the parent was deleted, and the run was
/// lost.
#[test]
fn a_damaged_bucket_is_found_before_its_parent_layer_is_deleted() {
    let want = {
        let dir = tempfile::tempdir().unwrap();
        let never = AtomicBool::new(false);
        start::<B6>(&plan(13, dir.path()), &settings(), &never, &LayersLive::default()).unwrap().census.layers
    };
    let dir = tempfile::tempdir().unwrap();
    let p = plan(13, dir.path());
    let buckets = p.work_dir.join("buckets-013");
    let file = progress::path_in(&buckets);
    stop_when(&p, |_| progress::read(&file).ok().flatten().is_some_and(|r| r.id.layer == 12 && r.done >= 2));
    // one bit of a run the progress file records as written
    let at = progress::read(&file).unwrap().unwrap();
    let j = at.buckets.iter().position(|b| b.as_ref().is_some_and(|b| b.len > 1000)).unwrap();
    let bucket = buckets.join(format!("part-{j:04}.bkt"));
    let mut bytes = std::fs::read(&bucket).unwrap();
    let (_, start, len) = sections(&bytes)[0];
    bytes[start + len / 2] ^= 0x10;
    std::fs::write(&bucket, bytes).unwrap();
    let never = AtomicBool::new(false);
    let e = resume::<B6>(&p.work_dir, None, &settings(), &never, &LayersLive::default()).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains(&format!("part-{j:04}.bkt")) && e.contains("found before layer 12 was deleted"), "{e}");
    assert!(p.work_dir.join("layer-012/part-0000.lyr").is_file(), "the parent layer is kept");
    assert!(!buckets.exists(), "the damaged buckets are deleted");
    // the resume the message names expands layer 12 again
    let done = resume::<B6>(&p.work_dir, None, &settings(), &never, &LayersLive::default()).unwrap();
    assert_eq!(done.census.layers, want);
}

/// Rewrites the runs of a bucket so that every key of its first run is
/// reached by an odd number of games (2m + 1; the others' 2m): impossible
/// for a class of 2 or 4 positions, whose games are shared equally. The
/// checksums are right: only the counting can notice.
fn forge_odd_games(bucket: &Path) {
    let bytes = std::fs::read(bucket).unwrap();
    let mut out = bytes[..16].to_vec();
    for (i, (tag, start, len)) in sections(&bytes).into_iter().enumerate() {
        let mut payload = bytes[start..start + len].to_vec();
        if &tag == b"RUN " {
            let (old, mut new, mut pos) = (payload, Vec::new(), 0);
            while pos < old.len() {
                let key = get_varint(&old, &mut pos).unwrap();
                let m = get_varint(&old, &mut pos).unwrap();
                put_varint(&mut new, key);
                put_varint(&mut new, 2 * m + (i == 0) as u128);
            }
            payload = new;
        }
        out.extend_from_slice(&tag);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    }
    std::fs::write(bucket, out).unwrap();
}

/// Issue 52, item 2 (item 6 of the issue): a panic in the layered driver
/// (here an assertion on games that cannot be, in a bucket forged with
/// right checksums) ends the process with one line and a non-zero exit.
/// The thread that samples the disk stopped only on a normal return, and
/// the process waited for it forever.
#[test]
fn a_panic_in_the_layered_driver_ends_the_process_in_one_line() {
    // stopped while the last layer is merged and counted: its buckets are
    // complete and committed (phase 1). Under load the stop can come after
    // the last bucket is merged (or the run can end first): tried again,
    // each time in a fresh directory
    let (dir, p, last) = (0..5)
        .find_map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let p = plan(12, dir.path());
            let phase_1 =
                |l: &LayersLive| l.layer.load(Ordering::Relaxed) == 12 && l.phase.load(Ordering::Relaxed) == 1;
            if !try_stop_when(&p, phase_1) {
                return None;
            }
            let last = std::fs::read_dir(p.work_dir.join("buckets-012"))
                .ok()?
                .map(|e| e.unwrap().path())
                .filter(|f| f.extension().is_some_and(|e| e == "bkt"))
                .max()?;
            Some((dir, p, last))
        })
        .expect("in five tries, no run stopped with a bucket of layer 12 not merged yet");
    forge_odd_games(&last);
    let manifest = std::fs::read(p.work_dir.join("run.manifest")).unwrap();
    let child = Command::new(bin())
        .args(["resume", "work", "-q"])
        .env_remove("RUST_BACKTRACE")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut child = child;
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the process did not end after the panic");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("error: internal error at ") && err.contains("do not divide over"), "{err}");
    // what was committed stays, and no temporary is left
    assert_eq!(std::fs::read(p.work_dir.join("run.manifest")).unwrap(), manifest);
    let tmp = walk(&p.work_dir).into_iter().filter(|f| f.contains(".tmp-")).collect::<Vec<_>>();
    assert!(tmp.is_empty(), "{tmp:?}");
}

/// Every file below `dir`, as paths.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path().display().to_string());
        }
    }
    out
}

/// Runs the binary in `dir`, `RUST_BACKTRACE` unset.
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(bin()).args(args).env_remove("RUST_BACKTRACE").current_dir(dir).output().unwrap()
}

/// The names of the entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Issue 52, item 3: a DFS run removes the temporaries that killed saves
/// of its checkpoint left (each as large as a checkpoint; 47 files and 9.2
/// GB after 126 kills), keeps another checkpoint's, and leaves no lock
/// file behind, neither when it finishes nor when it is refused after
/// taking the lock.
#[test]
fn a_dfs_run_leaves_no_temporary_or_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ck = d.join("checkpoints");
    std::fs::create_dir(&ck).unwrap();
    std::fs::write(ck.join(".a.ckpt.tmp-999999"), vec![7u8; 1 << 20]).unwrap();
    std::fs::write(ck.join(".a.ckpt.tmp-1"), b"x").unwrap();
    std::fs::write(ck.join(".b.ckpt.tmp-999998"), b"another run's").unwrap();
    let out = run_in(d, &["count", "--size", "4", "--checkpoint", "checkpoints/a.ckpt", "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&ck), [".b.ckpt.tmp-999998"]);
    // refused after the lock was taken: one line, and no lock file left
    let out = run_in(d, &["count", "--size", "8", "--checkpoint", "checkpoints/d.ckpt", "-q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.starts_with("error: a DFS census of 8x8") && err.trim_end().lines().count() == 1, "{err}");
    assert_eq!(names(&ck), [".b.ckpt.tmp-999998"]);
}

/// Issue 52, item 3: a layered run that resumes removes the temporaries of
/// atomic writes that killed sessions left (a manifest's, a part's), so
/// that they neither take its disk nor count in the size of the last
/// layer it reports, and it leaves no run.lock when it ends.
#[test]
fn a_layered_run_removes_stale_temporaries_when_it_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["--engine", "layers", "--size", "6", "--work-dir", "w", "--out", "o"];
    let out = run_in(d, &[&["count", "-q", "--max-discs", "8"][..], &base].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stale = [d.join("w/.run.manifest.tmp-999999"), d.join("w/layer-008/.part-0003.lyr.tmp-999999")];
    for f in &stale {
        std::fs::write(f, vec![7u8; 4 << 20]).unwrap();
    }
    let out = run_in(d, &["resume", "w", "--max-discs", "9", "--out", "o"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for f in &stale {
        assert!(!f.exists(), "{} is left", f.display());
    }
    assert!(!d.join("w/run.lock").exists(), "the lock file is removed when the run ends");
    // the size it reports is the last layer's (a few kB), not 8 MiB more
    let said = err.lines().find(|l| l.starts_with("the last layer stays")).expect(&err);
    assert!(said.contains("KiB") || said.contains(" B)"), "{said}");
}

/// Issue 52, item 3: the probe that checks that `--out` can be written is
/// removed also when writing it fails (here a file size limit of 0, as on
/// a full disk); it was left as `.probe-PID`.
#[test]
fn an_out_check_that_fails_leaves_no_probe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cmd = format!("ulimit -f 0 && trap '' XFSZ && exec {} count --size 4 --out o -q", bin().display());
    let out = Command::new("sh").args(["-c", &cmd]).env_remove("RUST_BACKTRACE").current_dir(d).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{err}");
    assert!(names(d).iter().all(|n| !n.starts_with(".probe-")), "{:?}", names(d));
}

/// Issue 52, item 5: `resume DIR`, the command a stopped layered run
/// prints, keeps the --slices, --compact-buckets and --disk the run was
/// started with (manifest version 7): it dropped them, and the run took
/// about three times the disk it was planned with.
#[test]
fn a_layered_resume_keeps_the_settings_the_run_was_started_with() {
    use othello_census::engine::layers::CompactionMode;
    use othello_census::engine::layers::store::{RunSettings, read_manifest};
    let dir = tempfile::tempdir().unwrap();
    let p = plan(14, dir.path());
    let given = LayersSettings {
        store_last: false,
        slices: Some(4),
        compaction: CompactionMode::Always,
        disk_limit: Some(10 << 30),
        ..settings()
    };
    let stop = AtomicBool::new(false);
    let live = LayersLive::default();
    let first = std::thread::scope(|s| {
        let h = s.spawn(|| start::<B6>(&p, &given, &stop, &live));
        while !h.is_finished() && live.layer.load(Ordering::Relaxed) < 10 {
            std::hint::spin_loop();
        }
        stop.store(true, Ordering::SeqCst);
        h.join().unwrap()
    });
    assert!(matches!(first, Err(LayersError::Interrupted(_))), "the run was not stopped: {first:?}");
    let out = run_in(dir.path(), &["resume", "work", "--json", "-q", "--out", "o"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let slices: Vec<&serde_json::Value> = doc["engine_stats"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["phase"] == "merge and count")
        .map(|p| &p["slice"])
        .collect();
    assert_eq!(slices.len(), 4, "{slices:?}");
    assert!(slices.iter().all(|s| s["of"] == 4), "{slices:?}");
    let m = read_manifest(&p.work_dir.join("run.manifest")).unwrap();
    assert_eq!(m.settings, RunSettings { slices: Some(4), compact_always: true, disk_limit: Some(10 << 30) });
    // inspect shows them, in words and in its JSON
    let out = run_in(dir.path(), &["inspect", "work"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("settings a resume keeps: --slices 4 --compact-buckets --disk 10737418240"), "{text}");
    let out = run_in(dir.path(), &["inspect", "work", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["settings"],
        serde_json::json!({
            "slices": 4,
            "compact_buckets": true,
            "disk_limit": 10u64 << 30,
            "out": std::fs::canonicalize(dir.path()).unwrap().join("o").display().to_string(),
        })
    );
}

/// Issue 52, item 5: `resume FILE` of a DFS checkpoint writes its result
/// into the run's --out (checkpoint version 4 keeps it, absolute), from
/// whatever directory it runs in; it wrote into results/runs/ under the
/// current directory. The finished run's checkpoint is removed once its
/// result is written, so a second resume neither counts again nor writes a
/// second result.
#[test]
fn a_dfs_resume_writes_into_the_runs_out_and_only_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["count", "--size", "6", "--max-discs", "14", "--threads", "1", "-q", "--out", "sub/res"];
    let child = Command::new(bin())
        .args(args)
        .args(["--checkpoint", "c.ckpt"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(150));
    common::signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let out = run_in(&elsewhere, &["resume", "../c.ckpt", "-q", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results = |p: &Path| names(p).into_iter().filter(|n| n.ends_with(".json")).count();
    assert_eq!(results(&d.join("sub/res")), 1, "the result is in the run's --out");
    assert_eq!(names(&elsewhere), Vec::<String>::new(), "nothing under the current directory");
    assert!(!d.join("c.ckpt").exists(), "the finished run's checkpoint is removed");
    let again = run_in(&elsewhere, &["resume", "../c.ckpt", "-q"]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success() && err.trim_end().lines().count() == 1 && err.contains("does not exist"), "{err}");
    assert_eq!(results(&d.join("sub/res")), 1, "no second result");
}

/// Issue 52, item 8: a FIFO given to `inspect` or `resume`, and a FIFO,
/// /dev/zero or a 20 GB file given to `catalog add`, are refused in one
/// line at once; they blocked forever or read until memory ran out.
#[test]
fn fifos_devices_and_huge_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(Command::new("mkfifo").arg(d.join("fifo")).status().unwrap().success());
    let huge = d.join("huge.json");
    std::fs::File::create(&huge).unwrap().set_len(20 << 30).unwrap(); // sparse
    let cases: [(&[&str], &str); 5] = [
        (&["resume", "fifo"], "neither a regular file nor a directory"),
        (&["inspect", "fifo"], "neither a regular file nor a directory"),
        (&["catalog", "add", "--new", "--dir", "cat", "fifo"], "not a regular file"),
        (&["catalog", "add", "--new", "--dir", "cat", "/dev/zero"], "not a regular file"),
        (&["catalog", "add", "--new", "--dir", "cat", "huge.json"], "over the"),
    ];
    for (args, needle) in cases {
        let child =
            Command::new(bin()).args(args).current_dir(d).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let t0 = Instant::now();
        let mut child = child;
        while child.try_wait().unwrap().is_none() {
            if t0.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("{args:?} still running after 20 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1 && err.contains(needle), "{err}");
    }
    assert!(!d.join("cat").exists(), "no catalogue left behind");
}

/// Issue 52, item 9: `census.svg` is replaced atomically (a new file
/// renamed over it), not rewritten in place, so a reader or a crash never
/// sees half a plot.
#[test]
fn the_plot_is_replaced_atomically() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run_in(d, &["count", "--size", "4", "-q", "--out", "r"]);
    assert!(out.status.success());
    let json =
        std::fs::read_dir(d.join("r")).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().unwrap() == "json");
    let out = run_in(d, &["catalog", "add", "--new", "--dir", "cat", json.unwrap().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = d.join("cat/census.svg");
    let before = std::fs::metadata(&svg).unwrap().ino();
    let out = run_in(d, &["plot", "--dir", "cat"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(std::fs::metadata(&svg).unwrap().ino(), before, "a new file renamed over the plot");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert!(names(&d.join("cat")).iter().all(|n| !n.contains(".tmp-")));
}

/// Issue 52, item 9: `--size -1` names the size as the wrong value
/// instead of "unexpected argument '-1' found".
#[test]
fn a_negative_size_is_named_as_a_wrong_size() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["count", "perft", "solve", "reachable", "estimate"] {
        common::fails_with(dir.path(), &[cmd, "--size", "-1"], "board size must be 4, 6 or 8 (got -1)");
    }
}

/// Issue 52, item 10: the first timestamped progress line of a DFS run
/// gives the rate since the run began; it always said 0 classes/s (the
/// rate was taken from the count at that first line).
#[test]
fn the_first_dfs_progress_line_has_a_rate() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let args = ["count", "--size", "6", "--max-discs", "16", "--threads", "1", "--progress-every", "1s", "--out", "o"];
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.map(|l| l.unwrap()).find(|l| l.starts_with('[') && l.contains("classes/s"));
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("a progress line");
    assert!(!first.contains(" 0 classes/s"), "{first}");
}

/// Issue 52, item 9: a checkpoint save that fails before any succeeded
/// does not speak of "the previous one" (there is none), and leaves no
/// temporary; the run goes on to its result.
#[test]
fn a_failed_first_save_names_no_previous_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // files up to 400 KiB: the result, not a checkpoint of 6x6 to 14 discs
    let cmd = format!(
        "ulimit -f 800 && trap '' XFSZ && exec {} count --size 6 --max-discs 14 --threads 1 --checkpoint-every 100ms \
         --checkpoint c.ckpt --out o -q",
        bin().display()
    );
    let out = Command::new("sh").args(["-c", &cmd]).env_remove("RUST_BACKTRACE").current_dir(d).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: checkpoint not saved") && !err.contains("previous one"), "{err}");
    assert!(names(d).iter().all(|n| !n.contains(".tmp-")), "{:?}", names(d));
}

/// Issue 52, item 9: a `resume --max-discs` that fails before it commits
/// anything (here the next layer does not fit its --disk) leaves the run's
/// manifest, its limit included, as it was; the limit was rewritten first.
#[test]
fn a_failed_resume_leaves_the_runs_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run_in(
        d,
        &["count", "--engine", "layers", "--size", "6", "--max-discs", "10", "--work-dir", "w", "--out", "o", "-q"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = std::fs::read(d.join("w/run.manifest")).unwrap();
    let out = run_in(d, &["resume", "w", "--max-discs", "13", "--disk", "1KiB", "--out", "o", "-q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.trim_end().lines().count() == 1, "{err}");
    assert!(err.contains("needs an estimated"), "{err}");
    assert_eq!(std::fs::read(d.join("w/run.manifest")).unwrap(), manifest, "the manifest is unchanged");
}

/// Issue 52, item 4: a DFS run whose --out cannot take the result at the
/// end (here the directory replaced by a file while it counts) writes the
/// result files beside its checkpoint instead, says where in one line and
/// exits non-zero; before, a run too short to have saved a checkpoint left
/// nothing to report from but the table on stdout.
#[test]
fn a_dfs_result_that_out_refuses_goes_beside_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("ck")).unwrap();
    let child = Command::new(bin())
        .args(["count", "--size", "6", "--max-discs", "14", "--threads", "1", "-q", "--out", "res"])
        .args(["--checkpoint", "ck/c.ckpt"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for_cpu(&child, 0.2, Duration::from_secs(20));
    // --out was checked before the run; now it cannot take a file
    if d.join("res").is_dir() {
        std::fs::remove_dir_all(d.join("res")).unwrap();
    }
    std::fs::write(d.join("res"), b"not a directory").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("could not be written into res") && err.contains("instead"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("census 6x6"), "the table still reaches stdout");
    let json: Vec<String> = names(&d.join("ck")).into_iter().filter(|n| n.ends_with(".json")).collect();
    assert_eq!(json.len(), 1, "{:?}", names(&d.join("ck")));
    assert!(err.contains(&json[0]), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join("ck").join(&json[0])).unwrap()).unwrap();
    assert!(doc["totals"]["positions"].as_u64().is_some());
    assert!(othello_census::report::seal::verify(&doc).is_ok());
    assert!(names(&d.join("ck")).iter().any(|n| n.ends_with(".csv")));
    assert_eq!(std::fs::read(d.join("res")).unwrap(), b"not a directory", "the file in the way is untouched");
}

/// Issue 52, item 8: hostile values are refused in one line before any
/// work. A --budget beyond 10^15 (3.85e17 wrapped the memory estimate to a
/// few bytes and ran), 0 or 10^30; `estimate --resolve` of /dev/zero or a
/// FIFO (read until memory ran out, or waited on); threads and partitions
/// whose buffers exceed --memory (3.1 GB at --memory 1MiB); a solve of a
/// position with an empty centre square (an empty board was solved); a
/// perft deeper than the longest game (4x4 to 100 printed 83 rows of
/// zeros). Nothing is written.
#[test]
fn out_of_range_values_and_impossible_positions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let fifo = fifo.to_string_lossy().into_owned();
    let cases: &[(&[&str], &str)] = &[
        (&["estimate", "--size", "6", "--budget", "385000000000000000"], "from 1 to 1000000000000000"),
        (&["estimate", "--size", "6", "--budget", "1000000000000000000000000000000"], "from 1 to"),
        (&["estimate", "--size", "6", "--budget", "0"], "from 1 to"),
        (&["reachable", "--budget", "0", "--position", "----------------X"], "from 1 to"),
        (&["estimate", "--resolve", "/dev/zero", "--budget", "10"], "not a regular file"),
        (&["estimate", "--resolve", &fifo, "--budget", "10"], "not a regular file"),
        (
            &[
                "count",
                "--engine",
                "layers",
                "--size",
                "4",
                "--threads",
                "1024",
                "--partitions",
                "4096",
                "--memory",
                "1MiB",
            ],
            "give fewer --threads or --partitions",
        ),
        (&["solve", "--position", "---------------- X"], "centre square is empty"),
        (&["solve", "--position", "-----XO--O------ X"], "centre square is empty"),
        (&["perft", "--size", "4", "--depth", "100"], "give --depth 24 or less"),
    ];
    for (args, needle) in cases {
        let started = Instant::now();
        let out = run_in(d, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{args:?}: {err}");
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", started.elapsed());
    }
    assert_eq!(names(d), vec!["fifo".to_string()], "nothing written");
    // the letters --help documents are read, and the start solves
    let out = run_in(d, &["solve", "--position", "....  .wb.  .bw.  .... b", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Issue 52, item 9: a work directory another process is running is named
/// as such. `resume` and `count --work-dir` of it say so in one line and
/// no longer advise `resume` of it (they told the user to resume the
/// directory the other process runs); `inspect` says the run is live and
/// exits 0 instead of reporting "FAILED" for a part being written.
#[test]
fn a_running_work_directory_is_named_as_running() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = Command::new(bin())
        .args(["count", "--engine", "layers", "--size", "6", "--max-discs", "16", "-j", "1", "-q"])
        .args(["--work-dir", "w", "--out", "o"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !(d.join("w/run.lock").exists() && d.join("w/run.manifest").exists()) {
        assert!(started.elapsed() < Duration::from_secs(30), "the run did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    for args in [&["resume", "w"][..], &["count", "--engine", "layers", "--size", "6", "--work-dir", "w", "--out", "o"]]
    {
        let out = run_in(d, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("another othello-census process is running this work directory"), "{args:?}: {err}");
        assert!(!err.contains("resume"), "{args:?}: {err}");
    }
    let out = run_in(d, &["inspect", "w"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("running: another othello-census process holds its lock"), "{text}");
    assert!(!text.contains("FAILED"), "{text}");
    common::signal(&child, "TERM");
    let _ = child.wait();
    // stopped: inspect checks every part again, and says nothing of a run
    let out = run_in(d, &["inspect", "w"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && !text.contains("running:") && text.contains("checksums: ok"), "{text}");
}

/// Issue 52, item 9: `estimate --discs 22-20` is named a reversed range
/// (it said "22-20 is outside 4..=36").
#[test]
fn a_reversed_disc_range_is_named() {
    let dir = tempfile::tempdir().unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--size", "6", "--discs", "22-20"],
        "reversed range; give the smaller count first (20-22)",
    );
}

/// Issue 52, item 8: a run whose standard output is closed (`>&-`) is
/// refused before it starts, in one line with exit status 2 (it exited 0
/// with the table discarded: the runtime reopens a closed descriptor on
/// /dev/null), while `>/dev/null`, a legitimate choice, still runs.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sh = |redirect: &str| {
        Command::new("sh")
            .args(["-c", &format!("exec \"$0\" count --size 4 --out o -q {redirect}")])
            .arg(bin())
            .current_dir(d)
            .stdout(Stdio::null())
            .output()
            .unwrap()
    };
    let out = sh(">&-");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: standard output is closed") && err.trim_end().lines().count() == 1, "{err}");
    assert!(!d.join("o").exists(), "a refused run wrote its result");
    let out = sh(">/dev/null");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&d.join("o")).len(), 2);
}

/// Issue 52, item 9: a part of the layer being merged that is damaged
/// after it was written (its bucket already removed) is named as a damaged
/// file when the merge resumes; it was taken for a part not yet merged and
/// reported as a missing bucket, "continue once the cause is fixed", which
/// no cause could fix.
#[test]
fn a_damaged_merged_part_is_named_as_damaged() {
    // stopped while layer 12 is merged: some parts merged (their buckets
    // removed), some buckets left. Under load the stop can come after the
    // merge has ended and the next layer's expansion has read the part
    // (then a resume never reads it again, and rightly finds nothing): tried
    // again, each time in a fresh directory
    let (_dir, p, layer, j) = (0..5)
        .find_map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let p = plan(13, dir.path());
            let (layer, buckets) = (p.work_dir.join("layer-012"), p.work_dir.join("buckets-012"));
            let merging =
                |live: &LayersLive| buckets.is_dir() && layer.is_dir() && live.parts_done.load(Ordering::Relaxed) >= 3;
            if !try_stop_when(&p, merging) {
                return None;
            }
            let left = (0..8).any(|j| buckets.join(format!("part-{j:04}.bkt")).is_file());
            let j = (0..8).find(|j| layer.join(format!("part-{j:04}.lyr")).is_file())?;
            assert!(!buckets.join(format!("part-{j:04}.bkt")).exists());
            left.then_some((dir, p, layer, j))
        })
        .expect("in five tries, no run stopped in the merge of layer 12 with a part merged");
    let part = layer.join(format!("part-{j:04}.lyr"));
    let mut bytes = std::fs::read(&part).unwrap();
    let (_, start, len) = sections(&bytes)[0];
    bytes[start + len / 2] ^= 0x10;
    std::fs::write(&part, bytes).unwrap();
    let never = AtomicBool::new(false);
    let e = resume::<B6>(&p.work_dir, None, &settings(), &never, &LayersLive::default()).unwrap_err();
    assert!(e.damaged_file(), "{e}");
    let e = e.to_string();
    assert!(!e.contains('\n') && !e.contains("bucket"), "{e}");
    assert!(e.contains(&format!("layer-012/part-{j:04}.lyr")) && e.contains("damaged"), "{e}");
}

/// Issue 52, kill storm: a layered run killed after writing its result and
/// before exiting, then resumed as a stopped run is (`resume DIR`), had
/// finished: the resume names the result files written before and writes
/// no second result (a `-2` pair, the same run twice in --out); a CSV the
/// kill left unwritten is written beside its JSON. Another --out gets the
/// result.
#[test]
fn a_finished_layered_run_resumed_again_writes_no_second_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let count =
        ["count", "--engine", "layers", "--size", "6", "--max-discs", "8", "--work-dir", "w", "--out", "o", "-q"];
    let out = run_in(d, &count);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first = names(&d.join("o"));
    assert_eq!(first.len(), 2, "{first:?}");
    let out = run_in(d, &["resume", "w", "--out", "o", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("its results were written before") && err.contains(&first[1]), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["layers"].as_array().unwrap().len(), 5);
    assert_eq!(names(&d.join("o")), first);
    // killed between the JSON and the CSV
    std::fs::remove_file(d.join("o").join(&first[0])).unwrap();
    let out = run_in(d, &["resume", "w", "--out", "o", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&d.join("o")), first);
    let out = run_in(d, &["resume", "w", "--out", "o2", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&d.join("o2")).len(), 2);
}

/// Issue 52, kill storm: `resume DIR` without --out (the command a stopped
/// layered run prints) writes its result into the run's --out (manifest
/// version 8 keeps it, absolute), from whatever directory it runs in; it
/// wrote into results/runs/ under the current directory. A resume given
/// --out writes there, and later resumes keep it.
#[test]
fn a_layered_resume_writes_into_the_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let count =
        ["count", "--engine", "layers", "--size", "6", "--max-discs", "8", "--work-dir", "w", "--out", "o", "-q"];
    let out = run_in(d, &count);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&elsewhere, &["resume", "../w", "--max-discs", "9", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&d.join("o")).len(), 4);
    assert!(names(&elsewhere).is_empty(), "{:?}", walk(&elsewhere));
    let out = run_in(d, &["inspect", "w"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let o = std::fs::canonicalize(d).unwrap().join("o");
    assert!(text.contains(&format!("settings a resume keeps: --out {}", o.display())), "{text}");
    let out = run_in(d, &["resume", "w", "--max-discs", "10", "--out", "o2", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&elsewhere, &["resume", "../w", "--max-discs", "11", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(names(&d.join("o")).len(), 4);
    assert_eq!(names(&d.join("o2")).len(), 4);
    assert!(names(&elsewhere).is_empty(), "{:?}", walk(&elsewhere));
}
