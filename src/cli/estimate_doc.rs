//! An estimate's document: written into `--out` and printed, or its
//! table; for a sampling run and a resolve alike.

use anyhow::Context;

use super::args::EstimateArgs;
use super::run::note;
use super::search_setup::held_words;

use othello_census::estimate::Estimate;
use othello_census::report::catalog::Catalog;
use othello_census::report::estimate::{estimate_json, estimate_table};

/// Writes the estimate's JSON into `--out` and prints it, or its table.
pub(super) fn report(a: &EstimateArgs, e: &Estimate, command_line: &str, write: bool) -> anyhow::Result<()> {
    let n = e.n;
    // the exact layers of the catalogue in results/, when there is one
    // (the comparison is an aid, not a check: an unreadable one gives none)
    let exact = Catalog::load(std::path::Path::new("results")).map(|c| c.exact_layers(n)).unwrap_or_default();
    let doc = estimate_json(e, command_line, &exact);
    if let Some(out) = a.out.as_ref().filter(|_| write) {
        let path = othello_census::report::files::fresh_path(
            out,
            // the seed in the name: seeds run on many machines finish in
            // the same second, and the catalogue names an estimate by it
            &format!("estimate-{n}x{n}-{}-seed{}", othello_census::report::files::timestamp_now(), e.seed),
            "json",
        );
        let text = serde_json::to_string_pretty(&doc)? + "\n";
        othello_census::formats::atomic::atomic_write(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        if !a.quiet {
            note(format!("result: {}", path.display()));
        }
    }
    if a.json {
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        crate::out!("{}", estimate_table(e, &exact))?;
        crate::outln!(
            "{n}x{n}, seed {}, {} samples in {} rounds, budget {} positions per search, frontier {} discs ({} classes); {:.1} s on {} threads",
            e.seed,
            e.samples,
            e.rounds,
            e.limits.budget,
            e.frontier_discs,
            e.frontier_classes,
            e.elapsed_seconds,
            e.threads
        )?;
        if let Some(l) = &e.census_layer {
            crate::outln!(
                "census layer: {} classes of {} discs ({}), from {}",
                l.classes,
                l.discs,
                held_words(l.held),
                l.source
            )?;
        }
    }
    Ok(())
}
