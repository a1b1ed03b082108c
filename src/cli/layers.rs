//! `count --engine layers`, `resume DIR` and `inspect DIR`.

use othello_census::text::shell_path;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::bail;

use super::args::{InspectArgs, LayersCount, OutputArgs, ResumeArgs};
use super::run::{EXIT_INTERRUPTED, Progress, check_out_dir, human_duration, memory_limit, note, report_once, watched};
use super::signals::stop_flag;
use othello_census::board::BoardSize;
use othello_census::census::LayerBy;
use othello_census::engine::feasibility;
use othello_census::engine::layers::commit::read_state;
use othello_census::engine::layers::inspect::inspect;
use othello_census::engine::layers::store::Phase;
use othello_census::engine::layers::transport::launcher;
use othello_census::engine::layers::{
    CompactionMode, LayersError, LayersLive, LayersOutcome, LayersPlan, LayersSettings, MAX_PLIES, Ranks, Transport,
    WorkDir, driver,
};
use othello_census::engine::memory::default_layers_memory;
use othello_census::report::census::{RunInfo, stats_map};
use othello_census::report::files::{peak_rss_bytes, timestamp_now};
use othello_census::report::group_digits;
use othello_census::{software, with_geometry};

pub fn count(a: &LayersCount, command_line: &str, ranks: &Ranks) -> anyhow::Result<ExitCode> {
    let stop = stop_flag();
    let n = a.size.n();
    let (by, limit) = (a.by, a.limit);
    let work_dir = a.work_dir.clone().unwrap_or_else(|| {
        PathBuf::from("checkpoints").join(format!(
            "{n}x{n}-layers-{}{limit}-{}-{}",
            by.name(),
            timestamp_now(),
            std::process::id()
        ))
    });
    // every rank works in the directory rank 0 names
    let work_dir = PathBuf::from(
        String::from_utf8_lossy(&ranks.broadcast(work_dir.to_string_lossy().into_owned().into_bytes())).into_owned(),
    );
    if ranks.rank() == 0 {
        if WorkDir::new(&work_dir).is_running() {
            bail!(
                "{}: another othello-census process is running this work directory (run.lock is held); wait for it \
                 to finish, or give another --work-dir",
                work_dir.display()
            );
        }
        if WorkDir::is_work_dir(&work_dir) {
            bail!(
                "{} already holds a layered run; continue it with `{}othello-census resume {}`",
                work_dir.display(),
                launcher(ranks),
                shell_path(&work_dir)
            );
        }
        check_out_dir(&a.output.out_dir())?;
        othello_census::formats::atomic::check_writable_dir(&work_dir.join("run.manifest"))
            .map_err(|e| anyhow::anyhow!("cannot write the work directory {} ({e})", work_dir.display()))?;
        check_reach(a, by, limit, &work_dir, ranks.ranks() as usize)?;
    }
    let settings = LayersSettings {
        disk_limit: a.disk,
        store_last: a.store_last,
        compaction: if a.compact_buckets { CompactionMode::Always } else { CompactionMode::Auto },
        slices: a.slices,
        // absolute: a resume may run in another directory
        out: Some(absolute(&a.output.out_dir())),
        ..LayersSettings::new(
            othello_census::engine::resources::threads(a.threads),
            memory_limit(a.memory, default_layers_memory, "sort buffers", a.output.quiet || ranks.rank() > 0)?,
        )
    };
    check_overhead(settings.threads, a.partitions, settings.memory_limit)?;
    let plan = LayersPlan {
        by,
        limit,
        partitions: a.partitions,
        work_dir: work_dir.clone(),
        command: command_line.to_string(),
        started_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
    };
    let live = LayersLive::default();
    let result = with_geometry!(a.size, G => watch(ranks, &live, &a.output, || {
        driver::start::<G, _>(ranks, &plan, &settings, stop, &live)
    }));
    finish(result, &work_dir, &settings, &a.output, false, ranks)
}

/// Memory a layered run holds whatever its --memory, beside its sort
/// buffers: per thread (stack, expansion buffers), per partition (its
/// writer and merge state) and per thread and partition (each thread's
/// buffer for each partition's bucket). Measured peak RSS on 4x4 with
/// --memory 1MiB: 8 MiB at 1 thread and 16 partitions, 21 MiB at 64
/// threads, 45 MiB at 1 thread and 4096 partitions, 172 MiB at 64 threads
/// and 4096, 538 MiB at 256 and 4096; rounded up.
fn overhead_bytes(threads: usize, partitions: u32) -> u64 {
    let (t, p) = (threads as u64, u64::from(partitions));
    t.saturating_mul(256 << 10)
        .saturating_add(p.saturating_mul(12 << 10))
        .saturating_add(t.saturating_mul(p).saturating_mul(768))
}

/// Allowance for [`overhead_bytes`] below which --memory is not asked to
/// hold it (any run holds some megabytes; tests run at --memory 1MiB).
const OVERHEAD_FLOOR: u64 = 64 << 20;

/// Refuses threads and partitions whose fixed memory exceeds --memory (and
/// [`OVERHEAD_FLOOR`]): --threads 1024 --partitions 4096 --memory 1MiB took
/// 3.1 GB, unbounded by the limit.
fn check_overhead(threads: usize, partitions: u32, memory_limit: u64) -> anyhow::Result<()> {
    let need = overhead_bytes(threads, partitions);
    if need > memory_limit.max(OVERHEAD_FLOOR) {
        let human = |b: u64| othello_census::text::human_bytes(b as f64);
        bail!(
            "{threads} threads and {partitions} partitions hold about {} of buffers whatever --memory is, more than --memory {}: give fewer --threads or --partitions, or a --memory of at least {}",
            human(need),
            human(memory_limit),
            human(need)
        );
    }
    Ok(())
}

/// Refuses a run whose disk is far beyond what the machine (or the ranks'
/// machines, counted alike) holds: four times the free disk or the --disk
/// budget, against an optimistic estimate of the run's peak disk.
fn check_reach(a: &LayersCount, by: LayerBy, limit: u32, work_dir: &Path, ranks: usize) -> anyhow::Result<()> {
    let discs = match by {
        LayerBy::Discs => limit,
        LayerBy::Ply => limit.saturating_add(4),
    };
    let free = othello_census::engine::resources::free_disk(work_dir).map_or(f64::INFINITY, |b| b as f64);
    let room = a.disk.map_or(free, |d| d as f64).min(free) * ranks.max(1) as f64;
    // a last layer that is not stored is counted in slices that fit: the
    // layer before it bounds the run
    let need = feasibility::layered_peak_disk(a.size, if a.store_last { discs } else { discs.saturating_sub(1) });
    if a.force || need <= 4.0 * room {
        return Ok(());
    }
    let within = feasibility::layered_discs_within(a.size, room);
    let (what, fits) = match by {
        LayerBy::Discs => (format!("to {limit} discs"), format!("--max-discs {within}")),
        LayerBy::Ply => (
            if limit == MAX_PLIES { "to the end of every game".to_string() } else { format!("to ply {limit}") },
            format!("--plies {}", within.saturating_sub(4).max(1)),
        ),
    };
    bail!(
        "a layered census of {} {what} needs an estimated {} of disk at its largest layer, but {} is \
         at hand; {fits} fits here (docs/distributed.md sizes larger runs over MPI ranks), or add --force to \
         start it anyway",
        a.size,
        othello_census::text::human_bytes(need),
        othello_census::text::human_bytes(room)
    )
}

pub fn resume_dir(a: &ResumeArgs, ranks: &Ranks) -> anyhow::Result<ExitCode> {
    let stop = stop_flag();
    if a.output.checkpoint_every.is_some() {
        bail!("--checkpoint-every is for the dfs engine; a layered run checkpoints every layer and partition");
    }
    if !ranks.distributed()
        && let Some(n) = WorkDir::new(&a.file).ranks()
    {
        bail!(
            "{} was made by {n} MPI ranks; resume it with `mpirun -np {n} othello-census resume {}` \
             (a build with --features mpi)",
            a.file.display(),
            shell_path(&a.file)
        );
    }
    // rank 0 holds the manifest; the others learn the run's size and layering
    let m = if ranks.rank() == 0 { Some(read_state(&WorkDir::new(&a.file))?) } else { None };
    let head = ranks.broadcast(m.as_ref().map_or(Vec::new(), |m| {
        let mut b = m.run.size.to_le_bytes().to_vec();
        b.push(m.run.by);
        b.extend_from_slice(&m.run.memory_limit.to_le_bytes());
        let s = &m.settings;
        b.extend_from_slice(&s.slices.unwrap_or(0).to_le_bytes());
        b.push(s.compact_always as u8);
        b.extend_from_slice(&s.disk_limit.unwrap_or(0).to_le_bytes());
        b
    }));
    let run_size = u32::from_le_bytes(head[0..4].try_into()?);
    let by = LayerBy::from_code(head[4]).unwrap_or(LayerBy::Discs);
    let saved_memory = u64::from_le_bytes(head[5..13].try_into()?);
    // the disk settings the run was given (manifest version 7), kept
    // where this resume gives none: a resume as the stop message words it
    // runs as the run was started
    let saved_slices = Some(u32::from_le_bytes(head[13..17].try_into()?)).filter(|&k| k > 0);
    let saved_compact = head[17] != 0;
    let saved_disk = Some(u64::from_le_bytes(head[18..26].try_into()?)).filter(|&d| d > 0);
    let limit = match (by, a.max_discs, a.plies) {
        (_, Some(_), Some(_)) => bail!("give --max-discs (a run by discs) or --plies (a run by ply), not both"),
        (LayerBy::Discs, _, Some(_)) => bail!("{} is a run by discs: extend it with --max-discs", a.file.display()),
        (LayerBy::Ply, Some(_), _) => bail!("{} is a run by ply: extend it with --plies", a.file.display()),
        (LayerBy::Discs, Some(k), None) if k > run_size * run_size => {
            bail!("--max-discs {k} is more than the {} squares of the board", run_size * run_size)
        }
        (_, k, p) => k.or(p),
    };
    if let Some(m) = &m
        && !a.output.quiet
        && m.software != software()
    {
        note(format!("{} was last written by {}; this is {}", a.file.display(), m.software, software()));
    }
    if let Some(m) = &m
        && m.phase == Phase::Slicing
        && a.layered.slices.is_some_and(|k| k != m.slicing.slices)
    {
        note(format!(
            "{} counts its last layer in the {} slices it began with ({} done); --slices is kept for a layer \
             not yet sliced",
            a.file.display(),
            m.slicing.slices,
            m.slicing.done
        ));
    }
    let size = BoardSize::from_n(run_size)?;
    // the --out given, or the run's (manifest version 8), or the default
    let out_dir = match (&a.output.out, m.as_ref().and_then(|m| m.out.as_ref())) {
        (Some(o), _) => absolute(o),
        (None, Some(kept)) => PathBuf::from(kept),
        (None, None) => absolute(&a.output.out_dir()),
    };
    if ranks.rank() == 0 {
        check_out_dir(&out_dir)?;
    }
    let settings = LayersSettings {
        disk_limit: a.layered.disk.or(saved_disk),
        store_last: !a.layered.no_store_last,
        compaction: if a.layered.compact_buckets || saved_compact {
            CompactionMode::Always
        } else {
            CompactionMode::Auto
        },
        slices: a.layered.slices.or(saved_slices),
        out: Some(out_dir),
        ..LayersSettings::new(
            othello_census::engine::resources::threads(a.threads),
            memory_limit(Some(a.memory.unwrap_or(saved_memory)), default_layers_memory, "", true)?,
        )
    };
    if let Some(m) = &m {
        check_overhead(settings.threads, m.run.partitions, settings.memory_limit)?;
    }
    let live = LayersLive::default();
    let result = with_geometry!(size, G => watch(ranks, &live, &a.output, || {
        driver::resume::<G, _>(ranks, &a.file, limit, &settings, stop, &live)
    }));
    finish(result, &a.file, &settings, &a.output, true, ranks)
}

/// `p` made absolute (as it is where that fails).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Time to merge one class of the next layer, as a share of the time to
/// expand one parent, used until a merge has been timed in this process
/// (each future layer costs its merge and its expansion). Measured: 8x8
/// ply 12 at 4 GiB, 20.05 M parents of ply 11 expanded in 15.0 s, the
/// 140.6 M classes of ply 12 merged and counted in 10.3 s (0.10); 6x6
/// layer 20, slice 1 of 2, 5.67 G parents in 79 min, its 11.7 G classes
/// merged in 13 min (0.08); rounded up. (It was 1.0, a share per layer
/// read as one per class: the last slice of 6x6 layer 20 showed a run ETA
/// of 4-8 h with 25 min left.)
const MERGE_OVERHEAD: f64 = 0.15;

/// Seconds a layer's expansion is watched before its rate and growth
/// price the rest of the run ([`layers_message`]).
const RUN_ETA_AFTER: f64 = 5.0;

/// The progress message of a layered run: the phase of the current layer
/// and, while expanding, the ETA of the layer and of the whole run, from
/// the measured rate and the growth of the last layer. `merged` is how
/// long the merge that made the current layer took, when this process
/// timed it: merges then cost their measured rate (a compacting expansion
/// can be 30 times slower than a merge, so expansion rates misprice them).
fn layers_message(live: &LayersLive, since: (u64, f64), merged: Option<f64>, total_secs: f64) -> String {
    let slice = live.slice.load(Ordering::Relaxed);
    let layer = match slice {
        0 => live.layer.load(Ordering::Relaxed).to_string(),
        s => format!("{} (slice {} of {})", live.layer.load(Ordering::Relaxed), s >> 32, s & 0xffff_ffff),
    };
    let msg = if live.phase.load(Ordering::Relaxed) == 0 {
        let (done, total) = (live.done.load(Ordering::Relaxed), live.total.load(Ordering::Relaxed).max(1));
        // the rate since the watcher first saw this phase
        let rate = done.saturating_sub(since.0) as f64 / since.1.max(1e-3);
        let layer_eta = (total.saturating_sub(done)) as f64 / rate.max(1.0);
        let previous = live.previous.load(Ordering::Relaxed);
        let left = live.limit.load(Ordering::Relaxed).saturating_sub(live.layer.load(Ordering::Relaxed));
        if rate < 1.0 {
            return format!(
                "layer {layer}: expanding {} of {} classes, measuring the rate; {} in all",
                group_digits(done),
                group_digits(total),
                human_duration(total_secs)
            );
        }
        // the run's ETA extrapolates this layer's rate and growth to every
        // later layer: on a layer measured for a moment both are noise (4 s
        // into an 11 s run it said ~31 min), so only once the layer has
        // been watched for RUN_ETA_AFTER seconds
        let run_eta = if previous > 0 && since.1 < RUN_ETA_AFTER {
            format!(", run ETA once a layer has run {RUN_ETA_AFTER:.0} s")
        } else if previous > 0 {
            let growth = total as f64 / previous as f64;
            let merge_rate = match merged {
                Some(secs) if secs > 0.0 => total as f64 / secs,
                _ => rate / MERGE_OVERHEAD,
            };
            // every later layer is merged, and expanded unless it is the last
            let mut future = 0.0;
            let mut size = total as f64;
            let later = left.min(400);
            for i in 0..later {
                size *= growth;
                future += size / merge_rate.max(1.0);
                if i + 1 < later {
                    future += size / rate;
                }
            }
            // a last layer counted in slices: each slice expands the whole
            // parent again, and merges its share of the next layer
            let (i, k) = (slice >> 32, slice & 0xffff_ffff);
            if slice != 0 && k > 0 {
                future = (k - i) as f64 * total as f64 / rate + future * (k - i + 1) as f64 / k as f64;
            }
            // after a resume no merge has been timed: say how merges were priced
            let priced = if merged.is_some() { "" } else { "; merges not timed yet, priced from past runs" };
            format!(
                ", run ETA ~{} (from the growth of the last layer, {growth:.2}x{priced})",
                human_duration(layer_eta + future)
            )
        } else {
            String::new()
        };
        format!(
            "layer {layer}: expanding {} of {} classes ({:.0}%), {} classes/s, layer ETA {}{run_eta}",
            group_digits(done),
            group_digits(total),
            100.0 * done as f64 / total as f64,
            group_digits(rate as u64),
            human_duration(layer_eta),
        )
    } else {
        format!(
            "layer {layer}: merging, {} of {} partitions",
            live.parts_done.load(Ordering::Relaxed),
            live.partitions.load(Ordering::Relaxed)
        )
    };
    format!("{msg}; {} in all", human_duration(total_secs))
}

/// Runs `job` while the progress display follows the layers (on rank 0
/// alone, under MPI: its share of each layer).
fn watch<T: Send>(ranks: &Ranks, live: &LayersLive, out: &OutputArgs, job: impl FnOnce() -> T + Send) -> T {
    if ranks.rank() > 0 {
        return job();
    }
    let mut progress = Progress::new(out.quiet, out.progress_every);
    let started = Instant::now();
    // (layer, phase) as last seen, when, and how many classes were done then
    let mut seen = ((u64::MAX, u64::MAX), Instant::now(), 0u64);
    // how long the last merge took, seen from its start to the next phase
    let mut merged = None;
    let result = watched(Duration::from_millis(100), job, || {
        let key = (live.layer.load(Ordering::Relaxed), live.phase.load(Ordering::Relaxed));
        if key != seen.0 {
            let was_merge = seen.0.0 != u64::MAX && seen.0.1 != 0;
            merged = if was_merge && key.1 == 0 { Some(seen.1.elapsed().as_secs_f64()) } else { None };
            seen = (key, Instant::now(), live.done.load(Ordering::Relaxed));
        }
        progress.update(|| {
            layers_message(live, (seen.2, seen.1.elapsed().as_secs_f64()), merged, started.elapsed().as_secs_f64())
        });
    });
    progress.finish();
    result
}

fn finish(
    result: Result<LayersOutcome, LayersError>,
    work_dir: &Path,
    settings: &LayersSettings,
    out: &OutputArgs,
    resumed: bool,
    ranks: &Ranks,
) -> anyhow::Result<ExitCode> {
    // every rank reaches this point together (the driver agrees on errors)
    let rss = ranks.gather(peak_rss_bytes().unwrap_or(0));
    if ranks.rank() > 0 {
        return match result {
            Ok(_) => Ok(ExitCode::SUCCESS),
            Err(LayersError::Interrupted(_)) => Ok(ExitCode::from(EXIT_INTERRUPTED)),
            Err(e) => Err(e.into()),
        };
    }
    let outcome = match result {
        Ok(o) => o,
        Err(LayersError::Interrupted(dir)) => {
            note(format!(
                "interrupted: complete layers, and the rounds of an expansion recorded so far, are kept in {}; \
                 continue with: {}othello-census resume {}",
                dir.display(),
                launcher(ranks),
                shell_path(&dir)
            ));
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        Err(e @ LayersError::Disk { .. }) => bail!(
            "{e}; {}, then continue with `{}othello-census resume {}`",
            // a --disk above the free space is not what stops it
            if matches!(e, LayersError::Disk { what: "is free", .. }) {
                "make room"
            } else {
                "raise --disk (or make room)"
            },
            launcher(ranks),
            shell_path(work_dir)
        ),
        // these say what to do themselves (a locked directory is another
        // process's to continue: no "resume" advice)
        Err(e @ (LayersError::WorkDir { .. } | LayersError::Locked(_))) => return Err(e.into()),
        Err(e) if e.damaged_file() => bail!(
            "{e}; resuming cannot get past a damaged file: restore it from a copy and resume, or start the run \
             again in a new work directory"
        ),
        Err(e) if read_state(&WorkDir::new(work_dir)).is_ok() => bail!(
            "{e}; what was complete is kept: continue with `{}othello-census resume {}` once the cause is fixed",
            launcher(ranks),
            shell_path(work_dir)
        ),
        Err(e) => return Err(e.into()),
    };
    let stats = outcome.stats(ranks.distributed().then(|| rss.clone()));
    let run = RunInfo {
        command: outcome.command.clone(),
        engine: "layers",
        threads: settings.threads,
        memory_limit: settings.memory_limit,
        elapsed_seconds: outcome.elapsed.as_secs_f64(),
        peak_rss_bytes: peak_rss_bytes(),
        run_files: Some(work_dir.display().to_string()),
        resumed,
        engine_stats: stats_map(&stats),
    };
    // a resume of a run that had finished: its results, when there, are not written again
    let finished_before = resumed && outcome.phases.is_empty();
    let out_dir = settings.out.clone().unwrap_or_else(|| out.out_dir());
    let code = report_once(&out_dir, out.json, out.quiet, &run, &outcome.census, None, finished_before)?;
    if !out.quiet && outcome.last_layer_stored {
        note(format!(
            "the last layer stays in {} ({}); delete the directory when you no longer need it",
            work_dir.display(),
            othello_census::text::human_bytes(WorkDir::new(work_dir).bytes() as f64)
        ));
    }
    Ok(code)
}

/// `inspect DIR`: the state of a layered run, every part's checksums
/// checked.
pub fn inspect_dir(a: &InspectArgs) -> anyhow::Result<ExitCode> {
    let i = inspect(&a.file)?;
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&i)?)?;
    } else {
        crate::outln!(
            "layered run in {dir}, last written by {sw}\n{n}x{n} by {by} up to {limit}, {parts} partitions\n\
             command: {cmd}\nsettings a resume keeps: {settings}\nstate: {state}; {counted}, {secs:.1} s of work, \
             {disk} on disk\nchecksums: {check}",
            dir = a.file.display(),
            sw = i.software,
            n = i.size,
            by = i.by,
            limit = i.limit,
            parts = i.partitions,
            cmd = i.command,
            settings = i.settings.as_options(),
            state = i.state,
            counted = i.counted,
            secs = i.elapsed_seconds,
            disk = othello_census::text::human_bytes(i.bytes as f64),
            check = if i.checksums_ok {
                format!("ok ({} parts of layer {})", i.parts_checked, i.checked_layer)
            } else if i.running {
                format!("{} of {} parts did not check while they are being written", i.problems.len(), i.parts_checked)
            } else {
                format!("FAILED ({} of {} parts)", i.problems.len(), i.parts_checked)
            }
        )?;
        if i.running {
            crate::outln!(
                "running: another othello-census process holds its lock (run.lock); this is a view of a live run,                  inspect it again once the run stops to check every part"
            )?;
        }
    }
    // a part of a live run may be read while it is written: that is no
    // damage (it said FAILED for a moment on a healthy run)
    if i.running {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(first) = i.problems.first() {
        bail!(
            "{first}{}",
            if i.problems.len() > 1 { format!(" (and {} more)", i.problems.len() - 1) } else { String::new() }
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 52, item 10: no run ETA from a layer watched for a moment;
    /// one once it has run long enough to measure.
    #[test]
    fn the_run_eta_waits_for_a_measured_layer() {
        let live = LayersLive::default();
        live.layer.store(8, Ordering::Relaxed);
        live.total.store(1000, Ordering::Relaxed);
        live.done.store(400, Ordering::Relaxed);
        live.previous.store(300, Ordering::Relaxed);
        live.limit.store(16, Ordering::Relaxed);
        let early = layers_message(&live, (0, 0.5), None, 4.0);
        assert!(early.contains("run ETA once a layer has run") && !early.contains("run ETA ~"), "{early}");
        let later = layers_message(&live, (0, RUN_ETA_AFTER + 1.0), None, 20.0);
        assert!(later.contains("run ETA ~"), "{later}");
    }
}
