//! The principal variation of a solved position, read back through the
//! warm table.

use super::Search;
use crate::board::Bitboard;
use crate::board::movegen::{flips, legal_moves, play};
use crate::key::Keyed;

/// The principal variation from (me to move, opp), whose value for the
/// mover is `value`: at each position a move whose value proves the
/// position's (`None` for a pass), to the end of the game; and the raw
/// disc difference (empties left empty) at its end, for the first mover.
pub(super) fn principal_variation<G: Keyed>(
    search: &mut Search<'_, G>,
    me: u64,
    opp: u64,
    value: i32,
) -> (Vec<Option<u32>>, i32) {
    let mut pv = Vec::new();
    let (mut a, mut b, mut v) = (me, opp, value);
    loop {
        let moves = legal_moves::<G>(a, b);
        if moves == 0 {
            if legal_moves::<G>(b, a) == 0 {
                break;
            }
            pv.push(None);
            (a, b, v) = (b, a, -v);
            continue;
        }
        let mut found = None;
        for sq in Bitboard(moves).iter() {
            let f = flips::<G>(a, b, sq);
            let (ca, cb) = play(a, b, sq, f);
            if -search.pvs(ca, cb, -v - 1, -v + 1) == v {
                found = Some((sq, ca, cb));
                break;
            }
        }
        let (sq, ca, cb) = found.expect("a move proves the value");
        pv.push(Some(sq));
        (a, b, v) = (ca, cb, -v);
    }
    // (a, b) is the final position of the variation, `a` to move
    let (fa, fb) = (a.count_ones() as i32, b.count_ones() as i32);
    let mover_diff = if pv.len().is_multiple_of(2) { fa - fb } else { fb - fa };
    (pv, mover_diff)
}
