//! The frontier the backward searches stop at: every reachable position
//! up to a disc count, enumerated forwards, and a census layer above it.

use rustc_hash::FxHashSet;

use crate::board::{Color, Geometry, Position};
use crate::key::{Keyed, canonical_key};
use crate::search::sorted_keys::SortedKeys;

/// Every reachable position of up to [`Frontier::discs`] discs, by class,
/// enumerated forwards from the start; and, optionally, the reachable
/// positions of one larger disc count read from a census of that layer:
/// all of them, or only those that need an odd number of passes
/// ([`Frontier::with_census_layer`]).
pub struct Frontier<G: Keyed> {
    pub(super) discs: u32,
    pub(super) known: FxHashSet<G::Key>,
    pub(super) layer: Option<LayerLookup<G>>,
}

/// Which reachable positions of its layer a census layer of a
/// [`Frontier`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerHeld {
    /// Those whose side to move is that of an odd number of passes
    /// ([`odd_passes`]): a small part of a layer below the full board, and
    /// the positions whose searches are the longest.
    OddPasses,
    /// Every one: no search goes below the layer.
    Whole,
}

impl LayerHeld {
    /// Whether a census layer of this kind holds `p`'s answer (`p` of the
    /// layer's disc count).
    #[inline]
    pub fn answers<G: Geometry>(self, p: &Position<G>) -> bool {
        self == LayerHeld::Whole || odd_passes(p)
    }

    /// Its name in results and messages: `whole` or `odd passes`.
    pub fn name(self) -> &'static str {
        match self {
            LayerHeld::OddPasses => "odd passes",
            LayerHeld::Whole => "whole",
        }
    }
}

/// The census layer a frontier also answers from, held for lookups:
/// reachable positions of one disc count above the enumerated frontier,
/// by class, as sorted canonical keys (a sorted array, not a hash set: a
/// whole layer of 6x6 at 18 discs is 1.3 G classes, 8 bytes each). The
/// layer as read from a census, with where it came from, is the
/// estimator's `CensusLayer`; this is only what the searches look up.
pub(super) struct LayerLookup<G: Keyed> {
    pub(super) discs: u32,
    pub(super) held: LayerHeld,
    pub(super) keys: SortedKeys<G::Key>,
}

/// Whether every game reaching `p` has an odd number of passes: each move
/// adds a disc and hands the move over, a pass only hands it over, and
/// Black moves first with 4 discs on the board; so without passes (or with
/// an even number) Black is to move exactly when the disc count is even.
#[inline]
pub fn odd_passes<G: Geometry>(p: &Position<G>) -> bool {
    p.discs().is_multiple_of(2) != (p.side_to_move() == Color::Black)
}

/// The default frontier of a board: every reachable position up to this
/// many discs (6x6: 2.1 M classes, 8x8: 0.5 M, built in seconds).
pub fn default_frontier_discs(size: crate::board::BoardSize) -> u32 {
    match size {
        crate::board::BoardSize::Four => 8,
        crate::board::BoardSize::Six => 14,
        crate::board::BoardSize::Eight => 13,
    }
}

impl<G: Keyed> Frontier<G> {
    /// Enumerates every reachable position of at most `discs` discs (at
    /// least the 4 of the start). A position of `k` discs is reached only
    /// through positions of at most `k` discs, so the walk never needs
    /// more.
    pub fn build(discs: u32) -> Frontier<G> {
        let discs = discs.clamp(4, G::SQUARES);
        let start = Position::<G>::start();
        let mut known = FxHashSet::default();
        known.insert(canonical_key(&start));
        let mut stack = vec![start];
        while let Some(p) = stack.pop() {
            for c in p.children() {
                if c.discs() <= discs && known.insert(canonical_key(&c)) {
                    stack.push(c);
                }
            }
        }
        Frontier { discs, known, layer: None }
    }

    /// Adds the reachable positions of layer `discs` (above the
    /// enumerated frontier) that `held` says: `keys` must be the canonical
    /// keys of every such position, as a census of the layer lists them
    /// (`estimate::census_layer` reads them so; they are sorted here, in
    /// place). A search for the estimates that meets a position of the
    /// layer that `held` covers answers it from them instead of searching
    /// below it. A position that needs a pass is otherwise proven
    /// unreachable only by exhausting every line below it; with the whole
    /// layer, no search goes below it at all.
    pub fn with_census_layer(mut self, discs: u32, held: LayerHeld, keys: Vec<G::Key>) -> Frontier<G> {
        assert!(discs > self.discs, "the census layer ({discs}) lies above the frontier ({})", self.discs);
        self.layer = Some(LayerLookup { discs, held, keys: SortedKeys::new(keys) });
        self
    }

    /// The census layer, if one was added: its disc count, what it holds,
    /// and its classes.
    pub fn census_layer(&self) -> Option<(u32, LayerHeld, usize)> {
        self.layer.as_ref().map(|l| (l.discs, l.held, l.keys.len()))
    }

    /// Whether the frontier decides `p` without a search, and how: every
    /// position of at most [`Frontier::discs`] discs, and (with
    /// `use_layer`) a position of the census layer's disc count that the
    /// layer covers.
    #[inline]
    pub(super) fn decides(&self, p: &Position<G>, use_layer: bool) -> Option<bool> {
        if p.discs() <= self.discs {
            return Some(self.known.contains(&canonical_key(p)));
        }
        match &self.layer {
            Some(l) if use_layer && p.discs() == l.discs && l.held.answers(p) => {
                Some(l.keys.contains(&canonical_key(p)))
            }
            _ => None,
        }
    }

    /// The most discs of the positions it holds.
    pub fn discs(&self) -> u32 {
        self.discs
    }

    /// Classes held (every reachable class of up to `discs` discs).
    pub fn classes(&self) -> usize {
        self.known.len()
    }

    /// Bytes of memory it holds, about.
    pub fn bytes(&self) -> usize {
        let layer = self.layer.as_ref().map_or(0, |l| l.keys.bytes());
        self.known.capacity() * (std::mem::size_of::<G::Key>() + 1) + layer
    }

    /// An estimate of the bytes a frontier of up to `discs` discs takes
    /// while built (every class's key in a hash set at worst half full,
    /// and the walk's stack), from the census's estimate of each layer.
    pub fn bytes_needed(discs: u32) -> f64 {
        let classes = crate::engine::memory::estimate_classes(G::SIZE, discs.clamp(4, G::SQUARES));
        classes * (std::mem::size_of::<G::Key>() + 1) as f64 * 2.0
            + classes * 0.1 * std::mem::size_of::<Position<G>>() as f64
    }

    /// Whether `p`, of at most [`Frontier::discs`] discs, is reachable.
    pub fn contains(&self, p: &Position<G>) -> bool {
        p.discs() <= self.discs && self.known.contains(&canonical_key(p))
    }
}
