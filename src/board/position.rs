//! A position: the discs of both sides and the side to move, with the rules
//! of Othello (moves, flips, passes, game end).

use std::fmt;
use std::marker::PhantomData;

use super::bitboard::Bitboard;
use super::geometry::Geometry;
use super::movegen::{flips, legal_moves};

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    Black,
    /// Moves second.
    White,
}

impl Color {
    /// The other side.
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

/// What the side to move may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It has these legal moves (never empty).
    Moves(Bitboard),
    /// It has no move but the opponent has: it must pass.
    Pass,
    /// Neither side can move: the game is over.
    Terminal,
}

/// A malformed position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("a square holds both a black and a white disc")]
    Overlap,
    #[error("a disc lies outside the {0}x{0} board")]
    OffBoard(u32),
    #[error("diagram: {0}")]
    Diagram(String),
    #[error("{0}")]
    Text(String),
}

/// Black discs, white discs and the side to move on an N x N board.
///
/// Stored as (discs of the side to move, discs of the other side, colour to
/// move), which makes a move two xors and an or.
///
/// ```
/// use othello_census::board::{B4, Color, Position, Status};
/// let start = Position::<B4>::start();
/// assert_eq!(start.to_string(), "....\n.OX.\n.XO.\n....\nX to move\n");
/// assert_eq!(start.side_to_move(), Color::Black);
/// let after = start.play(1); // Black plays on b1 (row 0, column 1)
/// assert_eq!(after.to_string(), ".X..\n.XX.\n.XO.\n....\nO to move\n");
/// assert!(matches!(after.status(), Status::Moves(_)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<G: Geometry> {
    me: u64,
    opp: u64,
    black_to_move: bool,
    geometry: PhantomData<G>,
}

impl<G: Geometry> Position<G> {
    /// The start position: White on the upper-left and lower-right centre
    /// squares, Black on the other two, Black to move.
    pub const fn start() -> Position<G> {
        let h = G::N / 2;
        let ul = (h - 1) * G::N + (h - 1);
        let ur = (h - 1) * G::N + h;
        let ll = h * G::N + (h - 1);
        let lr = h * G::N + h;
        Position {
            me: (1u64 << ur) | (1u64 << ll),
            opp: (1u64 << ul) | (1u64 << lr),
            black_to_move: true,
            geometry: PhantomData,
        }
    }

    /// A position from its black and white discs and side to move.
    pub fn from_colors(black: Bitboard, white: Bitboard, side: Color) -> Result<Self, PositionError> {
        if black.0 & white.0 != 0 {
            return Err(PositionError::Overlap);
        }
        if (black.0 | white.0) & !G::FULL != 0 {
            return Err(PositionError::OffBoard(G::N));
        }
        Ok(Self::from_colors_unchecked(black.0, white.0, side))
    }

    #[inline(always)]
    pub(crate) const fn from_colors_unchecked(black: u64, white: u64, side: Color) -> Self {
        match side {
            Color::Black => Position { me: black, opp: white, black_to_move: true, geometry: PhantomData },
            Color::White => Position { me: white, opp: black, black_to_move: false, geometry: PhantomData },
        }
    }

    /// Parses a diagram of N rows of N characters (`X` black, `O` white,
    /// `.` empty; the letters of [`Position::parse`]), whitespace between
    /// rows ignored.
    pub fn from_diagram(diagram: &str, side: Color) -> Result<Self, PositionError> {
        let cells: Vec<char> = diagram.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != G::SQUARES as usize {
            return Err(PositionError::Diagram(format!("expected {} squares, found {}", G::SQUARES, cells.len())));
        }
        let (black, white) = Self::squares(&cells)?;
        Ok(Self::from_colors_unchecked(black, white, side))
    }

    /// Reads a position as text: `N*N` characters, one per square row by
    /// row from the top left (`X`, `x`, `*`, `B` or `b` Black; `O`, `o`, `W`
    /// or `w` White; `-` or `.` empty; whitespace anywhere), then the side
    /// to move (`X` or `O`, or the other letters of the two sides). An
    /// 8x8 line of an `.obf` file (`... X;` followed by comments) reads as
    /// well. The one parser of the command line's `--position`.
    ///
    /// ```
    /// use othello_census::board::{B4, Position};
    /// assert_eq!(Position::<B4>::parse("---- -OX- -XO- ---- X").unwrap(), Position::start());
    /// assert!(Position::<B4>::parse("---- -OX- -XO- ---- Z").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, PositionError> {
        let text = text.split(';').next().unwrap_or("").trim();
        let squares = G::SQUARES as usize;
        let cells: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let is_side = |c: &char| matches!(c, 'X' | 'x' | '*' | 'B' | 'b' | 'O' | 'o' | 'W' | 'w');
        if cells.len() != squares + 1 {
            let found = match cells.last() {
                Some(c) if is_side(c) => format!("{} squares and the side to move", cells.len() - 1),
                _ => format!("{} squares and no side to move at the end", cells.len()),
            };
            return Err(PositionError::Text(format!(
                "a {0}x{0} position is {1} squares (X, O, -) and the side to move (X or O); found {found}",
                G::N,
                squares,
            )));
        }
        let (black, white) = Self::squares(&cells[..squares])?;
        let side = match cells[squares] {
            'X' | 'x' | '*' | 'B' | 'b' => Color::Black,
            'O' | 'o' | 'W' | 'w' => Color::White,
            other => return Err(PositionError::Text(format!("the side to move is {other:?}, not X or O"))),
        };
        Ok(Self::from_colors_unchecked(black, white, side))
    }

    /// The black and white discs of `N*N` square characters.
    fn squares(cells: &[char]) -> Result<(u64, u64), PositionError> {
        let (mut black, mut white) = (0u64, 0u64);
        for (i, c) in cells.iter().enumerate() {
            match c {
                'X' | 'x' | '*' | 'B' | 'b' => black |= 1 << i,
                'O' | 'o' | 'W' | 'w' => white |= 1 << i,
                '.' | '-' => {}
                other => {
                    return Err(PositionError::Text(format!("square {} is {other:?}, not X, O or -", i + 1)));
                }
            }
        }
        Ok((black, white))
    }

    /// Black discs.
    #[inline(always)]
    pub const fn black(&self) -> Bitboard {
        Bitboard(if self.black_to_move { self.me } else { self.opp })
    }

    /// White discs.
    #[inline(always)]
    pub const fn white(&self) -> Bitboard {
        Bitboard(if self.black_to_move { self.opp } else { self.me })
    }

    /// Discs of the side to move.
    #[inline(always)]
    pub const fn mover(&self) -> Bitboard {
        Bitboard(self.me)
    }

    /// Discs of the side not to move.
    #[inline(always)]
    pub const fn opponent(&self) -> Bitboard {
        Bitboard(self.opp)
    }

    /// The side to move.
    #[inline(always)]
    pub const fn side_to_move(&self) -> Color {
        if self.black_to_move { Color::Black } else { Color::White }
    }

    /// Number of discs on the board (its layer).
    #[inline(always)]
    pub const fn discs(&self) -> u32 {
        (self.me | self.opp).count_ones()
    }

    /// Black's discs minus White's (the raw final score of a finished
    /// game).
    #[inline]
    pub const fn disc_difference(&self) -> i32 {
        self.black().count() as i32 - self.white().count() as i32
    }

    /// Empty squares.
    #[inline(always)]
    pub const fn empty(&self) -> Bitboard {
        Bitboard(!(self.me | self.opp) & G::FULL)
    }

    /// Legal moves of the side to move.
    #[inline(always)]
    pub fn legal_moves(&self) -> Bitboard {
        Bitboard(legal_moves::<G>(self.me, self.opp))
    }

    /// Whether the side not to move has a legal move.
    #[inline(always)]
    pub fn opponent_can_move(&self) -> bool {
        legal_moves::<G>(self.opp, self.me) != 0
    }

    /// What the side to move may do.
    #[inline]
    pub fn status(&self) -> Status {
        let moves = self.legal_moves();
        if !moves.is_empty() {
            Status::Moves(moves)
        } else if self.opponent_can_move() {
            Status::Pass
        } else {
            Status::Terminal
        }
    }

    /// Discs flipped by the side to move playing on `square`.
    #[inline(always)]
    pub fn flips(&self, square: u32) -> Bitboard {
        Bitboard(flips::<G>(self.me, self.opp, square))
    }

    /// The position after the side to move plays the legal move `square`.
    #[inline(always)]
    pub fn play(&self, square: u32) -> Position<G> {
        let f = flips::<G>(self.me, self.opp, square);
        debug_assert!(f != 0, "illegal move {square}");
        let (me, opp) = super::movegen::play(self.me, self.opp, square, f);
        Position { me, opp, black_to_move: !self.black_to_move, geometry: PhantomData }
    }

    /// The same board with the other side to move.
    #[inline(always)]
    pub const fn pass(&self) -> Position<G> {
        Position { me: self.opp, opp: self.me, black_to_move: !self.black_to_move, geometry: PhantomData }
    }

    /// The children of this position in the game tree, lowest square first:
    /// one per legal move, or the passed position when the side must pass,
    /// or none when the game is over.
    pub fn children(&self) -> Vec<Position<G>> {
        match self.status() {
            Status::Moves(m) => m.iter().map(|sq| self.play(sq)).collect(),
            Status::Pass => vec![self.pass()],
            Status::Terminal => Vec::new(),
        }
    }
}

impl<G: Geometry> Position<G> {
    /// The position on one line, as [`Position::parse`] reads it: the rows
    /// from the top, `X` black, `O` white, `-` empty, a space between
    /// rows, then the side to move.
    ///
    /// ```
    /// use othello_census::board::{B4, Position};
    /// assert_eq!(Position::<B4>::start().line(), "---- -OX- -XO- ---- X");
    /// let p = Position::<B4>::start().children()[0];
    /// assert_eq!(Position::<B4>::parse(&p.line()).unwrap(), p);
    /// ```
    pub fn line(&self) -> String {
        let (b, w) = (self.black(), self.white());
        let mut s = String::with_capacity((G::N * (G::N + 1) + 1) as usize);
        for row in 0..G::N {
            for col in 0..G::N {
                let sq = row * G::N + col;
                s.push(if b.contains(sq) {
                    'X'
                } else if w.contains(sq) {
                    'O'
                } else {
                    '-'
                });
            }
            s.push(' ');
        }
        s.push(match self.side_to_move() {
            Color::Black => 'X',
            Color::White => 'O',
        });
        s
    }
}

impl<G: Geometry> fmt::Display for Position<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, w) = (self.black(), self.white());
        for row in 0..G::N {
            for col in 0..G::N {
                let sq = row * G::N + col;
                let c = if b.contains(sq) {
                    'X'
                } else if w.contains(sq) {
                    'O'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        match self.side_to_move() {
            Color::Black => writeln!(f, "X to move"),
            Color::White => writeln!(f, "O to move"),
        }
    }
}

/// Plays `games` games from the start, each move chosen uniformly among
/// the legal ones by a xorshift generator seeded with `seed` (not 0), a
/// pass where one is forced, and hands `visit` every position reached: the
/// start, each position after a move or a pass, and the final one. For
/// tests and benchmarks that want many positions of real games.
pub fn random_games<G: Geometry>(games: usize, seed: u64, mut visit: impl FnMut(&Position<G>)) {
    let mut x = seed;
    for _ in 0..games {
        let mut p = Position::<G>::start();
        loop {
            visit(&p);
            let moves = p.legal_moves();
            if moves.is_empty() {
                if !p.opponent_can_move() {
                    break;
                }
                p = p.pass();
                continue;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pick = (x % moves.count() as u64) as usize;
            p = p.play(moves.iter().nth(pick).expect("a legal move"));
        }
    }
}

impl<G: Geometry> fmt::Debug for Position<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position<{}x{}>\n{}", G::N, G::N, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B6, B8};

    /// Random games visit each game's start and its end, and a legal
    /// position between: a helper that the key and condition tests walk
    /// with, so it must not visit nothing.
    #[test]
    fn random_games_visit_whole_games() {
        let (mut starts, mut ends, mut all) = (0, 0, 0);
        random_games::<B6>(50, 7, |p| {
            all += 1;
            starts += (*p == Position::<B6>::start()) as usize;
            ends += (p.status() == Status::Terminal) as usize;
        });
        assert_eq!((starts, ends), (50, 50));
        assert!(all > 50 * 20, "{all}");
    }

    #[test]
    fn start_positions() {
        let p = Position::<B8>::start();
        assert_eq!(p.discs(), 4);
        assert!(p.black().contains(28) && p.black().contains(35));
        assert!(p.white().contains(27) && p.white().contains(36));
        assert_eq!(p.legal_moves().count(), 4);
        let p6 = Position::<B6>::start();
        assert_eq!(p6.legal_moves().count(), 4);
    }

    #[test]
    fn diagram_round_trip() {
        let p = Position::<B6>::start().play(8);
        let text = p.to_string();
        let body: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
        let q = Position::<B6>::from_diagram(&body, p.side_to_move()).unwrap();
        assert_eq!(p, q);
    }

    #[test]
    fn positions_parse_and_refuse() {
        use crate::board::B4;
        let p = Position::<B4>::parse("---- -OX- -XO- ---- X").unwrap();
        assert_eq!(p, Position::<B4>::start());
        assert!(Position::<B4>::parse("---- -OX- -XO- ---- Z").is_err());
        assert!(Position::<B4>::parse("---- -OX- -XO- --- X").is_err());
        assert!(Position::<B4>::parse("---- -OX- -XQ- ---- X").is_err());
        let q = Position::<B6>::parse("------ ------ --OX-- --XO-- ------ ------ O; comment").unwrap();
        assert_eq!(q.side_to_move(), Color::White);
        // the diagram of Display reads back
        let text = format!("{}", q).replace(" to move", "");
        assert_eq!(Position::<B6>::parse(&text).unwrap(), q);
    }

    #[test]
    fn pass_and_terminal_4x4() {
        use crate::board::B4;
        let d = "XO..\n....\n....\n....";
        // White cannot flank anything; Black can play square 2.
        assert_eq!(Position::<B4>::from_diagram(d, Color::White).unwrap().status(), Status::Pass);
        let q = Position::<B4>::from_diagram(d, Color::Black).unwrap();
        assert_eq!(q.status(), Status::Moves(Bitboard::from_square(2)));
        assert_eq!(q.play(2).to_string(), "XXX.\n....\n....\n....\nO to move\n");
        let over = Position::<B4>::from_diagram("XX..\n....\n....\n....", Color::White).unwrap();
        assert_eq!(over.status(), Status::Terminal);
    }
}
