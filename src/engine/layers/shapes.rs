//! The shapes of a layer (its sets of occupied squares, OEIS A125528) and
//! those reached by exactly one game (A125529), tallied while the layer's
//! classes are expanded or counted.
//!
//! Every class of a shape lies in one partition (partitions follow the
//! canonical occupancy), so a part's shapes are final once each of its
//! records has been tallied. A worker tallies the records it is handed in
//! a [`ShapeTable`]; the tallies of one part made by several workers are
//! joined in [`ShapeParts`], which counts the part and drops it as soon as
//! they cover it, so only the parts in flight are held.
//!
//! A layer's classes are looked up once each, in no order that follows
//! their shapes, so the table is built for cache misses: one 8-byte word a
//! shape, linear probing, and a prefetch issued one class ahead.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Mutex;

use crate::board::Geometry;
use crate::board::cpu::prefetch;
use crate::key::occupancy::canonical_occupancy;

/// The bit of the upper-left centre square of a board of side `n`, which
/// every occupancy holds.
const fn centre_bit(n: u32) -> u64 {
    1 << ((n / 2 - 1) * n + n / 2 - 1)
}

/// The canonical occupancies seen, each with whether more than one game
/// reaches each of its images. A slot holds 0 (empty) or the occupancy,
/// with its upper-left centre square cleared once a second game reaches
/// it (every occupancy holds that square, so neither form is ever 0).
/// Linear probing in a power-of-two table at most half full; the orbit of
/// a shape is found again from the shape when it is counted.
pub struct ShapeTable<G: Geometry> {
    slots: Vec<u64>,
    len: usize,
    shift: u32,
    geometry: PhantomData<G>,
}

impl<G: Geometry> Default for ShapeTable<G> {
    fn default() -> Self {
        Self::with_bits(10)
    }
}

impl<G: Geometry> ShapeTable<G> {
    const MORE: u64 = centre_bit(G::N);

    fn with_bits(bits: u32) -> Self {
        ShapeTable { slots: vec![0; 1 << bits], len: 0, shift: 64 - bits, geometry: PhantomData }
    }

    /// Distinct shapes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no shape is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first slot to probe for `shape` (Fibonacci hashing: the top
    /// bits of a multiple by 2^64 / golden ratio).
    #[inline(always)]
    fn home(&self, shape: u64) -> usize {
        (shape.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Adds each `(shape, games)` of `adds` as [`Self::add`] does, asking
    /// for the slots a few adds ahead: the lookups of a layer's classes
    /// miss the caches, and so overlap.
    pub fn add_all(&mut self, adds: &[(u64, u128)]) {
        const AHEAD: usize = 8;
        for (i, &(shape, games)) in adds.iter().enumerate() {
            if let Some(&(next, _)) = adds.get(i + AHEAD) {
                prefetch(&self.slots[self.home(next)]);
            }
            self.add(shape, games);
        }
    }

    /// Adds `games` (at least one) reaching each image of canonical
    /// occupancy `shape`.
    #[inline]
    pub fn add(&mut self, shape: u64, games: u128) {
        debug_assert!(shape & Self::MORE != 0 && games >= 1);
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(shape);
        loop {
            let e = self.slots[i];
            if e == 0 {
                self.slots[i] = if games == 1 { shape } else { shape & !Self::MORE };
                self.len += 1;
                return;
            }
            if e | Self::MORE == shape {
                self.slots[i] = shape & !Self::MORE;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bits = 64 - self.shift + 1;
        let old = std::mem::replace(self, Self::with_bits(bits));
        for e in old.slots.into_iter().filter(|&e| e != 0) {
            self.insert_new(e);
        }
    }

    /// Puts a slot's word, whose shape is not held, in its place.
    fn insert_new(&mut self, e: u64) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(e | Self::MORE);
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = e;
        self.len += 1;
    }

    /// Adds the tallies of `other` (the same part, tallied elsewhere).
    pub fn join(&mut self, other: &ShapeTable<G>) {
        for &e in other.slots.iter().filter(|&&e| e != 0) {
            self.add(e | Self::MORE, if e & Self::MORE != 0 { 1 } else { 2 });
        }
    }

    /// The shapes held, each counted for its whole orbit (1, 2 or 4
    /// images), and those reached by exactly one game.
    pub fn counts(&self) -> (u64, u64) {
        self.slots.iter().filter(|&&e| e != 0).fold((0, 0), |(n, u), &e| {
            let images = canonical_occupancy::<G>(e | Self::MORE).1 as u64;
            (n + images, u + if e & Self::MORE != 0 { images } else { 0 })
        })
    }
}

/// The shapes of the parts being expanded or counted: the workers'
/// tallies of each open part, the records they cover, and the counts of
/// the parts finished.
pub struct ShapeParts<G: Geometry> {
    expected: Vec<u64>,
    open: Mutex<HashMap<usize, (ShapeTable<G>, u64)>>,
    done: Mutex<(u64, u64)>,
}

impl<G: Geometry> ShapeParts<G> {
    /// For parts holding the given numbers of records.
    pub fn new(expected: Vec<u64>) -> Self {
        ShapeParts { expected, open: Mutex::new(HashMap::new()), done: Mutex::new((0, 0)) }
    }

    /// Adds a worker's tally of `records` records of `part`. Tallies are
    /// joined outside the lock (the smaller into the larger); whoever
    /// completes the part counts it.
    pub fn merge(&self, part: usize, mut table: ShapeTable<G>, mut records: u64) {
        loop {
            let held = self.open.lock().expect("shape lock").remove(&part);
            if let Some((other, n)) = held {
                let (mut big, small) = if other.len() > table.len() { (other, table) } else { (table, other) };
                big.join(&small);
                table = big;
                records += n;
                continue;
            }
            if records == self.expected[part] {
                let (n, u) = table.counts();
                let mut done = self.done.lock().expect("shape lock");
                *done = (done.0 + n, done.1 + u);
                return;
            }
            let mut open = self.open.lock().expect("shape lock");
            // another worker may have put a tally of the part back meanwhile
            if let std::collections::hash_map::Entry::Vacant(v) = open.entry(part) {
                v.insert((table, records));
                return;
            }
        }
    }

    /// The counts of every part, or the first part whose tallies do not
    /// cover it (its index, and the records tallied).
    pub fn finish(self) -> Result<(u64, u64), (usize, u64)> {
        let open = self.open.into_inner().expect("shape lock");
        if let Some((&part, &(_, seen))) = open.iter().next() {
            return Err((part, seen));
        }
        Ok(self.done.into_inner().expect("shape lock"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    /// The table against a map of (canonical occupancy -> games per image),
    /// for random adds split over two tables (one by single adds, one by a
    /// batch) and joined, on every size.
    fn check<G: Geometry>(adds: &[(u64, u8, bool)]) -> Result<(), proptest::test_runner::TestCaseError> {
        let centre = !crate::board::Position::<G>::start().empty().0 & G::FULL;
        let mut want: HashMap<u64, u128> = HashMap::new();
        let (mut a, mut b) = (ShapeTable::<G>::default(), ShapeTable::<G>::default());
        let mut batch = Vec::new();
        for &(x, games, first) in adds {
            let (shape, _) = canonical_occupancy::<G>((x & G::FULL) | centre);
            let games = games as u128 + 1;
            *want.entry(shape).or_default() += games;
            if first { a.add(shape, games) } else { batch.push((shape, games)) }
        }
        b.add_all(&batch);
        a.join(&b);
        proptest::prop_assert_eq!(a.len(), want.len());
        let images = |s: u64| canonical_occupancy::<G>(s).1 as u64;
        let n = want.keys().map(|&s| images(s)).sum::<u64>();
        let u = want.iter().filter(|&(_, &g)| g == 1).map(|(&s, _)| images(s)).sum::<u64>();
        proptest::prop_assert_eq!(a.counts(), (n, u));
        Ok(())
    }

    proptest::proptest! {
        /// Few distinct occupancies (repeats, the table's growth through
        /// several sizes) and games of 1 or more.
        #[test]
        fn the_table_counts_like_a_map(
            adds in proptest::collection::vec((0u64..3000, 0u8..3, proptest::bool::ANY), 0..4000),
            spread in 0u32..40,
        ) {
            let adds: Vec<_> = adds.into_iter().map(|(x, g, f)| (x.rotate_left(spread) ^ x, g, f)).collect();
            check::<B4>(&adds)?;
            check::<B6>(&adds)?;
            check::<B8>(&adds)?;
        }
    }

    #[test]
    fn the_flag_square_is_in_every_start() {
        fn check<G: Geometry>() {
            assert_ne!(!crate::board::Position::<G>::start().empty().0 & centre_bit(G::N), 0);
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }
}
