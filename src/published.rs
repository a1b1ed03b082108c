//! Published values: the one place the tool and its tests read them from.
//!
//! Facts from OEIS, from Aart Bik's "perft for reversi" and from
//! `shared/reference/known-values.md`; nothing here is computed by this
//! project. The catalogue marks a row `published` when it equals every value
//! given here for it, and refuses a run that disagrees with one; the tests
//! hold the engines to them as fixed points.
//!
//! Conventions (a pass is a ply on every board):
//! - *games, finished games dropped*: the paths of exactly `n` plies from the
//!   start. On 8x8 this is OEIS A124004 ("Number of possible Reversi games at
//!   the end of the n-th ply"), the `games` column of by-ply results, and
//!   Edax's perft.
//! - *games including ended*: a game that ended before ply `n` still counts
//!   as one game at ply `n`. Aart Bik's "perft for reversi" (2009) and the
//!   perft of several engines; not an OEIS sequence. The
//!   `games_including_ended` column.

/// OEIS A124004, a(0..=21): 8x8 games of exactly `n` plies (finished games
/// dropped). a(15)..a(18) by Paul Byrne (2008), a(19)..a(21) by Dominic
/// Hofer (2014-2021).
pub const A124004: [u128; 22] = [
    1,
    4,
    12,
    56,
    244,
    1396,
    8200,
    55092,
    390216,
    3005288,
    24571056,
    212258216,
    1939879668,
    18429618408,
    184041761768,
    1891831332208,
    20301171282452,
    222742563853912,
    2534535926617852,
    29335558770589276,
    349980362625040712,
    4228388321175157140,
];

/// 8x8 games including those that ended earlier (Bik's perft), at the plies
/// where a value is published. The shortest 8x8 game lasts 9 plies, so up to
/// ply 9 these equal A124004.
pub const BIK_PERFT: [(u32, u128); 13] = [
    (0, 1),
    (1, 4),
    (2, 12),
    (3, 56),
    (4, 244),
    (5, 1396),
    (6, 8200),
    (7, 55092),
    (8, 390216),
    (9, 3005288),
    (10, 24571284),
    (14, 184042084512),
    (15, 1891832540064),
];

/// OEIS A124005, a(0..=9): distinct 8x8 positions after exactly `n` plies.
pub const A124005: [u128; 10] = [1, 4, 12, 54, 236, 1288, 7092, 42614, 269352, 1743560];

/// OEIS A124006, a(1..=9): 8x8 positions reached by exactly one game of `n`
/// plies; and a(13).
pub const A124006: [u128; 9] = [4, 12, 52, 228, 1192, 6160, 33344, 191380, 1072232];
/// OEIS A124006 a(13) (Dominic Hofer).
pub const A124006_13: u128 = 1145811772;

/// OEIS A125528, a(1..=9): distinct 8x8 shapes (sets of occupied squares)
/// after exactly `n` plies.
pub const A125528: [u128; 9] = [4, 12, 54, 220, 1130, 5568, 26966, 132037, 589652];
/// OEIS A125528 a(13) (Dominic Hofer).
pub const A125528_13: u128 = 129698048;

/// OEIS A125529, a(1..=9): 8x8 shapes reached by exactly one game of `n`
/// plies.
pub const A125529: [u128; 9] = [4, 12, 52, 196, 932, 3944, 14020, 53556, 165584];
/// OEIS A125529 a(13) (Dominic Hofer).
pub const A125529_13: u128 = 5904880;

/// 4x4 reachable positions by disc count, 4..=16 discs.
pub const POSITIONS_4X4: [u128; 13] = [1, 4, 12, 42, 124, 400, 1124, 2792, 6716, 12442, 17962, 16118, 5052];

/// 4x4 games of exactly `n` plies, finished games dropped, n = 0..=16.
pub const GAMES_4X4: [u128; 17] =
    [1, 4, 12, 44, 128, 424, 1256, 3624, 9112, 20032, 36412, 50268, 55112, 31396, 12920, 3416, 612];

/// 4x4 games including those that ended earlier, n = 0..=16 (settles at the
/// 60,060 complete games from ply 15 on).
pub const GAMES_INCLUDING_ENDED_4X4: [u128; 17] =
    [1, 4, 12, 44, 128, 424, 1256, 3624, 9116, 20044, 36540, 50704, 57436, 59564, 59980, 60060, 60060];

/// The published values of one layer of a catalogue table
/// (`<N>x<N>-by-<discs|ply>`): (column, value) pairs.
pub fn layer_values(table: &str, layer: u32) -> Vec<(&'static str, u128)> {
    let at = |s: &[u128], i: u32| s.get(i as usize).copied();
    let mut out = Vec::new();
    match table {
        "4x4-by-discs" => {
            out.extend(layer.checked_sub(4).and_then(|i| at(&POSITIONS_4X4, i)).map(|v| ("positions", v)))
        }
        "4x4-by-ply" => {
            out.extend(at(&GAMES_4X4, layer).map(|v| ("games", v)));
            out.extend(at(&GAMES_INCLUDING_ENDED_4X4, layer).map(|v| ("games_including_ended", v)));
        }
        "8x8-by-ply" => {
            out.extend(at(&A124005, layer).map(|v| ("positions", v)));
            let unique = match layer {
                1..=9 => Some(A124006[layer as usize - 1]),
                13 => Some(A124006_13),
                _ => None,
            };
            out.extend(unique.map(|v| ("positions_unique", v)));
            let (shapes, shapes_unique) = match layer {
                1..=9 => (Some(A125528[layer as usize - 1]), Some(A125529[layer as usize - 1])),
                13 => (Some(A125528_13), Some(A125529_13)),
                _ => (None, None),
            };
            out.extend(shapes.map(|v| ("shapes", v)));
            out.extend(shapes_unique.map(|v| ("shapes_unique", v)));
            out.extend(at(&A124004, layer).map(|v| ("games", v)));
            out.extend(BIK_PERFT.iter().find(|(p, _)| *p == layer).map(|&(_, v)| ("games_including_ended", v)));
        }
        _ => {}
    }
    out
}
