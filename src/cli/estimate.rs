//! `othello-census estimate`: a sampling run (a resolve, `--resolve`,
//! is `resolve.rs`).

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{Context, bail};

use super::args::EstimateArgs;
use super::estimate_doc::report;
use super::run::{Progress, human_duration, note, watched};
use super::search_setup::{
    census_layer_source, check_memory, lock_progress, read_census_layer_source, remove_spent_progress,
    report_encoding_defects,
};

use othello_census::estimate::{
    CensusLayer, Estimate, EstimateConfig, EstimateId, EstimateLive, Keeper, estimate_kept,
};
use othello_census::key::Keyed;
use othello_census::search::reachable::{LayerHeld, SEARCH_GENERATION, default_frontier_discs};
use othello_census::with_geometry;

/// `20,24-28` or `all` (5 to N*N).
fn parse_discs(spec: &str, n: u32) -> anyhow::Result<Vec<u32>> {
    let max = n * n;
    if spec.trim() == "all" {
        return Ok((5..=max).collect());
    }
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let (a, b): (u32, u32) = (
            a.parse().with_context(|| format!("--discs: {part:?} is not a disc count or a range K-L"))?,
            b.parse().with_context(|| format!("--discs: {part:?} is not a disc count or a range K-L"))?,
        );
        if a > b {
            bail!("--discs: {part} is a reversed range; give the smaller count first ({b}-{a})");
        }
        if a < 4 || b > max {
            bail!("--discs: {part} is outside 4..={max} on a {n}x{n} board");
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

pub fn run(a: &EstimateArgs, command_line: &str) -> anyhow::Result<ExitCode> {
    if let Some(out) = &a.out {
        super::run::check_out_dir(out)?;
    }
    if let Some(file) = &a.resolve {
        return super::resolve::resolve_run(a, file, command_line);
    }
    if a.time.is_some_and(|t| t.is_zero()) {
        bail!("--time 0 is for a resolve (it searches nothing new); give a sampling time, e.g. --time 10m");
    }
    let (cfg, reserved) = config(a)?;
    let (e, kept) = with_geometry!(a.size, G => {
        let source = census_layer_source::<G>(a.census_layer.as_deref(), a.odd_pass_census.as_deref(), cfg.frontier_discs, reserved)?;
        // the run's lock before the census layer is read (minutes for a
        // large one): keyed on the classes its header gives, which are the
        // ID's own for a whole layer; an odd-pass census holds fewer (the
        // reading counts them), so its early lock is marked apart by the
        // top bit, and the lock of its own ID is taken after the reading
        let early = match &a.out {
            Some(dir) => {
                let classes = source.as_ref().map_or(0, |(s, _)| match s.held() {
                    LayerHeld::Whole => s.layer().1,
                    LayerHeld::OddPasses => s.layer().1 | 1 << 63,
                });
                let id = EstimateId::of(a.size.n(), &cfg, SEARCH_GENERATION, classes);
                Some((EstimateKeeper::lock(dir, id)?, id))
            }
            None => None,
        };
        let layer = read_census_layer_source(source, a.quiet)?;
        let classes = layer.as_ref().map_or(0, |l| l.keys.len() as u64);
        let kept = match (&a.out, early) {
            (Some(dir), Some(early)) => Some(EstimateKeeper::open(dir, early, EstimateId::of(a.size.n(), &cfg, SEARCH_GENERATION, classes), &cfg.layers, a.quiet)?),
            _ => None,
        };
        watched_estimate::<G>(a, &cfg, layer, kept)
    });
    if e.samples == 0 && !e.interrupted {
        let read = e.census_layer.as_ref().map_or(String::new(), |l| {
            format!(" (reading the census layer took {})", super::run::human_duration(l.read_seconds))
        });
        bail!("no sample was drawn within the time given{read}; give a longer --time");
    }
    // a run stopped early whose progress is kept writes no document: the
    // same command goes on and writes the whole one (an interrupted
    // document the catalogue would refuse, beside it, is only in the way)
    let resumable = e.interrupted && kept.as_ref().is_some_and(|k| k.saved);
    report(a, &e, command_line, !resumable)?;
    report_encoding_defects();
    if e.interrupted {
        note(match kept.as_ref().filter(|k| k.saved) {
            Some(k) => format!(
                "stopped early by a signal: {} samples, the figures above are theirs; no document is written: the \
                 progress is kept in {}, and the same command goes on from it to the whole run's figures",
                e.samples,
                k.path.display()
            ),
            None => format!(
                "stopped early by a signal: {} samples, the figures above are theirs (the JSON says \"interrupted\": \
                 true; the same seed and --samples reproduce them only when the run ends on its own){}",
                e.samples,
                if kept.is_some() {
                    "; its progress could not be kept (see the warning above), so it does not go on"
                } else {
                    "; with --out DIR a run keeps its progress and goes on"
                }
            ),
        });
        return Ok(ExitCode::from(130));
    }
    // the document holds it all now
    if let Some(k) = kept {
        k.finish();
    }
    let untried = e.undecided_samples.iter().filter(|u| u.untried).count();
    if untried > 0 {
        note(format!(
            "the time limit passed inside the last round: {untried} of its samples got the cheap conditions and \
             the relaxation but no search, and count as undecided (marked \"untried\" in the document); \
             `estimate --resolve FILE` with this run's search settings searches only them and gives the figures \
             of a run that had not been cut"
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The estimate's settings from its arguments: the layers, the frontier
/// and the searches (checked to fit: the bytes they take), the threads,
/// and 100,000 samples where neither a sample count nor a time is given.
fn config(a: &EstimateArgs) -> anyhow::Result<(EstimateConfig, u64)> {
    let layers = parse_discs(&a.discs, a.size.n())?;
    let frontier_discs = a.frontier.unwrap_or_else(|| default_frontier_discs(a.size));
    let threads = othello_census::engine::resources::threads(a.threads);
    let reserved = check_memory(a.size, frontier_discs, &a.limits(), threads, false)?;
    let samples = match (a.samples, a.time) {
        (Some(s), _) => Some(s),
        (None, None) => Some(100_000),
        (None, Some(_)) => None,
    };
    if let Some(s) = samples
        && s < layers.len() as u64
    {
        bail!("--samples {s} is fewer than the {} layers asked; give at least one sample per layer", layers.len());
    }
    Ok((
        EstimateConfig {
            layers,
            samples,
            time: a.time,
            seed: a.seed,
            limits: a.limits(),
            frontier_discs,
            threads,
            focus: a.focus.into(),
        },
        reserved,
    ))
}

/// An estimate's progress kept in its `--out` directory
/// ([`othello_census::estimate::EstimateProgress`]): the lock that keeps a
/// second process from the same estimate, and what an earlier run of it
/// drew.
struct EstimateKeeper {
    id: EstimateId,
    path: std::path::PathBuf,
    /// The lock of its ID, and the one taken before the census layer was
    /// read where that was another's.
    _locks: Vec<othello_census::formats::atomic::FileLock>,
    from: Option<othello_census::estimate::EstimateProgress>,
    /// Whether the last write of the file succeeded (so that it holds
    /// the state the run stopped in).
    saved: bool,
}

/// How often an estimate's progress file is rewritten while it samples.
const ESTIMATE_KEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

impl EstimateKeeper {
    /// Takes the lock of the estimate of ID `id` in `dir` (refused in one
    /// line while another process holds it).
    fn lock(dir: &std::path::Path, id: EstimateId) -> anyhow::Result<othello_census::formats::atomic::FileLock> {
        lock_progress(dir, &id.path_in(dir), &id.lock_in(dir), "estimate")
    }

    /// The progress of the estimate of ID `id` in `dir`, `early` the
    /// lock taken before its census layer was read
    /// ([`EstimateKeeper::lock`], and its ID): its own where the IDs
    /// agree, else its own is taken now, and both are held.
    fn open(
        dir: &std::path::Path,
        early: (othello_census::formats::atomic::FileLock, EstimateId),
        id: EstimateId,
        layers: &[u32],
        quiet: bool,
    ) -> anyhow::Result<EstimateKeeper> {
        let path = id.path_in(dir);
        let mut locks = vec![early.0];
        if early.1 != id {
            locks.push(EstimateKeeper::lock(dir, id)?);
        }
        let from = othello_census::estimate::read_estimate_progress(&path, id, layers)
            .map_err(|e| anyhow::anyhow!("{e}; move it aside to start this estimate afresh"))?;
        if let Some(p) = &from
            && !quiet
        {
            note(format!(
                "going on from {}: {} samples in {} rounds, {} run so far",
                path.display(),
                p.samples(),
                p.rounds,
                human_duration(p.elapsed_seconds)
            ));
        }
        Ok(EstimateKeeper { id, path, _locks: locks, from, saved: false })
    }

    /// Removes the progress file: the run's document is written.
    fn finish(self) {
        remove_spent_progress(&self.path, "estimate's document");
    }
}

/// Runs the estimate with its progress shown (and kept, in `kept`),
/// stopped by a signal.
fn watched_estimate<G: Keyed>(
    a: &EstimateArgs,
    cfg: &EstimateConfig,
    layer: Option<CensusLayer<G>>,
    mut kept: Option<EstimateKeeper>,
) -> (Estimate, Option<EstimateKeeper>) {
    let n = a.size.n();
    let live = EstimateLive::default();
    let stop = super::signals::stop_flag();
    let mut display = Progress::new(a.quiet, a.progress_every);
    let started = std::time::Instant::now();
    let from = kept.as_mut().and_then(|k| k.from.take());
    let path = kept.as_ref().map(|k| k.path.clone());
    // a write that fails is said once; the run goes on (its document is
    // what matters)
    let (mut failed, mut saved) = (false, false);
    let mut keep = |p: &othello_census::estimate::EstimateProgress| {
        let Some(path) = &path else { return };
        saved = match othello_census::estimate::write_estimate_progress(path, p) {
            Ok(()) => true,
            Err(e) => {
                if !std::mem::replace(&mut failed, true) {
                    note(format!("warning: the progress could not be kept ({e}); the run goes on"));
                }
                false
            }
        };
    };
    let mut keeper = kept.as_ref().map(|k| Keeper::new(k.id, ESTIMATE_KEEP_EVERY, &mut keep));
    let e = {
        watched(
            std::time::Duration::from_millis(250),
            || estimate_kept::<G>(cfg, layer, &live, from, keeper.as_mut()),
            || {
                if stop.load(Ordering::Relaxed) {
                    live.stop.store(true, Ordering::Relaxed);
                }
                display.update(|| {
                    let (done, planned) = (live.samples.load(Ordering::Relaxed), live.planned.load(Ordering::Relaxed));
                    let secs = started.elapsed().as_secs_f64();
                    if done == 0 {
                        return format!(
                            "estimate {n}x{n}: building the frontier ({} discs), {}",
                            cfg.frontier_discs,
                            human_duration(secs)
                        );
                    }
                    let eta = if planned > done {
                        format!(", ETA {}", human_duration(secs * (planned - done) as f64 / done as f64))
                    } else {
                        String::new()
                    };
                    format!(
                        "estimate {n}x{n}: {done} of {planned} samples, {} reachable{eta}; {}",
                        live.reachable.load(Ordering::Relaxed),
                        human_duration(secs)
                    )
                })
            },
        )
    };
    display.finish();
    if let Some(k) = kept.as_mut() {
        k.saved = saved;
    }
    (e, kept)
}
