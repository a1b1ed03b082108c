//! The class a backward search remembers a position by.

use crate::board::{Color, Geometry, Position};
use crate::symmetry::start_images;

use super::centre;

/// The class of `p` as the search remembers it: the least of the four
/// images (the symmetries of the start) of (occupied squares, black
/// discs), with the side to move in the first: the centre is occupied in
/// every position searched and every image, so its lowest square's bit is
/// cleared for White to move. Made on bitboards, cheaper than the dense
/// key.
#[inline]
pub(super) fn class_of<G: Geometry>(p: &Position<G>) -> (u64, u64) {
    let (b, w) = (p.black().0, p.white().0);
    let (occ, black) = (start_images::<G>(b | w), start_images::<G>(b));
    let least = (0..4).map(|i| (occ[i], black[i])).min().expect("four images");
    let white = if p.side_to_move() == Color::White { 1u64 << centre(G::N).trailing_zeros() } else { 0 };
    (least.0 ^ white, least.1)
}
