//! What an expansion finds: the parent layer's counts and the games that
//! enter the next layer. A leaf of the layered engine: the expansion
//! ([`super::expand`]) makes it, the manifest ([`super::store`]) and an
//! expansion's progress ([`super::progress`]) keep it, and the driver sums it.

use crate::census::{Counts, GameSpread, add_games};

/// Games entering the next layer, carried between phases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entering {
    /// Game prefixes reaching the layer.
    pub games: u128,
    /// Of those, the ones whose last ply is a pass.
    pub passes: u128,
}

/// What an expansion found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expansion {
    /// Counts of the parent classes.
    pub counts: Counts,
    /// Games that end in the parent layer.
    pub ended: u128,
    /// Games entering the next layer.
    pub entering: Entering,
    /// Sum of the parents' multiplicities (the games reaching the layer).
    pub mass: u128,
    /// Child records generated (before merging).
    pub emitted: u64,
    /// The parents' positions by the games that reach them.
    pub spread: GameSpread,
    /// The parents' distinct shapes (sets of occupied squares), and those
    /// reached by exactly one game.
    pub shapes: (u64, u64),
}

impl Expansion {
    /// Adds the findings of another expansion (another worker or process).
    pub fn add(&mut self, o: &Expansion) {
        self.counts.add(&o.counts);
        self.ended = add_games(self.ended, o.ended);
        self.entering.games = add_games(self.entering.games, o.entering.games);
        self.entering.passes = add_games(self.entering.passes, o.entering.passes);
        self.mass = add_games(self.mass, o.mass);
        self.emitted += o.emitted;
        self.spread.add(&o.spread);
        self.shapes = (self.shapes.0 + o.shapes.0, self.shapes.1 + o.shapes.1);
    }
}

/// Field by field, in the order of the struct (`docs/layer-format.md`,
/// the manifest's slice counts; also the sums over ranks).
impl bincode::Encode for Expansion {
    fn encode<E: bincode::enc::Encoder>(&self, e: &mut E) -> Result<(), bincode::error::EncodeError> {
        self.counts.encode(e)?;
        self.ended.encode(e)?;
        self.entering.games.encode(e)?;
        self.entering.passes.encode(e)?;
        self.mass.encode(e)?;
        self.emitted.encode(e)?;
        self.spread.encode(e)?;
        self.shapes.0.encode(e)?;
        self.shapes.1.encode(e)
    }
}

impl<C> bincode::Decode<C> for Expansion {
    fn decode<D: bincode::de::Decoder<Context = C>>(d: &mut D) -> Result<Self, bincode::error::DecodeError> {
        Ok(Expansion {
            counts: Counts::decode(d)?,
            ended: u128::decode(d)?,
            entering: Entering { games: u128::decode(d)?, passes: u128::decode(d)? },
            mass: u128::decode(d)?,
            emitted: u64::decode(d)?,
            spread: GameSpread::decode(d)?,
            shapes: (u64::decode(d)?, u64::decode(d)?),
        })
    }
}
bincode::impl_borrow_decode!(Expansion);
