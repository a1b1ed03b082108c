//! Probe (issue 50): a greedy best-first backward search on 8x8 positions
//! read from stdin, one a line (`reachable`'s notation): every position
//! met goes into one priority queue, and the best scored is expanded next
//! (its predecessors, un-moves and the un-pass, kept where they pass the
//! cheap conditions and were not met before), until one is in the
//! frontier (a game: reachable) or NODES positions were expanded. A
//! finder of games only: it proves nothing unreachable. Ishii and Tanaka
//! (Game Programming Workshop 2025) decide most of their last positions
//! with a search of this kind meeting a forward set; this one is written
//! anew to measure whether such a search finds the games of the dense
//! odd-pass samples that the exact encoding takes minutes on.
//!
//! Usage: gbfs_probe FRONTIER NODES [SCORE], SCORE one of `product` (the
//! default, Ishii and Tanaka's kind: 2^discs times the sum of
//! 1/(occupied pairs + 1) and 1/(same-colour pairs + 1)), `discs` (fewest
//! discs first, then the most compact) or `compact` (most compact first,
//! then fewest discs).
//!
//! Prints per position: discs, found or not, positions expanded and met,
//! the fewest discs of a position expanded, the discs of the un-passes on
//! the line found, seconds.
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::BufRead;

use othello_census::board::{B8, Position};
use othello_census::search::reachable::{Frontier, cheap_conditions, predecessors};
use rustc_hash::{FxHashMap, FxHashSet};

/// Adjacent pairs (one square of `a`, one of `b`) along the four
/// directions east, south, south-east and south-west, on 8x8.
fn pairs(a: u64, b: u64) -> u32 {
    let col0 = 0x0101_0101_0101_0101u64;
    let last = col0 << 7;
    let east = (a & !last) << 1;
    let south = a << 8;
    let south_east = (a & !last) << 9;
    let south_west = (a & !col0) << 7;
    (east & b).count_ones() + (south & b).count_ones() + (south_east & b).count_ones() + (south_west & b).count_ones()
}

/// A position as a key: its discs by colour, and the side to move.
type Key = (u64, u64, bool);

fn key(p: &Position<B8>) -> Key {
    (p.black().0, p.white().0, p.side_to_move() == othello_census::board::Color::Black)
}

/// The score to minimise, as an order-preserving integer.
fn score(p: &Position<B8>, how: &str) -> u64 {
    let (b, w) = (p.black().0, p.white().0);
    let occ = b | w;
    let adj = pairs(occ, occ);
    let same = pairs(b, b) + pairs(w, w);
    match how {
        "discs" => (u64::from(p.discs()) << 32) | u64::from(1000 - adj - same),
        "compact" => (u64::from(1000 - adj - same) << 32) | u64::from(p.discs()),
        _ => {
            let s = 2f64.powi(p.discs() as i32) * (1.0 / f64::from(adj + 1) + 1.0 / f64::from(same + 1));
            s.to_bits()
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frontier_discs: u32 = args[0].parse().unwrap();
    let nodes: u64 = args[1].parse().unwrap();
    let how = args.get(2).map_or("product", String::as_str).to_string();
    let t0 = std::time::Instant::now();
    let frontier = Frontier::<B8>::build(frontier_discs);
    eprintln!(
        "frontier of {frontier_discs} discs: {} classes in {:.1} s",
        frontier.classes(),
        t0.elapsed().as_secs_f64()
    );
    let positions: Vec<Position<B8>> =
        std::io::stdin().lock().lines().map(|l| Position::<B8>::parse(l.unwrap().trim()).unwrap()).collect();
    let mut found_all = 0;
    for target in &positions {
        let t = std::time::Instant::now();
        let mut queue: BinaryHeap<Reverse<(u64, Key)>> = BinaryHeap::new();
        let mut by_key: FxHashMap<Key, Position<B8>> = FxHashMap::default();
        // each position met, with the one it was met from (to read the
        // line back once the frontier is met)
        let mut parent: FxHashMap<Key, Key> = FxHashMap::default();
        let mut seen: FxHashSet<Key> = FxHashSet::default();
        seen.insert(key(target));
        by_key.insert(key(target), *target);
        queue.push(Reverse((score(target, &how), key(target))));
        let mut expanded = 0u64;
        let mut preds = Vec::new();
        let mut met = None;
        let mut lowest = target.discs();
        'search: while let Some(Reverse((_, k))) = queue.pop() {
            if expanded >= nodes {
                break;
            }
            let p = by_key[&k];
            lowest = lowest.min(p.discs());
            expanded += 1;
            preds.clear();
            predecessors(&p, &mut preds);
            for q in preds.drain(..) {
                if !cheap_conditions::<B8>(q.black().0, q.white().0) || !seen.insert(key(&q)) {
                    continue;
                }
                parent.insert(key(&q), k);
                by_key.insert(key(&q), q);
                if q.discs() <= frontier_discs {
                    if frontier.contains(&q) {
                        met = Some(q);
                        break 'search;
                    }
                    continue;
                }
                queue.push(Reverse((score(&q, &how), key(&q))));
            }
        }
        // the line from the frontier up: where its first un-pass lies (a
        // step that keeps the board)
        // line, each step checked forward with the rules
        let mut pass_at = Vec::new();
        if let Some(mut q) = met {
            found_all += 1;
            while let Some(up) = parent.get(&key(&q)) {
                let up = by_key[up];
                if up.discs() == q.discs() {
                    assert!(q.legal_moves().0 == 0 && key(&q.pass()) == key(&up), "a bad un-pass");
                    pass_at.push(q.discs());
                } else {
                    assert!(q.children().iter().any(|c| key(c) == key(&up)), "a bad un-move");
                }
                q = up;
            }
            assert_eq!(key(&q), key(target));
        }
        println!(
            "{} {} expanded={expanded} met={} lowest={lowest} pass_at={pass_at:?} {:.1}s",
            target.discs(),
            if met.is_some() { "found" } else { "none" },
            seen.len(),
            t.elapsed().as_secs_f64()
        );
    }
    println!("found {found_all} of {} ({how}, {nodes} nodes each)", positions.len());
}
