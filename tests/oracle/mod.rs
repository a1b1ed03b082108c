//! A deliberately naive Othello implementation on a `Vec` of cells, written
//! for tests only. It shares no code with the engine: no bitboards, no
//! shifts, no keys, no symmetry tables. It walks the eight directions
//! square by square, exactly as a person would.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};

pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;

const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// Maps (row, column, n) to the image (row, column).
type CoordMap = fn(usize, usize, usize) -> (usize, usize);

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Naive {
    pub to_move: u8,
    pub n: usize,
    pub cells: Vec<u8>,
}

impl Naive {
    pub fn start(n: usize) -> Naive {
        let mut cells = vec![EMPTY; n * n];
        let h = n / 2;
        cells[(h - 1) * n + (h - 1)] = WHITE;
        cells[h * n + h] = WHITE;
        cells[(h - 1) * n + h] = BLACK;
        cells[h * n + (h - 1)] = BLACK;
        Naive { to_move: BLACK, n, cells }
    }

    pub fn at(&self, r: i32, c: i32) -> Option<u8> {
        let n = self.n as i32;
        if r < 0 || c < 0 || r >= n || c >= n { None } else { Some(self.cells[(r * n + c) as usize]) }
    }

    fn other(who: u8) -> u8 {
        if who == BLACK { WHITE } else { BLACK }
    }

    /// Squares flipped if `who` plays at (r, c); empty if none.
    pub fn flips_for(&self, who: u8, r: usize, c: usize) -> Vec<usize> {
        if self.cells[r * self.n + c] != EMPTY {
            return Vec::new();
        }
        let them = Self::other(who);
        let mut all = Vec::new();
        for (dr, dc) in DIRECTIONS {
            let mut line = Vec::new();
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            while self.at(rr, cc) == Some(them) {
                line.push(rr as usize * self.n + cc as usize);
                rr += dr;
                cc += dc;
            }
            if !line.is_empty() && self.at(rr, cc) == Some(who) {
                all.extend(line);
            }
        }
        all.sort();
        all
    }

    /// Legal moves of `who` as square indices, ascending.
    pub fn moves_for(&self, who: u8) -> Vec<usize> {
        (0..self.n * self.n).filter(|&s| !self.flips_for(who, s / self.n, s % self.n).is_empty()).collect()
    }

    pub fn moves(&self) -> Vec<usize> {
        self.moves_for(self.to_move)
    }

    pub fn play(&self, square: usize) -> Naive {
        let flips = self.flips_for(self.to_move, square / self.n, square % self.n);
        assert!(!flips.is_empty(), "illegal move");
        let mut next = self.clone();
        next.cells[square] = self.to_move;
        for f in flips {
            next.cells[f] = self.to_move;
        }
        next.to_move = Self::other(self.to_move);
        next
    }

    pub fn pass(&self) -> Naive {
        let mut next = self.clone();
        next.to_move = Self::other(self.to_move);
        next
    }

    pub fn must_pass(&self) -> bool {
        self.moves().is_empty() && !self.moves_for(Self::other(self.to_move)).is_empty()
    }

    pub fn is_over(&self) -> bool {
        self.moves_for(BLACK).is_empty() && self.moves_for(WHITE).is_empty()
    }

    pub fn discs(&self) -> usize {
        self.cells.iter().filter(|&&c| c != EMPTY).count()
    }

    /// The black and white squares, as bit sets (bit `row * n + col`).
    pub fn bits(&self) -> (u64, u64) {
        let (mut b, mut w) = (0u64, 0u64);
        for (i, &c) in self.cells.iter().enumerate() {
            match c {
                BLACK => b |= 1 << i,
                WHITE => w |= 1 << i,
                _ => {}
            }
        }
        (b, w)
    }

    /// Children in the game tree: moves ascending, or the pass, or none.
    pub fn children(&self) -> Vec<Naive> {
        let m = self.moves();
        if !m.is_empty() {
            m.into_iter().map(|s| self.play(s)).collect()
        } else if self.must_pass() {
            vec![self.pass()]
        } else {
            Vec::new()
        }
    }

    /// The diagram the engine prints: rows of `X`/`O`/`.`, then the side.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        for r in 0..self.n {
            for c in 0..self.n {
                s.push(match self.cells[r * self.n + c] {
                    BLACK => 'X',
                    WHITE => 'O',
                    _ => '.',
                });
            }
            s.push('\n');
        }
        s.push_str(if self.to_move == BLACK { "X to move\n" } else { "O to move\n" });
        s
    }

    /// The four images under the start's symmetries, by coordinates.
    pub fn images(&self) -> Vec<Naive> {
        let n = self.n;
        let maps: [CoordMap; 4] =
            [|r, c, _| (r, c), |r, c, n| (n - 1 - r, n - 1 - c), |r, c, _| (c, r), |r, c, n| (n - 1 - c, n - 1 - r)];
        maps.iter()
            .map(|f| {
                let mut cells = vec![EMPTY; n * n];
                for r in 0..n {
                    for c in 0..n {
                        let (r2, c2) = f(r, c, n);
                        cells[r2 * n + c2] = self.cells[r * n + c];
                    }
                }
                Naive { to_move: self.to_move, n, cells }
            })
            .collect()
    }

    /// A class representative: the least image in this type's own order.
    pub fn class(&self) -> Naive {
        self.images().into_iter().min().expect("four images")
    }
}

/// The oracle fills the project's one per-layer record type (a plain data
/// struct: the counting below shares no code with the engines).
pub use othello_census::census::Counts as OracleLayer;

/// Every position reachable with at most `max_discs` discs, by breadth
/// first search over plain sets.
pub fn reachable(n: usize, max_discs: usize) -> HashSet<Naive> {
    let start = Naive::start(n);
    let mut seen = HashSet::new();
    seen.insert(start.clone());
    let mut todo = vec![start];
    while let Some(p) = todo.pop() {
        for c in p.children() {
            if c.discs() <= max_discs && seen.insert(c.clone()) {
                todo.push(c);
            }
        }
    }
    seen
}

/// Per-layer counts of a reachable set (index = disc count).
pub fn census(n: usize, max_discs: usize) -> Vec<OracleLayer> {
    let set = reachable(n, max_discs);
    let mut layers = vec![OracleLayer::default(); max_discs + 1];
    let mut boards: HashMap<usize, HashSet<Vec<u8>>> = HashMap::new();
    let mut terminal_boards: HashMap<usize, HashSet<Vec<u8>>> = HashMap::new();
    let mut classes: HashMap<usize, HashSet<Naive>> = HashMap::new();
    let mut terminal_classes: HashMap<usize, HashSet<Naive>> = HashMap::new();
    let mut pass_classes: HashMap<usize, HashSet<Naive>> = HashMap::new();
    for p in &set {
        let d = p.discs();
        let l = &mut layers[d];
        l.positions += 1;
        boards.entry(d).or_default().insert(p.cells.clone());
        classes.entry(d).or_default().insert(p.class());
        if p.is_over() {
            l.terminal_positions += 1;
            let count = |who: u8| p.cells.iter().filter(|&&c| c == who).count() as i32;
            l.outcomes.record(count(BLACK) - count(WHITE), 1);
            terminal_boards.entry(d).or_default().insert(p.cells.clone());
            terminal_classes.entry(d).or_default().insert(p.class());
        } else if p.must_pass() {
            l.pass_positions += 1;
            pass_classes.entry(d).or_default().insert(p.class());
        }
    }
    for (d, l) in layers.iter_mut().enumerate() {
        let len = |m: &HashMap<usize, HashSet<_>>| m.get(&d).map_or(0, |s| s.len() as u64);
        l.boards = boards.get(&d).map_or(0, |s| s.len() as u64);
        l.terminal_boards = terminal_boards.get(&d).map_or(0, |s| s.len() as u64);
        l.classes = len(&classes);
        l.terminal_classes = len(&terminal_classes);
        l.pass_classes = len(&pass_classes);
    }
    layers
}

/// Games per ply, finished games dropped, plies 1..=depth.
pub fn perft(n: usize, depth: usize) -> Vec<u64> {
    let mut counts = vec![0u64; depth + 1];
    fn walk(p: &Naive, ply: usize, depth: usize, counts: &mut [u64]) {
        if ply == depth {
            return;
        }
        for c in p.children() {
            counts[ply + 1] += 1;
            walk(&c, ply + 1, depth, counts);
        }
    }
    walk(&Naive::start(n), 0, depth, &mut counts);
    counts[1..].to_vec()
}

/// The games (paths from the start) reaching each position of each layer
/// by ply: index n holds the positions after exactly n plies (a pass is a
/// ply; a finished game is not continued).
pub fn paths_by_ply(n: usize, plies: usize) -> Vec<HashMap<Naive, u64>> {
    let mut layers = vec![HashMap::from([(Naive::start(n), 1u64)])];
    for _ in 0..plies {
        let mut next: HashMap<Naive, u64> = HashMap::new();
        for (p, &c) in layers.last().unwrap() {
            for child in p.children() {
                *next.entry(child).or_default() += c;
            }
        }
        layers.push(next);
    }
    layers
}

/// The same by disc count (index k: positions of k discs): a forced pass
/// leads to the same board, within the layer.
pub fn paths_by_discs(n: usize, max_discs: usize) -> Vec<HashMap<Naive, u64>> {
    let mut layers = vec![HashMap::new(); max_discs + 1];
    layers[4].insert(Naive::start(n), 1u64);
    for k in 4..=max_discs {
        let passes: Vec<(Naive, u64)> =
            layers[k].iter().filter(|(p, _)| p.must_pass()).map(|(p, &c)| (p.pass(), c)).collect();
        for (p, c) in passes {
            *layers[k].entry(p).or_default() += c;
        }
        if k == max_discs {
            break;
        }
        let moves: Vec<(Naive, u64)> = layers[k]
            .iter()
            .filter(|(p, _)| !p.must_pass() && !p.is_over())
            .flat_map(|(p, &c)| p.children().into_iter().map(move |q| (q, c)))
            .collect();
        for (q, c) in moves {
            *layers[k + 1].entry(q).or_default() += c;
        }
    }
    layers
}

/// A layer's positions by the games reaching them, in powers of two:
/// (bucket b for 2^b <= games < 2^(b+1), positions, games), least first.
pub fn spread(layer: &HashMap<Naive, u64>) -> Vec<(u32, u64, u128)> {
    let mut by: std::collections::BTreeMap<u32, (u64, u128)> = Default::default();
    for &g in layer.values() {
        let b = 63 - g.leading_zeros();
        let e = by.entry(b).or_default();
        e.0 += 1;
        e.1 += g as u128;
    }
    by.into_iter().map(|(b, (n, g))| (b, n, g)).collect()
}

/// A layer's shapes (sets of occupied squares): how many occur, and how
/// many are reached by exactly one game (the games of a shape: the sum over
/// its positions).
pub fn shapes(layer: &HashMap<Naive, u64>) -> (u64, u64) {
    let mut games: HashMap<Vec<bool>, u64> = HashMap::new();
    for (p, &g) in layer {
        *games.entry(p.cells.iter().map(|&c| c != EMPTY).collect()).or_default() += g;
    }
    (games.len() as u64, games.values().filter(|&&g| g == 1).count() as u64)
}
