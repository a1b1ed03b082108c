//! `othello-census estimate --resolve FILE`: an estimate's undecided
//! samples decided again, with its progress kept and its document
//! written anew.

use std::process::ExitCode;

use anyhow::bail;
use serde_json::json;

use super::args::EstimateArgs;
use super::estimate_doc::report;
use super::run::note;
use super::search_setup::{check_memory, held_words, note_unremoved, read_census_layer, report_encoding_defects};

use othello_census::board::BoardSize;
use othello_census::estimate::{Estimate, with_census_layer};
use othello_census::estimate::{KeeperError, ResolveKeeper, SelectionRefusal};
use othello_census::report::estimate::{CensusLayerRefusal, ResolveAt, ResolveRefusal};
use othello_census::search::reachable::{Frontier, LayerHeld};
use othello_census::with_geometry;

/// The commands that made `doc`, first to last: those its own resolve
/// record lists (documents from 2026-11-29 on), then its command.
fn commands_before(doc: &serde_json::Value) -> Vec<String> {
    let earlier = doc["resolved"]["from_commands"].as_array().map_or(&[][..], |v| v.as_slice());
    earlier.iter().chain(std::iter::once(&doc["command"])).filter_map(|c| c.as_str().map(str::to_string)).collect()
}

/// `estimate --resolve FILE`: the undecided samples of a finished
/// estimate decided again at a larger budget, reported as a new estimate.
pub(super) fn resolve_run(a: &EstimateArgs, file: &std::path::Path, command_line: &str) -> anyhow::Result<ExitCode> {
    use othello_census::search::reachable::SEARCH_GENERATION;
    let what = format!("--resolve {}", file.display());
    if matches!(file.try_exists(), Ok(false)) {
        bail!(
            "{what}: no such file; if a catalogue holds the run, `othello-census catalog export ID --out FILE` \
             writes its document back (ID as the catalogue's runs column names it)"
        );
    }
    let text = super::catalog::read_document(file, &what)?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{what}: not a JSON document ({e})"))?;
    let checked =
        othello_census::report::estimate::validate_estimate(&doc).map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
    let listed: Vec<othello_census::estimate::UndecidedSample> = match &doc["undecided_samples"] {
        serde_json::Value::Null => bail!(
            "{what}: the document does not list its undecided samples (written before commit 141e833); run the \
             estimate again with this build"
        ),
        v => serde_json::from_value(v.clone()).map_err(|e| anyhow::anyhow!("{what}: bad undecided samples ({e})"))?,
    };
    // the rules of a resolve (stronger limits, or a partial document's
    // own; never a weaker last stage) are the library's; their words here
    let limits = a.limits();
    let relaxed = checked.relaxation_conflicts;
    let at = checked.check_resolve(&limits, SEARCH_GENERATION).map_err(|refusal| match refusal {
        ResolveRefusal::NewerGeneration => anyhow::anyhow!(
            "{what}: its searches are of generation {}, newer than this build's ({SEARCH_GENERATION}): decide it \
             again with the build that wrote it or a newer one",
            checked.search_generation
        ),
        ResolveRefusal::NotStronger => anyhow::anyhow!(
            "--budget {} is not larger than the document's {}: give a larger --budget, or the same with a \
             --beam-width wider than its {}, or the same beam with a --sweep-width wider than its {} (and than \
             the beam: a narrower sweep is never tried), or the same sweep with --exact-conflicts above its {}{}",
            limits.budget,
            checked.budget,
            checked.beam_width,
            checked.sweep(),
            checked.exact_conflicts,
            if checked.untried > 0 {
                format!(
                    "; or, to search its {} untried samples (a partial document), exactly its settings",
                    checked.untried
                )
            } else {
                String::new()
            }
        ),
        ResolveRefusal::FewerExactConflicts => anyhow::anyhow!(
            "{what}: its exact encoding had {} conflicts, --exact-conflicts {} would give it fewer: give at least {}",
            checked.exact_conflicts,
            limits.exact_conflicts,
            checked.exact_conflicts
        ),
        ResolveRefusal::OtherExactSolver => anyhow::anyhow!(
            "{what}: its exact encoding was solved by {0}, this would use {1}: give --sat-solver {0} (a build with \
             --features cadical for the CaDiCaL ones)",
            checked.exact_solver,
            limits.exact_solver.name()
        ),
        ResolveRefusal::OtherRelaxation => anyhow::anyhow!(
            "{what}: a partial document goes on at its own settings: give --sat-conflicts {relaxed}, not {}",
            limits.relaxation_conflicts
        ),
        ResolveRefusal::FewerRelaxationConflicts => anyhow::anyhow!(
            "{what}: its flip-history relaxation had {relaxed} conflicts, --sat-conflicts {} would give it fewer: \
             give at least {relaxed}",
            limits.relaxation_conflicts
        ),
    })?;
    let stronger = at == ResolveAt::Stronger;
    if a.time.is_some() && a.out.is_none() {
        bail!("--time with --resolve needs --out DIR: the partial document and the progress are kept there");
    }
    if a.part.is_some() && a.time.is_some_and(|t| t.is_zero()) {
        bail!(
            "--time 0 writes the partial document of what is kept, and a part writes no document: give --part a \
             positive --time (it stops then, keeping what it decided), or drop --part"
        );
    }
    if a.carry_exact
        && (limits.exact_conflicts == 0 || limits.exact_solver == othello_census::search::game_encoding::Solver::BatSat)
    {
        bail!(
            "--carry-exact keeps what CaDiCaL learned in the exact encoding's searches: give --exact-conflicts above \
             0, with a build that has CaDiCaL (--features cadical) and without --sat-solver batsat"
        );
    }
    if let Some(first) = a.exact_first
        && !othello_census::estimate::first_round_fits(first, limits.exact_conflicts)
    {
        bail!(
            "--exact-first {first}: a first round needs fewer conflicts than --exact-conflicts {} and more than 0",
            limits.exact_conflicts
        );
    }
    let frontier_discs = doc["frontier_discs"].as_u64().ok_or_else(|| anyhow::anyhow!("{what}: no frontier"))? as u32;
    let size = BoardSize::from_n(checked.n)?;
    let threads = othello_census::engine::resources::threads(a.threads);
    let reserved = check_memory(size, frontier_discs, &limits, threads, a.carry_exact)?;
    // what this resolve decided before it was stopped or killed, kept in
    // --out (the census layer is checked below to be the document's)
    let census_classes = checked.census_classes.unwrap_or(0);
    let id = othello_census::estimate::ResolveId::of(text.as_bytes(), SEARCH_GENERATION, &limits, census_classes);
    let older = othello_census::estimate::ResolveId::before_20261128(
        text.as_bytes(),
        SEARCH_GENERATION,
        &limits,
        census_classes,
    );
    let progress = match &a.out {
        Some(dir) => Some(open_keeper(dir, id, older, &listed, &a.gather, a.quiet)?),
        None => None,
    };
    // which samples: every undecided one at stronger limits, a partial
    // document's untried ones at its own; of them, --subsample's members
    // (the others stay as they are, so that what this document decides
    // beyond the document given is the subsample's alone); of those, this
    // --part's share. A later subsample must hold the document's own.
    let one_in = a.subsample.unwrap_or(1);
    let before_sub: Option<othello_census::estimate::SubsampleSearched> = match &doc["resolved"]["subsample"] {
        serde_json::Value::Null => None,
        v => Some(
            serde_json::from_value(v.clone())
                .map_err(|e| anyhow::anyhow!("{what}: a bad record of its subsample ({e})"))?,
        ),
    };
    let selection =
        othello_census::estimate::select(checked.seed, &listed, stronger, one_in, before_sub.as_ref(), a.part)
            .map_err(|refusal| match refusal {
                SelectionRefusal::BadRecord { one_in: bad } => {
                    anyhow::anyhow!(
                        "{what}: a bad record of its subsample (one in {bad}, not a power of two from 1 to {})",
                        othello_census::estimate::MAX_ONE_IN
                    )
                }
                SelectionRefusal::EndsDoubleSampling => anyhow::anyhow!(
                    "--subsample {one_in}: the document ends a double sampling (a resolve without --subsample \
                     searched beyond its subsample), so its undecided samples depend on which were in it: they \
                     cannot serve as a first phase; resolve it without --subsample"
                ),
                SelectionRefusal::NotHeld { held } => anyhow::anyhow!(
                    "--subsample {one_in}: the document's verdicts beyond its first phase are of the subsample of \
                     one in {held}, which one in {one_in} does not hold: give --subsample {held} or a smaller power \
                     of two (or none, which ends the double sampling)"
                ),
                SelectionRefusal::NoneInSubsample { wanted } => anyhow::anyhow!(
                    "--subsample {one_in}: none of the {wanted} samples to search is in the subsample of one in \
                     {one_in}: nothing to search; a smaller D widens it (without --subsample: every sample)"
                ),
            })?;
    let (wanted, to_try, outside, mine) = (selection.wanted, &selection.to_try, &selection.outside, &selection.mine);
    let outside_count = outside.len();
    let started = std::time::Instant::now();
    let deferred_total;
    let e = with_geometry!(size, G => {
        othello_census::estimate::check_undecided::<G>(checked.seed, &checked.layers, &listed)
            .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
        let layer = read_census_layer::<G>(a.census_layer.as_deref(), None, frontier_discs, reserved, a.quiet)?;
        let given = layer.as_ref().map(|l| (l.discs, l.held));
        let classes = layer.as_ref().map_or(0, |l| l.keys.len() as u64);
        checked.check_census_layer(given, classes).map_err(|refusal| {
            match refusal {
                CensusLayerRefusal::Other => {
                    let name = |l: Option<(u32, LayerHeld)>| {
                        l.map_or("no census layer".to_string(), |(k, h)| {
                            format!("a census layer of {k} discs ({})", held_words(h))
                        })
                    };
                    anyhow::anyhow!(
                        "{what}: its searches used {}, these would use {}: give --census-layer with the census it \
                         used, or none",
                        name(checked.census_layer),
                        name(given)
                    )
                }
                CensusLayerRefusal::OtherClasses { held } => anyhow::anyhow!(
                    "{what}: its census layer held {held} classes, this one {classes}: give --census-layer with the \
                     census it used"
                ),
            }
        })?;
        let (frontier, used) = with_census_layer(Frontier::<G>::build(frontier_discs), layer);
        let frontier_seconds = started.elapsed().as_secs_f64();
        let before = progress.as_ref().map_or(&[][..], |p| p.before());
        let waiting = progress.as_ref().map_or(&[][..], |p| p.waiting());
        let taken: std::collections::HashSet<(u32, u64)> = before.iter().map(|d| (d.discs, d.index)).collect();
        if !a.quiet {
            note(format!(
                "deciding again {} undecided samples of seed {}{}{} at a budget of {} positions{}{}",
                mine.iter().filter(|u| !taken.contains(&(u.discs, u.index))).count(),
                checked.seed,
                if outside.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (the subsample of one in {one_in}: {} of the {} to search; the other {} stay as they are)",
                        to_try.len(),
                        wanted,
                        outside.len()
                    )
                },
                a.part.map_or(String::new(), |(k, n)| format!(
                    " (part {k} of {n}: {} of the {} to search{})",
                    mine.len(),
                    to_try.len(),
                    if to_try.len() < listed.len() { format!(", of {} listed", listed.len()) } else { String::new() }
                )),
                limits.budget,
                match a.exact_first {
                    Some(first) => format!(
                        ", first with the exact encoding at {first} conflicts, then those left at {}{}",
                        limits.exact_conflicts,
                        if waiting.is_empty() {
                            String::new()
                        } else {
                            format!(" ({} left by a first round already)", waiting.len())
                        }
                    ),
                    None => String::new(),
                },
                if before.is_empty() {
                    String::new()
                } else {
                    format!(" ({} more searched again already, taken from progress files)", before.len())
                }
            ));
        }
        if progress.is_none() && !a.quiet {
            note("no --out: the samples decided are not kept until the end; give --out DIR to resume after a stop");
        }
        let keep = |d: othello_census::estimate::Searched| {
            if let Some(p) = &progress {
                p.add(d);
            }
        };
        let searching = std::time::Instant::now();
        let signal = super::signals::stop_flag();
        let deadline = a.time.map(|t| started + t);
        let stop = || {
            signal.load(std::sync::atomic::Ordering::Relaxed)
                || deadline.is_some_and(|d| std::time::Instant::now() >= d)
        };
        // the progress is written by a thread of its own every KEEP_EVERY
        // while samples finish (a sample that ends just after a write is
        // not left unwritten until the next one ends, minutes later)
        let searching_done = std::sync::atomic::AtomicBool::new(false);
        let carry = match (&a.out, a.carry_exact) {
            (Some(dir), true) => {
                Some(othello_census::estimate::CarryDir::new(&dir.join(othello_census::estimate::CARRY_DIR)))
            }
            _ => None,
        };
        let r = std::thread::scope(|scope| {
            if let Some(p) = &progress {
                scope.spawn(|| {
                    p.keep_writing(&searching_done, |e| {
                        note(format!("warning: cannot keep the resolve's progress ({e}); it goes on"))
                    })
                });
            }
            let r = othello_census::estimate::resolve_carried::<G>(
                &frontier,
                checked.seed,
                limits,
                a.exact_first.unwrap_or(0),
                threads,
                &checked.layers,
                mine,
                before,
                waiting,
                &keep,
                &stop,
                carry.as_ref().map(|c| c as &dyn othello_census::search::game_encoding::CarryStore),
            );
            searching_done.store(true, std::sync::atomic::Ordering::Relaxed);
            r
        })
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
        if let Some(c) = &carry {
            report_carry(c, a.quiet);
        }
        // a part writes no document; nor does a run without --out (nothing
        // of it is kept), nor one stopped before this resolve searched any
        // sample (its document would decide nothing the document given
        // did not, yet claim this resolve's settings and generation)
        let none_searched = r.untried == mine.len();
        if r.untried > 0 && (a.part.is_some() || progress.is_none() || none_searched) {
            let by_signal = signal.load(std::sync::atomic::Ordering::Relaxed);
            let why = if by_signal { "a signal" } else { "--time" };
            match &progress {
                Some(p) if !by_signal && a.time.is_some_and(|t| t.is_zero()) => {
                    p.flush()?;
                    let held = if r.deferred > 0 {
                        format!(
                            "{} holds {} left by a first round for the second, none decided",
                            p.path().display(),
                            r.deferred
                        )
                    } else {
                        format!(
                            "{} holds none of its samples{}",
                            p.path().display(),
                            if a.gather.is_empty() { ", and no --gather was given" } else { ", nor do the files gathered" }
                        )
                    };
                    note(format!(
                        "--time 0: nothing decided is kept for this resolve ({held}): no document written, the \
                         document given is as it was"
                    ));
                }
                Some(p) => {
                    let kept = p.flush()?;
                    // a part stopped (its machine's time is up, say) also
                    // leaves its copy, for a gather to take what it decided
                    let copy = match a.part {
                        Some((k, n)) => {
                            let (copy, _) = p.write_part_copy(k, n)?;
                            format!(" (and in {}, to gather with --gather)", copy.display())
                        }
                        None => String::new(),
                    };
                    note(format!(
                        "stopped by {why}{}: no document written, the document given is as it was; the {kept} \
                         samples decided again so far are kept in {}{copy}{}, and the same command resumes after them",
                        if none_searched && a.part.is_none() && r.deferred == 0 {
                            " before a sample was searched"
                        } else {
                            ""
                        },
                        p.path().display(),
                        deferred_words(r.deferred)
                    ));
                }
                None => note(format!("stopped by {why}: nothing written, the document given is as it was")),
            }
            report_encoding_defects();
            // a signal is an interruption; a stop by --time is the unit's
            // end, as when it writes a partial document
            return Ok(ExitCode::from(if by_signal { 130 } else { 0 }));
        }
        // stopped: the progress file gets the last samples too, for the
        // same command to resume after them (the writer thread has ended)
        if r.untried > 0
            && let Some(p) = &progress
        {
            p.flush()?;
        }
        if let Some((k, n)) = a.part {
            let p = progress.as_ref().expect("clap requires --out with --part");
            let kept = p.flush()?;
            let (copy, _) = p.write_part_copy(k, n)?;
            report_encoding_defects();
            if a.json {
                // a script running the parts reads what each left where
                let doc = json!({
                    "part": k,
                    "parts": n,
                    "resolve_id": format!("{:016x}", id.0),
                    "samples_listed": listed.len(),
                    "samples_to_search": to_try.len(),
                    "samples_of_this_part": mine.len(),
                    "samples_kept": kept,
                    "progress_file": p.path().display().to_string(),
                    "part_file": copy.display().to_string(),
                });
                crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
            }
            note(format!(
                "part {k} of {n} done: its share, {} of the {} samples to search, searched again; {kept} in all \
                 kept in {} and in {}. No document is written: copy the parts' .part-K-of-N.progress files to one \
                 machine and run this resolve there without --part, with --gather FILE...",
                mine.len(),
                to_try.len(),
                p.path().display(),
                copy.display()
            ));
            return Ok(ExitCode::SUCCESS);
        }
        let seconds = searching.elapsed().as_secs_f64();
        let decided = (to_try.len() - r.still.len()) as u64;
        // the list in the document's order
        let still = selection.undecided_after(&listed, r.still);
        let layers = r.layers;
        let untried = r.untried as u64;
        deferred_total = r.deferred;
        let [total_positions, total_terminal_positions, total_classes] = othello_census::estimate::totals(&layers);
        let number = |field: &str| doc[field].as_f64().unwrap_or(0.0);
        Estimate {
            n: checked.n,
            search_generation: SEARCH_GENERATION,
            layers,
            undecided_samples: still,
            total_positions,
            total_terminal_positions,
            total_classes,
            samples: doc["samples"].as_u64().unwrap_or(0),
            rounds: doc["rounds"].as_u64().unwrap_or(0) as u32,
            seed: checked.seed,
            limits,
            focus: checked.focus,
            frontier_discs,
            frontier_classes: frontier.classes() as u64,
            frontier_seconds,
            census_layer: used,
            elapsed_seconds: number("elapsed_seconds") + started.elapsed().as_secs_f64(),
            threads,
            interrupted: false,
            resolved: Some(othello_census::estimate::Resolved {
                from_budget: checked.budget,
                from_commit: doc["commit"].as_str().unwrap_or("unknown").to_string(),
                retried: to_try.len() as u64 - untried,
                decided,
                untried,
                seconds,
                from_id: file.file_stem().map(|s| s.to_string_lossy().into_owned()),
                from_commands: commands_before(&doc),
                subsample: selection.subsample_record(
                    before_sub.as_ref(),
                    file.file_stem().map(|s| s.to_string_lossy().into_owned()),
                    &checked.layers,
                ),
            }),
        }
    });
    report(a, &e, command_line, true)?;
    report_encoding_defects();
    let untried = e.resolved.as_ref().map_or(0, |r| r.untried);
    if untried > 0 {
        let stopped_by_signal = super::signals::stop_flag().load(std::sync::atomic::Ordering::Relaxed);
        // stopped: the progress stays for the same command to resume
        note(format!(
            "stopped ({}) with {untried} samples not searched{}: the partial document written holds every verdict \
             reached (its untried samples stay undecided, marked so). The same command resumes after what was \
             searched; a resolve of the partial document at the same settings searches only its untried samples",
            if stopped_by_signal { "a signal" } else { "--time" },
            if deferred_total > 0 {
                format!(" at --exact-conflicts ({deferred_total} of them left by the first round, kept for the second)")
            } else {
                String::new()
            }
        ));
        return Ok(if stopped_by_signal { ExitCode::from(130) } else { ExitCode::SUCCESS });
    }
    // a subsample's resolve keeps its progress file: a resolve of the
    // same document and limits without the limit shares it, and may hold
    // verdicts of samples outside the subsample
    if let Some(p) = progress
        && outside_count == 0
    {
        let path = p.path().to_path_buf();
        if let Err(e) = p.finish() {
            note_unremoved(&path, "resolved document", &e);
        }
    }
    if let Some(sub) = e.resolved.as_ref().and_then(|r| r.subsample.as_ref())
        && sub.outside > 0
    {
        note(format!(
            "the subsample of one in {} is searched; the {} samples outside it stay undecided, marked untried (a \
             smaller --subsample, or none, searches them)",
            sub.one_in, sub.outside
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// ", N of them left by a first round for the second" where N > 0.
fn deferred_words(n: usize) -> String {
    if n == 0 { String::new() } else { format!(", {n} more left by a first round (--exact-first) for the second") }
}

/// Opens the progress of resolve `id` in `dir`
/// ([`othello_census::estimate::ResolveKeeper`]) and takes the parts'
/// files `gather`, saying what was taken unless `quiet` (and, even with
/// `quiet`, when another resolve's progress lies beside a fresh start).
fn open_keeper(
    dir: &std::path::Path,
    id: othello_census::estimate::ResolveId,
    older: Option<othello_census::estimate::ResolveId>,
    listed: &[othello_census::estimate::UndecidedSample],
    gather: &[std::path::PathBuf],
    quiet: bool,
) -> anyhow::Result<ResolveKeeper> {
    let opened = ResolveKeeper::open(dir, id, older, listed)?;
    let mut keeper = opened.keeper;
    if let Some(old) = &opened.took_older
        && !quiet
    {
        note(format!("took {} (an older build's name for this resolve) as {}", old.display(), keeper.path().display()));
    }
    if !opened.others.is_empty() {
        // most likely meant to resume that file (another build's search
        // generation, other settings): said even with -q, as hours of
        // work may hang on it
        note(format!(
            "note: {} holds the progress of another resolve ({}); this one ({}) starts from none. A resolve's ID \
             changes with the document, the settings and the build's search generation: to resume that file, run \
             the build and settings that wrote it",
            dir.display(),
            opened.others.join(", "),
            keeper.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
        ));
    }
    if (!keeper.before().is_empty() || !keeper.waiting().is_empty()) && !quiet {
        note(format!(
            "resuming from {}: {} of {} samples decided{}",
            keeper.path().display(),
            keeper.before().len(),
            listed.len(),
            deferred_words(keeper.waiting().len())
        ));
    }
    if !gather.is_empty() {
        let added = keeper.gather(gather, id, older, listed).map_err(|e| match e {
            KeeperError::GatherUnreadable(_) => anyhow::anyhow!("--gather: {e}"),
            KeeperError::GatherMissing(_) | KeeperError::GatherConflict { .. } => anyhow::anyhow!("--gather {e}"),
            e => e.into(),
        })?;
        if !quiet {
            note(format!(
                "gathered {added} samples from {} into {}: {} of the {} listed searched again",
                othello_census::text::plural(gather.len() as u64, "progress file"),
                keeper.path().display(),
                keeper.before().len(),
                listed.len()
            ));
        }
    }
    Ok(keeper)
}

/// What the exact searches' carry files did: a problem always (a carry
/// lost costs time, not a verdict), the counts unless quiet.
fn report_carry(c: &othello_census::estimate::CarryDir, quiet: bool) {
    if let Some(problem) = c.problem() {
        note(format!("warning: an exact search's carry file: {problem}"));
    }
    if !quiet {
        let ((written, resumed), (files, bytes)) = (c.counts(), c.on_disk());
        note(format!(
            "exact searches: {resumed} given a carry, {written} carries written; {files} carry files ({:.1} MB) \
             kept for samples not yet decided",
            bytes as f64 / 1e6
        ));
    }
}
