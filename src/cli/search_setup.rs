//! What `estimate`, its resolve and `reachable` check and read before
//! they search: the frontier and the memory it needs, the census layer
//! they search from, the lock of a progress file, and the encoding's
//! defects they report after.

use anyhow::{Context, bail};

use super::run::note;

use othello_census::board::BoardSize;
use othello_census::estimate::{CensusLayer, CensusLayerSource};
use othello_census::key::Keyed;
use othello_census::search::reachable::{Frontier, LayerHeld, Search, default_frontier_discs};
use othello_census::with_geometry;

/// Refuses a frontier that would not fit the memory available, before
/// any work.
pub(super) fn check_frontier(size: BoardSize, discs: u32) -> anyhow::Result<()> {
    let need = with_geometry!(size, G => Frontier::<G>::bytes_needed(discs));
    if let Some(avail) = othello_census::engine::memory::available_memory()
        && need > avail as f64 * 0.8
    {
        bail!(
            "--frontier {discs} would hold every reachable position up to {discs} discs, about {} of memory, more \
             than this machine has free ({}); give a smaller --frontier (the default is {})",
            othello_census::text::human_bytes(need),
            othello_census::text::human_bytes(avail as f64),
            default_frontier_discs(size)
        );
    }
    Ok(())
}

/// Refuses a frontier, or `threads` searches of `limits` (with a carry
/// each where `carry`: `--carry-exact`), that would not fit the memory
/// available, before any work; the bytes they take at most (what a
/// census layer must leave them).
pub(super) fn check_memory(
    size: BoardSize,
    frontier_discs: u32,
    limits: &othello_census::estimate::SearchLimits,
    threads: usize,
    carry: bool,
) -> anyhow::Result<u64> {
    let othello_census::estimate::SearchLimits { budget, beam_width, sweep_width, .. } = *limits;
    check_frontier(size, frontier_discs)?;
    // the beams' memory comes first: what is left bounds the searches'
    // (a thread's sweep runs after its beam has let its memory go)
    let beams =
        with_geometry!(size, G => Search::<G>::beam_bytes(beam_width).max(Search::<G>::sweep_bytes(sweep_width)))
            .saturating_mul(threads as u64);
    let available = othello_census::engine::memory::available_memory();
    // --carry-exact: each thread's exact search may hold a carry's
    // buffers besides (CARRY_PEAK_BYTES), taken from the same share
    let carries =
        if carry { othello_census::search::game_encoding::CARRY_PEAK_BYTES.saturating_mul(threads as u64) } else { 0 };
    // each thread's exact search holds its solver besides (exact_peak_bytes)
    let solvers = if limits.exact_conflicts > 0 {
        with_geometry!(size, G => othello_census::search::game_encoding::exact_peak_bytes::<G>())
            .saturating_mul(threads as u64)
    } else {
        0
    };
    // one share for all: the refusal names the exact searches where they
    // hold a carry or the most, the beams otherwise
    let held = beams.saturating_add(carries).saturating_add(solvers);
    if let Some(free) = available
        && held > free / 5 * 2
    {
        let human = |b: u64| othello_census::text::human_bytes(b as f64);
        if carries > 0 || solvers > beams {
            bail!(
                "{} on {threads} thread(s): the exact searches{} may hold up to {}{}, more than two fifths of the \
                 memory free ({}); give fewer --threads{}{}",
                if carries > 0 { "--carry-exact" } else { "--exact-conflicts" },
                if carries > 0 { "' solvers and carries" } else { "' solvers" },
                human(carries + solvers),
                if beams > 0 { format!(" besides the beams' {}", human(beams)) } else { String::new() },
                human(free),
                if beams > 0 { ", a smaller --beam-width or --sweep-width" } else { "" },
                if carries > 0 { "" } else { ", or --exact-conflicts 0 (no exact encoding)" }
            );
        }
        bail!(
            "--beam-width {beam_width} and --sweep-width {sweep_width} on {threads} thread(s): the beams may hold up \
             to {}, more than two fifths of the memory free ({}); give a smaller --beam-width or --sweep-width, or \
             fewer --threads",
            human(beams),
            human(free)
        );
    }
    let searches = with_geometry!(size, G => othello_census::estimate::searches_fit::<G>(
        frontier_discs,
        budget,
        threads,
        available.map(|a| a - held)
    ))
    .map_err(|e| {
        anyhow::anyhow!(
            "--budget {} on {} thread(s): each search may hold up to {} (a class for each position it refutes), {} \
             with the frontier, more than this machine has free ({}); give {}a --budget of at most {} on {} thread(s)",
            e.budget,
            e.threads,
            othello_census::text::human_bytes(e.one as f64),
            othello_census::text::human_bytes(e.need as f64),
            othello_census::text::human_bytes(e.available as f64),
            if e.threads > 1 { "fewer --threads or " } else { "" },
            e.fits,
            e.threads
        )
    })?;
    Ok(searches + held)
}

/// Says on stderr when a game read from the exact encoding's models did
/// not replay (answered as undecided, so no count is wrong, but the
/// encoding has a defect).
pub(super) fn report_encoding_defects() {
    let n = othello_census::search::game_encoding::non_replaying_games();
    if n > 0 {
        note(format!(
            "warning: {n} games read from the exact encoding's models did not replay with the rules; those \
             samples were left undecided, so no figure is wrong, but the encoding has a defect: please report it"
        ));
    }
}

/// Takes the lock `lock_file` of the run (`what`) whose progress file is
/// `path` in `dir` (created if need be), and removes what a kill in the
/// middle of a write of that file left (only the lock's holder writes
/// it).
pub(super) fn lock_progress(
    dir: &std::path::Path,
    path: &std::path::Path,
    lock_file: &std::path::Path,
    what: &'static str,
) -> anyhow::Result<othello_census::formats::atomic::FileLock> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(othello_census::formats::atomic::lock_writer(path, lock_file, what)?)
}

/// Removes the progress file `path` once the run's `document` is
/// written: a failure is only said (the document holds everything).
pub(super) fn remove_spent_progress(path: &std::path::Path, document: &str) {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => note_unremoved(path, document, &e),
    }
}

/// Says that the progress file `path` outlived the run's `document`
/// (written) because it could not be removed.
pub(super) fn note_unremoved(path: &std::path::Path, document: &str, e: &std::io::Error) {
    note(format!("warning: the {document} is written, but {} could not be removed ({e}); remove it", path.display()));
}

/// The census layer of the directory `whole` (every class of its layer)
/// or `odd` (its odd-pass positions), read with a note unless `quiet`.
pub(super) fn read_census_layer<G: Keyed>(
    whole: Option<&std::path::Path>,
    odd: Option<&std::path::Path>,
    frontier_discs: u32,
    reserved: u64,
    quiet: bool,
) -> anyhow::Result<Option<CensusLayer<G>>> {
    read_census_layer_source(census_layer_source::<G>(whole, odd, frontier_discs, reserved)?, quiet)
}

/// The census layer of `whole` or `odd` ([`read_census_layer`]), opened
/// (its header read and checked, refused in one line when the census
/// cannot serve or does not fit) but not read; with its flag.
pub(super) fn census_layer_source<G: Keyed>(
    whole: Option<&std::path::Path>,
    odd: Option<&std::path::Path>,
    frontier_discs: u32,
    reserved: u64,
) -> anyhow::Result<Option<(CensusLayerSource<G>, &'static str)>> {
    let (dir, held, flag) = match (whole, odd) {
        (Some(dir), _) => (dir, LayerHeld::Whole, "--census-layer"),
        (None, Some(dir)) => (dir, LayerHeld::OddPasses, "--odd-pass-census"),
        (None, None) => return Ok(None),
    };
    let memory = othello_census::estimate::census_layer_memory(reserved);
    let source = CensusLayerSource::<G>::open(dir, frontier_discs, held, memory).map_err(|e| layer_error(e, flag))?;
    Ok(Some((source, flag)))
}

/// A census layer's error, under the flag (`flag`) that gave it, with the
/// flags that make a layer too large for the memory fit.
fn layer_error(e: othello_census::estimate::CensusLayerError, flag: &str) -> anyhow::Error {
    match e {
        othello_census::estimate::CensusLayerError::TooLarge { path, classes, discs, need, memory } => {
            anyhow::anyhow!(
                "{flag}: {}: {classes} classes of {discs} discs need {} in memory, more than the {} left for them \
                 beside the searches; use --odd-pass-census (its odd-pass positions only), a census to fewer discs, \
                 or fewer --threads or a smaller --budget where the searches take much",
                path.display(),
                othello_census::text::human_bytes(need as f64),
                othello_census::text::human_bytes(memory as f64)
            )
        }
        e => anyhow::Error::new(e).context(flag.to_string()),
    }
}

/// Reads the census layer opened by [`census_layer_source`], with a note
/// unless `quiet`.
pub(super) fn read_census_layer_source<G: Keyed>(
    source: Option<(CensusLayerSource<G>, &'static str)>,
    quiet: bool,
) -> anyhow::Result<Option<CensusLayer<G>>> {
    let Some((source, flag)) = source else { return Ok(None) };
    if !quiet {
        let (discs, classes) = source.layer();
        note(format!(
            "reading the census layer of {discs} discs ({}, of its {classes} classes) from {}",
            held_words(source.held()),
            source.dir().display()
        ));
    }
    let layer = source.read().map_err(|e| layer_error(e, flag))?;
    Ok(Some(layer))
}

/// What a census layer holds, in words.
pub(super) fn held_words(held: LayerHeld) -> &'static str {
    match held {
        LayerHeld::Whole => "positions",
        LayerHeld::OddPasses => "positions that need an odd number of passes",
    }
}

#[cfg(test)]
mod tests {
    use othello_census::estimate::CensusLayerError;

    /// A census layer too large for the memory is said with the flags
    /// that make one fit; any other refusal keeps the flag that gave the
    /// census as its context, once.
    #[test]
    fn census_layer_errors_name_the_flag() {
        let too_large = CensusLayerError::TooLarge { path: "/c".into(), classes: 32, discs: 8, need: 136, memory: 131 };
        let m = format!("{:#}", super::layer_error(too_large, "--census-layer"));
        assert!(
            m.starts_with("--census-layer: /c: 32 classes of 8 discs need 136 B in memory, more than the 131 B"),
            "{m}"
        );
        assert!(m.contains("use --odd-pass-census") && m.contains("fewer --threads or a smaller --budget"), "{m}");
        let other = CensusLayerError::Unsuitable { path: "/c".into(), detail: "a census by ply".into() };
        assert_eq!(
            format!("{:#}", super::layer_error(other, "--odd-pass-census")),
            "--odd-pass-census: /c: a census by ply"
        );
    }
}
