//! `othello-census reproduce published-4x4`.

use std::process::ExitCode;

use serde::Serialize;

use super::args::{ReproduceArgs, Reproducible};
use othello_census::board::B4;
use othello_census::engine::dfs::{DfsConfig, Live, census};
use othello_census::legacy::{Flipping, original_walker};
use othello_census::report::{Table, group_digits};
use othello_census::search::perft::perft;

#[derive(Serialize)]
struct Figure {
    name: &'static str,
    published: u64,
    reproduced: u64,
    reproduced_definition: &'static str,
    standard: u64,
    standard_definition: &'static str,
    standard_walker: u64,
}

pub fn run(a: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    match a.what {
        Reproducible::Published4x4 => published_4x4(a.json),
    }
}

fn published_4x4(json: bool) -> anyhow::Result<ExitCode> {
    let shared = original_walker::<B4>(Flipping::Legacy, true);
    let separate = original_walker::<B4>(Flipping::Legacy, false);
    let standard_walker = original_walker::<B4>(Flipping::Standard, false);
    let config = DfsConfig { threads: 1, max_discs: 16, memory_limit: 1 << 30 };
    let standard = census::<B4>(&config, &Live::default())?.census.totals();
    let games = perft::<B4>(20).last().map_or(0, |r| r.games_including_ended);
    let figures = [
        Figure {
            name: "legal moves",
            published: 24_981,
            reproduced: shared.popped,
            reproduced_definition: "states popped by the original single-threaded walker under legacy-flip \
                (moves in row-major order, terminal keys in the same visited set)",
            standard: standard.positions,
            standard_definition: "distinct reachable positions (board + side to move)",
            standard_walker: standard_walker.popped,
        },
        Figure {
            name: "final board states",
            published: 2_576,
            reproduced: separate.terminal_pairs,
            reproduced_definition: "distinct (terminal board, side that made the last move) pairs under legacy-flip",
            standard: standard.terminal_positions,
            standard_definition: "terminal positions (neither side can move)",
            standard_walker: standard_walker.terminal_pairs,
        },
    ];
    let ok = figures.iter().all(|f| f.published == f.reproduced);
    if json {
        let doc = serde_json::json!({
            "tool": "othello-census",
            "version": env!("CARGO_PKG_VERSION"),
            "command": "reproduce published-4x4",
            "reproduced": ok,
            "figures": figures,
            "standard_games": games,
            "legacy_walker_with_separate_terminal_set": separate,
            "explanation": "docs/published-4x4.md",
        });
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        crate::outln!("The published 4x4 totals of the design document, reproduced under the legacy-flip defect\n")?;
        let mut t = Table::new(["figure", "published", "legacy-flip", "standard rules", "walker, standard"]);
        for f in &figures {
            t.row([
                f.name.to_string(),
                group_digits(f.published),
                group_digits(f.reproduced),
                group_digits(f.standard),
                group_digits(f.standard_walker),
            ]);
        }
        crate::out!("{}", t.render())?;
        crate::outln!()?;
        for f in &figures {
            crate::outln!(
                "{}:\n  legacy-flip:    {}\n  standard rules: {}",
                f.name,
                f.reproduced_definition,
                f.standard_definition
            )?;
        }
        crate::outln!(
            "\nUnder standard rules 4x4 has {} positions, {} terminal positions and {} complete games.\n\
             The same walker with a separate terminal set pops {} states under legacy-flip.\n\
             Why the published figures are not standard Othello: docs/published-4x4.md\n\
             {}",
            group_digits(standard.positions),
            group_digits(standard.terminal_positions),
            group_digits(games),
            group_digits(separate.popped),
            if ok { "reproduced: yes" } else { "reproduced: NO - the figures differ" }
        )?;
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
