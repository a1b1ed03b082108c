//! The census model: what is counted per layer, defined once. Both engines
//! produce a [`Census`]; the checkpoint and layer files store its
//! [`Counts`] and [`Games`]; every reporter reads it through [`COLUMNS`].
//! `docs/results-format.md` documents the JSON and CSV built from it.

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};
use serde::Serialize;

/// How layers are indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerBy {
    /// Layer k: the positions with k discs (a pass stays in its layer).
    Discs,
    /// Layer n: the positions after exactly n plies (a pass is a ply;
    /// finished games dropped).
    Ply,
}

impl LayerBy {
    /// The code stored in files: 0 by discs, 1 by ply.
    pub fn code(self) -> u8 {
        match self {
            LayerBy::Discs => 0,
            LayerBy::Ply => 1,
        }
    }

    /// The layering of a stored code.
    pub fn from_code(c: u8) -> Option<LayerBy> {
        match c {
            0 => Some(LayerBy::Discs),
            1 => Some(LayerBy::Ply),
            _ => None,
        }
    }

    /// `discs` or `ply`: the name of the layer index.
    pub fn name(self) -> &'static str {
        match self {
            LayerBy::Discs => "discs",
            LayerBy::Ply => "ply",
        }
    }

    /// The first layer: 4 discs, or ply 0 (the start).
    pub fn first_layer(self) -> u32 {
        match self {
            LayerBy::Discs => 4,
            LayerBy::Ply => 0,
        }
    }
}

/// The outcomes of terminal positions: how many end with each disc
/// difference, Black's discs minus White's (raw: empty squares are not
/// given to the winner; the sign, and so the winner, is the same under
/// either convention). Differences run from -64 to 64. Encoded in files as
/// a u64 count k of the differences that occur, then k pairs (difference as
/// i32, positions as u64), least difference first, every count non-zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcomes {
    by_difference: [u64; Outcomes::LEN],
}

impl Default for Outcomes {
    fn default() -> Outcomes {
        Outcomes { by_difference: [0; Outcomes::LEN] }
    }
}

impl Outcomes {
    /// Largest difference in magnitude (every square of 8x8 one colour).
    pub const MAX: i32 = 64;
    const LEN: usize = 2 * Self::MAX as usize + 1;

    /// Counts `n` terminal positions ending with disc difference `diff`
    /// (Black minus White).
    #[inline]
    pub fn record(&mut self, diff: i32, n: u64) {
        assert!(diff.abs() <= Self::MAX, "disc difference {diff} out of range");
        self.by_difference[(diff + Self::MAX) as usize] += n;
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Outcomes) {
        for (a, b) in self.by_difference.iter_mut().zip(&other.by_difference) {
            *a += b;
        }
    }

    /// The differences that occur, with their counts, least first.
    pub fn differences(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        self.by_difference.iter().enumerate().filter(|(_, n)| **n > 0).map(|(i, n)| (i as i32 - Self::MAX, *n))
    }

    /// Terminal positions Black wins (more black discs).
    pub fn black_wins(&self) -> u64 {
        self.by_difference[Self::MAX as usize + 1..].iter().sum()
    }

    /// Terminal positions drawn.
    pub fn draws(&self) -> u64 {
        self.by_difference[Self::MAX as usize]
    }

    /// Terminal positions White wins.
    pub fn white_wins(&self) -> u64 {
        self.by_difference[..Self::MAX as usize].iter().sum()
    }

    /// Every terminal position counted.
    pub fn total(&self) -> u64 {
        self.by_difference.iter().sum()
    }
}

/// The positions of a layer by the number of games that reach them, in
/// powers of two: bucket `b` holds the positions reached by `g` games with
/// `2^b <= g < 2^(b+1)`, and the sum of those games. Bucket 0 is the
/// positions reached by exactly one game (by ply on 8x8: OEIS A124006);
/// the games of all buckets add up to the games reaching the layer.
/// Encoded in files as a u64 count k of the non-empty buckets, then k
/// triples (bucket u8, positions u64, games u128), least bucket first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpread {
    positions: [u64; GameSpread::LEN],
    games: [u128; GameSpread::LEN],
}

impl Default for GameSpread {
    fn default() -> GameSpread {
        GameSpread { positions: [0; GameSpread::LEN], games: [0; GameSpread::LEN] }
    }
}

impl GameSpread {
    const LEN: usize = 128;

    /// Counts `positions` positions, each reached by `games_each` games.
    #[inline]
    pub fn record(&mut self, games_each: u128, positions: u64) {
        assert!(games_each > 0, "a position of a layer is reached by a game");
        let b = (127 - games_each.leading_zeros()) as usize;
        self.positions[b] += positions;
        self.games[b] = add_games(self.games[b], games_times(games_each, positions));
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &GameSpread) {
        for b in 0..Self::LEN {
            self.positions[b] += other.positions[b];
            self.games[b] = add_games(self.games[b], other.games[b]);
        }
    }

    /// Positions reached by exactly one game.
    pub fn unique(&self) -> u64 {
        self.positions[0]
    }

    /// The non-empty buckets: (b, positions, games), least first.
    pub fn buckets(&self) -> impl Iterator<Item = (u32, u64, u128)> + '_ {
        (0..Self::LEN).filter(|&b| self.positions[b] > 0).map(|b| (b as u32, self.positions[b], self.games[b]))
    }

    /// A bucket's name: `1`, `2-3`, `4-7`, ...
    pub fn label(b: u32) -> String {
        if b == 0 { "1".into() } else { format!("{}-{}", 1u128 << b, (1u128 << b) + ((1u128 << b) - 1)) }
    }

    /// Every position counted, and every game.
    pub fn totals(&self) -> (u64, u128) {
        (self.positions.iter().sum(), self.games.iter().fold(0, |a, &g| add_games(a, g)))
    }
}

impl Encode for GameSpread {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        (self.buckets().count() as u64).encode(e)?;
        self.buckets().try_for_each(|(b, n, g)| {
            (b as u8).encode(e)?;
            n.encode(e)?;
            g.encode(e)
        })
    }
}

impl<C> Decode<C> for GameSpread {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let k = u64::decode(d)?;
        if k > GameSpread::LEN as u64 {
            return Err(DecodeError::Other("more game buckets than exist"));
        }
        let mut s = GameSpread::default();
        let mut last: i32 = -1;
        for _ in 0..k {
            let (b, n, g) = (u8::decode(d)?, u64::decode(d)?, u128::decode(d)?);
            let lo = 1u128 << b.min(127);
            if (b as i32) <= last
                || b as usize >= GameSpread::LEN
                || n == 0
                || g < lo.saturating_mul(n as u128)
                || (b < 127 && g > (2 * lo - 1).saturating_mul(n as u128))
            {
                return Err(DecodeError::Other("game buckets out of order, out of range or inconsistent"));
            }
            s.positions[b as usize] = n;
            s.games[b as usize] = g;
            last = b as i32;
        }
        Ok(s)
    }
}

bincode::impl_borrow_decode!(GameSpread);

/// Class and position counts of one layer, or of a sum of layers.
/// Encoded in files as eight little-endian u64 in field order, then the
/// [`Outcomes`] of the terminal positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Distinct reachable positions (board + side to move).
    pub positions: u64,
    /// Classes of positions under the four symmetries of the start.
    pub classes: u64,
    /// Distinct boards (side to move ignored).
    pub boards: u64,
    /// Positions where neither side can move.
    pub terminal_positions: u64,
    /// Classes of terminal positions.
    pub terminal_classes: u64,
    /// Distinct boards of terminal positions.
    pub terminal_boards: u64,
    /// Positions whose side to move must pass.
    pub pass_positions: u64,
    /// Classes of pass positions.
    pub pass_classes: u64,
    /// The terminal positions by final disc difference.
    #[serde(skip)]
    pub outcomes: Outcomes,
}

impl Counts {
    /// The fields in their file order.
    fn fields(&self) -> [u64; 8] {
        [
            self.positions,
            self.classes,
            self.boards,
            self.terminal_positions,
            self.terminal_classes,
            self.terminal_boards,
            self.pass_positions,
            self.pass_classes,
        ]
    }

    fn from_fields(f: [u64; 8], outcomes: Outcomes) -> Counts {
        Counts {
            outcomes,
            positions: f[0],
            classes: f[1],
            boards: f[2],
            terminal_positions: f[3],
            terminal_classes: f[4],
            terminal_boards: f[5],
            pass_positions: f[6],
            pass_classes: f[7],
        }
    }

    /// Adds `other` field by field.
    pub fn add(&mut self, other: &Counts) {
        let (a, b) = (self.fields(), other.fields());
        let mut outcomes = self.outcomes;
        outcomes.add(&other.outcomes);
        *self = Counts::from_fields(std::array::from_fn(|i| a[i] + b[i]), outcomes);
    }
}

impl Encode for Counts {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.fields().iter().try_for_each(|v| v.encode(e))?;
        self.outcomes.encode(e)
    }
}

impl Encode for Outcomes {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        (self.differences().count() as u64).encode(e)?;
        self.differences().try_for_each(|(d, n)| {
            d.encode(e)?;
            n.encode(e)
        })
    }
}

impl<C> Decode<C> for Outcomes {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let k = u64::decode(d)?;
        if k > Outcomes::LEN as u64 {
            return Err(DecodeError::Other("more disc differences than exist"));
        }
        let mut o = Outcomes::default();
        let mut last = -Outcomes::MAX - 1;
        for _ in 0..k {
            let (diff, n) = (i32::decode(d)?, u64::decode(d)?);
            if diff <= last || diff > Outcomes::MAX || n == 0 {
                return Err(DecodeError::Other("disc differences out of order, out of range or empty"));
            }
            o.by_difference[(diff + Outcomes::MAX) as usize] = n;
            last = diff;
        }
        Ok(o)
    }
}

impl<C> Decode<C> for Counts {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let mut f = [0u64; 8];
        for v in &mut f {
            *v = u64::decode(d)?;
        }
        Ok(Counts::from_fields(f, Outcomes::decode(d)?))
    }
}

bincode::impl_borrow_decode!(Counts);

/// A number of games (paths in the game tree): the one type every engine,
/// perft included, sums games in.
pub type GameCount = u128;

/// What a game count beyond 128 bits stops the run with: a defect of the
/// run, never a wrap.
pub const GAMES_OVERFLOW: &str = "game count overflow (more than 2^128 games)";

/// Adds two game counts; an overflow is a defect of the run, never a wrap.
#[inline(always)]
pub fn add_games(a: GameCount, b: GameCount) -> GameCount {
    a.checked_add(b).expect(GAMES_OVERFLOW)
}

/// `a` games times `k` (the moves or positions each goes on to), checked:
/// one 64-by-64-bit multiplication where `a` fits 64 bits (the product
/// then fits 128), a checked 128-bit one only beyond.
#[inline(always)]
pub fn games_times(a: GameCount, k: u64) -> GameCount {
    if a >> 64 == 0 { (a as u64 as u128) * k as u128 } else { a.checked_mul(k as u128).expect(GAMES_OVERFLOW) }
}

/// Game counts of one layer, from engines that count paths (the layered
/// engine). Encoded in files as four little-endian u128 in field order,
/// then the [`GameSpread`] of the layer's positions, then the shapes and
/// unique shapes as two u64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Games {
    /// Game prefixes ending in this layer: by ply, games of exactly this
    /// many plies (finished games dropped; Edax's perft); by discs, games
    /// whose last move placed the layer's last disc.
    pub games: u128,
    /// `games` plus every game that ended in an earlier layer (by ply:
    /// Aart Bik's perft for reversi; not OEIS A124004, which is `games`).
    pub games_including_ended: u128,
    /// By ply: of `games`, those whose last ply is a pass (0 by discs).
    pub passes: u128,
    /// Games that end in this layer.
    pub ended: u128,
    /// The layer's positions by the games that reach them.
    pub spread: GameSpread,
    /// Distinct shapes (sets of occupied squares) of the layer's
    /// positions: by ply on 8x8, OEIS A125528.
    pub shapes: u64,
    /// Of those, the shapes reached by exactly one game (summed over the
    /// shape's positions): by ply on 8x8, OEIS A125529.
    pub shapes_unique: u64,
}

impl Encode for Games {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        [self.games, self.games_including_ended, self.passes, self.ended].iter().try_for_each(|v| v.encode(e))?;
        self.spread.encode(e)?;
        self.shapes.encode(e)?;
        self.shapes_unique.encode(e)
    }
}

impl<C> Decode<C> for Games {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(Games {
            games: u128::decode(d)?,
            games_including_ended: u128::decode(d)?,
            passes: u128::decode(d)?,
            ended: u128::decode(d)?,
            spread: GameSpread::decode(d)?,
            shapes: u64::decode(d)?,
            shapes_unique: u64::decode(d)?,
        })
    }
}

bincode::impl_borrow_decode!(Games);

/// Everything counted in one layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerCounts {
    /// The disc count or the ply (see [`Census::by`]).
    pub layer: u32,
    /// Classes and positions.
    pub counts: Counts,
    /// Games, where the engine counts them.
    pub games: Option<Games>,
}

impl Encode for LayerCounts {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.layer.encode(e)?;
        self.counts.encode(e)?;
        self.games.encode(e)
    }
}

impl<C> Decode<C> for LayerCounts {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(LayerCounts { layer: u32::decode(d)?, counts: Counts::decode(d)?, games: Option::<Games>::decode(d)? })
    }
}

bincode::impl_borrow_decode!(LayerCounts);

/// What a census found: one record per layer, first layer first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
    /// Board side.
    pub size: u32,
    /// How layers are indexed.
    pub by: LayerBy,
    /// The last layer the run was asked for.
    pub limit: u32,
    /// The layers counted, in order, without gaps.
    pub layers: Vec<LayerCounts>,
}

impl Census {
    /// Sum of the class and position counts over the layers.
    pub fn totals(&self) -> Counts {
        let mut t = Counts::default();
        for l in &self.layers {
            t.add(&l.counts);
        }
        t
    }

    /// Games that ended in the counted layers (complete games), where the
    /// engine counts games.
    pub fn games_ended(&self) -> Option<u128> {
        self.layers.iter().try_fold(0u128, |acc, l| l.games.map(|g| add_games(acc, g.ended)))
    }

    /// Whether every layer of the game was counted: the last layer holds
    /// only terminal positions, so no later layer exists.
    pub fn complete(&self) -> bool {
        self.layers.last().is_some_and(|l| l.counts.classes == l.counts.terminal_classes)
    }

    /// Fills `games_including_ended` of every layer from `games` and `ended`.
    pub fn fill_including_ended(layers: &mut [LayerCounts]) {
        let mut before = 0u128;
        for l in layers {
            if let Some(g) = &mut l.games {
                g.games_including_ended = add_games(g.games, before);
                before = add_games(before, g.ended);
            }
        }
    }
}

/// A column of the result tables: its name in JSON and CSV, its title in
/// the human table, and its value in a layer (`None`: not counted by this
/// engine).
pub struct Column {
    /// JSON key and CSV header.
    pub name: &'static str,
    /// Title in the human table.
    pub title: &'static str,
    /// The value.
    pub value: fn(&LayerCounts) -> Option<u128>,
    /// A game count (absent from censuses that count no games).
    pub game: bool,
    /// Meaningful only by ply: by discs a pass stays in its layer, so no
    /// game enters a layer by a pass, and games including ended ones are
    /// counted by ply).
    pub ply_only: bool,
}

impl Column {
    /// Whether the column belongs to a census by `by` that counts games or
    /// not.
    pub fn applies(&self, by: LayerBy, games: bool) -> bool {
        (games || !self.game) && (by == LayerBy::Ply || !self.ply_only)
    }
}

/// The columns of a census by `by` that counts games or not, in order.
pub fn columns(by: LayerBy, games: bool) -> impl Iterator<Item = &'static Column> {
    COLUMNS.iter().filter(move |c| c.applies(by, games))
}

impl Census {
    /// The columns meaningful for this census ([`columns`]).
    pub fn columns(&self) -> Vec<&'static Column> {
        columns(self.by, self.layers.iter().any(|l| l.games.is_some())).collect()
    }
}

/// What the game columns of a census by `by` count, in words: the
/// `conventions` of the JSON documents and the CSV provenance. By ply,
/// `games` is OEIS A124004 on 8x8 and `games_including_ended` is not.
pub fn game_conventions(by: LayerBy) -> Vec<(&'static str, &'static str)> {
    match by {
        LayerBy::Ply => vec![
            (
                "games",
                "games of exactly n plies from the start, a pass counting as a ply, games that ended earlier \
                 dropped: OEIS A124004 on 8x8 (Edax's perft)",
            ),
            (
                "games_including_ended",
                "games plus every game that ended before ply n (Aart Bik's perft for reversi, 2009); \
                 not an OEIS sequence",
            ),
            ("games_passes", "of games, those whose last ply is a pass"),
            ("games_ended", "of games, those that end at ply n"),
            ("positions_unique", "positions reached by exactly one game of n plies: OEIS A124006 on 8x8"),
            ("shapes", "distinct sets of occupied squares of the positions: OEIS A125528 on 8x8"),
            (
                "shapes_unique",
                "shapes reached by exactly one game of n plies (over all their positions): OEIS A125529 on 8x8",
            ),
        ],
        LayerBy::Discs => vec![
            ("games", "games whose last move placed the layer's last disc (passes stay in their layer)"),
            ("games_ended", "of games, those that end in this layer"),
            ("positions_unique", "positions reached by exactly one game (one path from the start)"),
            ("shapes", "distinct sets of occupied squares of the positions"),
            ("shapes_unique", "shapes reached by exactly one game (over all their positions)"),
        ],
    }
}

macro_rules! count_col {
    ($name:literal, $title:literal, $f:ident) => {
        Column { name: $name, title: $title, value: |l| Some(l.counts.$f as u128), game: false, ply_only: false }
    };
}
macro_rules! outcome_col {
    ($name:literal, $title:literal, $f:ident) => {
        Column {
            name: $name,
            title: $title,
            value: |l| Some(l.counts.outcomes.$f() as u128),
            game: false,
            ply_only: false,
        }
    };
}
macro_rules! game_col {
    ($name:literal, $title:literal, $f:ident, $ply_only:expr) => {
        Column { name: $name, title: $title, value: |l| l.games.map(|g| g.$f), game: true, ply_only: $ply_only }
    };
}

/// Every column after the layer index, in the order of the tables.
pub const COLUMNS: [Column; 18] = [
    count_col!("positions", "positions", positions),
    count_col!("classes", "classes", classes),
    count_col!("boards", "boards", boards),
    count_col!("terminal_positions", "terminal", terminal_positions),
    count_col!("terminal_classes", "term.classes", terminal_classes),
    count_col!("terminal_boards", "term.boards", terminal_boards),
    outcome_col!("terminal_black_wins", "Black wins", black_wins),
    outcome_col!("terminal_draws", "draws", draws),
    outcome_col!("terminal_white_wins", "White wins", white_wins),
    count_col!("pass_positions", "pass", pass_positions),
    count_col!("pass_classes", "pass.classes", pass_classes),
    game_col!("games", "games", games, false),
    game_col!("games_including_ended", "incl. ended", games_including_ended, true),
    game_col!("games_passes", "game passes", passes, true),
    game_col!("games_ended", "ended", ended, false),
    Column {
        name: "positions_unique",
        title: "unique",
        value: |l| l.games.map(|g| g.spread.unique() as u128),
        game: true,
        ply_only: false,
    },
    Column {
        name: "shapes",
        title: "shapes",
        value: |l| l.games.map(|g| g.shapes as u128),
        game: true,
        ply_only: false,
    },
    Column {
        name: "shapes_unique",
        title: "uniq.shapes",
        value: |l| l.games.map(|g| g.shapes_unique as u128),
        game: true,
        ply_only: false,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(layer: u32, classes: u64, terminal: u64, games: Option<(u128, u128)>) -> LayerCounts {
        LayerCounts {
            layer,
            counts: Counts { classes, terminal_classes: terminal, positions: classes * 2, ..Counts::default() },
            games: games.map(|(games, ended)| Games { games, ended, ..Games::default() }),
        }
    }

    /// A game count times a factor equals the 128-bit product on both
    /// sides of 2^64, and a product beyond 2^128 is refused.
    #[test]
    fn games_times_is_the_checked_product() {
        for a in [0u128, 1, 7, u64::MAX as u128, 1 << 64, (1 << 64) + 3, u128::MAX / 64] {
            for k in [0u64, 1, 2, 4, 33, 64] {
                assert_eq!(games_times(a, k), a.checked_mul(k as u128).unwrap(), "{a} {k}");
            }
        }
        assert!(std::panic::catch_unwind(|| games_times(u128::MAX / 2, 3)).is_err());
    }

    #[test]
    fn totals_including_ended_and_completeness() {
        let mut layers = vec![layer(0, 1, 0, Some((1, 0))), layer(1, 3, 1, Some((4, 2))), layer(2, 2, 2, Some((5, 5)))];
        Census::fill_including_ended(&mut layers);
        let a: Vec<u128> = layers.iter().map(|l| l.games.unwrap().games_including_ended).collect();
        assert_eq!(a, [1, 4, 7]);
        let c = Census { size: 4, by: LayerBy::Ply, limit: 9, layers };
        assert_eq!(c.totals().classes, 6);
        assert_eq!(c.totals().positions, 12);
        assert_eq!(c.games_ended(), Some(7));
        assert!(c.complete());
        let cut = Census { layers: c.layers[..2].to_vec(), ..c.clone() };
        assert!(!cut.complete());
        let dfs = Census { layers: vec![layer(4, 1, 0, None)], ..c };
        assert_eq!(dfs.games_ended(), None);
    }

    #[test]
    fn encoding_is_pinned() {
        let mut spread = GameSpread::default();
        spread.record(1, 3);
        spread.record(5, 1);
        spread.record(6, 1);
        let mut outcomes = Outcomes::default();
        outcomes.record(2, 13);
        outcomes.record(-64, 5);
        let l = LayerCounts {
            layer: 7,
            counts: Counts { positions: 1, classes: 2, boards: 3, pass_classes: 8, outcomes, ..Counts::default() },
            games: Some(Games {
                games: 9,
                games_including_ended: 10,
                passes: 11,
                ended: 12,
                spread,
                shapes: 13,
                shapes_unique: 14,
            }),
        };
        let config = bincode::config::standard().with_fixed_int_encoding();
        let bytes = bincode::encode_to_vec(l, config).unwrap();
        let mut want = 7u32.to_le_bytes().to_vec();
        for v in [1u64, 2, 3, 0, 0, 0, 0, 8] {
            want.extend(v.to_le_bytes());
        }
        // two differences: -64 (5 positions), 2 (13 positions)
        want.extend(2u64.to_le_bytes());
        want.extend((-64i32).to_le_bytes());
        want.extend(5u64.to_le_bytes());
        want.extend(2i32.to_le_bytes());
        want.extend(13u64.to_le_bytes());
        want.push(1);
        for v in [9u128, 10, 11, 12] {
            want.extend(v.to_le_bytes());
        }
        // two game buckets: 1 (3 positions, 3 games), 4-7 (2 positions, 11 games)
        want.extend(2u64.to_le_bytes());
        want.push(0);
        want.extend(3u64.to_le_bytes());
        want.extend(3u128.to_le_bytes());
        want.push(2);
        want.extend(2u64.to_le_bytes());
        want.extend(11u128.to_le_bytes());
        want.extend(13u64.to_le_bytes());
        want.extend(14u64.to_le_bytes());
        assert_eq!(bytes, want);
        let (back, _): (LayerCounts, _) = bincode::decode_from_slice(&bytes, config).unwrap();
        assert_eq!(back, l);
        // game buckets out of order, or games outside their bucket, are refused
        let games_at = want.len() - (8 + 2 * 25 + 16);
        let mut swapped = want.clone();
        swapped[games_at + 8] = 2;
        swapped[games_at + 8 + 25] = 0;
        assert!(bincode::decode_from_slice::<LayerCounts, _>(&swapped, config).is_err());
        let mut outside = want.clone();
        outside[games_at + 8 + 25 + 9..games_at + 8 + 25 + 25].copy_from_slice(&20u128.to_le_bytes());
        assert!(bincode::decode_from_slice::<LayerCounts, _>(&outside, config).is_err());
        // differences out of order are refused
        let mut bad = want.clone();
        bad[4 + 64 + 8..4 + 64 + 12].copy_from_slice(&3i32.to_le_bytes());
        assert!(bincode::decode_from_slice::<LayerCounts, _>(&bad, config).is_err());
    }
}
