//! `othello-census reachable`: one position decided, with the stage
//! that decided it and the gist of the proof.

use std::process::ExitCode;

use serde_json::json;

use super::args::ReachableArgs;
use super::search_setup::{check_memory, read_census_layer, report_encoding_defects};

use othello_census::estimate::with_census_layer;
use othello_census::key::Keyed;
use othello_census::search::reachable::{Frontier, Search, Stage, Verdict, WithStages, default_frontier_discs};
use othello_census::with_geometry;

/// What the beam did with an undecided position, for `reachable`'s line.
fn beam_words(width: usize, sweep: usize) -> String {
    let beam = if width == 0 {
        ", no beam (--beam-width 0)".to_string()
    } else {
        format!(", the beam of {width} dropped positions and found no game")
    };
    if sweep > width {
        format!(
            "{beam}, the sweep met a step of more than {sweep} positions or held more than {} in all",
            sweep.saturating_mul(othello_census::search::reachable::SWEEP_HELD)
        )
    } else if sweep == 0 {
        format!("{beam}, no sweep (--sweep-width 0)")
    } else {
        format!("{beam}, no sweep (a --sweep-width of {sweep} is not above the beam's)")
    }
}

/// The gist of a proof that `p` is unreachable, after the stage's name:
/// which cheap condition fails, what the frontier holds, how many
/// positions the walk that ended every line took (`nodes`), what the SAT
/// formula covered and the conflicts its solver spent (`nodes` too).
fn proof_gist<G: othello_census::board::Geometry>(
    p: &othello_census::board::Position<G>,
    stage: Stage,
    nodes: u64,
    frontier_discs: u32,
) -> String {
    use othello_census::search::reachable::{edges_possible, joined_to_centre, placeable, unflipped_consistent};
    use othello_census::text::plural;
    let (b, w) = (p.black().0, p.white().0);
    match stage {
        Stage::Frontier => format!(
            "frontier: not among the reachable positions of at most {frontier_discs} discs, every one enumerated"
        ),
        Stage::Conditions => {
            let failed = if !joined_to_centre::<G>(b | w) {
                "the discs are not all joined to the centre"
            } else if !placeable::<G>(b | w) {
                "the occupied squares cannot be filled one by one by moves that each flip a disc"
            } else if !edges_possible::<G>(b, w) {
                "an edge shows colours that no moves along it can make"
            } else if !unflipped_consistent::<G>(b, w) {
                "a disc that can never have been flipped disagrees with the move that placed it"
            } else {
                "a condition failed on the way"
            };
            format!("cheap conditions: {failed}")
        }
        Stage::FlipHistory => "flip-history relaxation: SAT, unsatisfiable: no order of placements and flips, \
                               turns aside, gives every disc its colour"
            .to_string(),
        Stage::FlipBalance => "flip-count balance: linear program, infeasible (certificate checked in integers): \
                               no numbers of placements and flips give every square its colour"
            .to_string(),
        Stage::Search => format!("backward search: every line ends, {}", plural(nodes, "position")),
        Stage::Exact => format!(
            "exact game encoding: SAT, unsatisfiable for every game of {} moves, passes anywhere, after {}",
            p.discs() - 4,
            plural(nodes, "conflict")
        ),
        Stage::Beam => format!("beam: every line walked, none dropped, {}", plural(nodes, "position")),
        Stage::Sweep => format!("sweep: every line walked, every step whole, {}", plural(nodes, "position")),
    }
}

/// What the proof of [`proof_gist`] counts: the positions a walk visited,
/// or the exact encoding's conflicts.
fn proof_size<G: Keyed>(search: &Search<'_, G>) -> u64 {
    if search.decided_by() == Stage::Exact { search.exact_conflicts_spent() } else { search.nodes() }
}

pub fn run(a: &ReachableArgs) -> anyhow::Result<ExitCode> {
    let size = super::args::size_for_position(a.size, &a.position)?;
    let frontier_discs = a.frontier.unwrap_or_else(|| default_frontier_discs(size));
    let limits = a.limits();
    let reserved = check_memory(size, frontier_discs, &limits, 1, false)?;
    with_geometry!(size, G => {
        let p = othello_census::board::Position::<G>::parse(&a.position).map_err(|e| anyhow::anyhow!("--position: {e}"))?;
        let layer = read_census_layer::<G>(a.census_layer.as_deref(), None, frontier_discs, reserved, a.json)?;
        let (frontier, used) = with_census_layer(Frontier::<G>::build(frontier_discs), layer);
        let mut search = Search::new(&frontier, limits.budget).with_stages(limits.stages());
        let verdict = if used.is_some() { search.decide_with_layer(&p) } else { search.decide(&p) };
        let (word, game) = match &verdict {
            Verdict::Reachable(g) => {
                g.replay().map_err(|e| anyhow::anyhow!("the game found does not replay ({e}): a defect, please report it"))?;
                ("reachable", Some(g.notation()))
            }
            Verdict::Unreachable => ("unreachable", None),
            Verdict::Undecided => ("undecided", None),
        };
        if a.json {
            let doc = json!({
                "tool": "othello-census",
                "version": env!("CARGO_PKG_VERSION"),
                "commit": othello_census::COMMIT,
                "size": size.n(),
                "position": p.line(),
                "verdict": word,
                "game": game,
                "nodes": search.nodes(),
                "stage": search.decided_by().name(),
                "proof": (verdict == Verdict::Unreachable)
                    .then(|| proof_gist(&p, search.decided_by(), proof_size(&search), frontier.discs())),
                // every limit the verdict was reached at, as an estimate
                // document records them, so that the command can be rebuilt
                "budget": limits.budget,
                "sat_conflicts": limits.relaxation_conflicts,
                "beam_width": limits.beam_width,
                "sweep_width": limits.sweep_width,
                "exact_conflicts": limits.exact_conflicts,
                "exact_solver": limits.exact_solver.name(),
                "exact_conflicts_spent": search.exact_conflicts_spent(),
                "frontier_discs": frontier.discs(),
                "census_layer": used,
            });
            crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
        } else {
            crate::out!("{p}")?;
            match &game {
                Some(g) if search.decided_by() == Stage::Exact => crate::outln!(
                    "reachable (found by the exact game encoding), by the game (replayed): {}",
                    g.join(" ")
                )?,
                Some(g) if search.decided_by() == Stage::Beam => crate::outln!(
                    "reachable (found by the beam), by the game (replayed): {}",
                    g.join(" ")
                )?,
                Some(g) if search.decided_by() == Stage::Sweep => crate::outln!(
                    "reachable (found by the sweep), by the game (replayed): {}",
                    g.join(" ")
                )?,
                Some(g) => crate::outln!("reachable, by the game (replayed): {}", g.join(" "))?,
                None if word == "unreachable" => {
                    crate::outln!("unreachable (proven by the {})", proof_gist(&p, search.decided_by(), proof_size(&search), frontier.discs()))?
                }
                None if limits.exact_conflicts > 0 => crate::outln!(
                    "undecided: the search visited its budget of {} positions{}, and the exact encoding spent its {} conflicts (raise --budget, --beam-width, --sweep-width or --exact-conflicts)",
                    limits.budget, beam_words(limits.beam_width, limits.sweep_width), limits.exact_conflicts
                )?,
                None => crate::outln!(
                    "undecided: the search visited its budget of {} positions{} (raise --budget, --beam-width or --sweep-width, or give --exact-conflicts)",
                    limits.budget, beam_words(limits.beam_width, limits.sweep_width)
                )?,
            }
            let layer = used.as_ref().map_or(String::new(), |u| format!(", census layer of {} discs", u.discs));
            crate::outln!("{} positions searched, frontier {} discs{layer}", search.nodes(), frontier.discs())?;
        }
        report_encoding_defects();
        // a verdict is a success; undecided is not an answer
        Ok(if verdict == Verdict::Undecided { ExitCode::from(3) } else { ExitCode::SUCCESS })
    })
}
