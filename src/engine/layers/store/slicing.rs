//! A last layer counted in slices of its partitions (the manifest keeps
//! how far it got).

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use crate::engine::layers::expansion::Expansion;

/// A last layer counted in slices of its partitions: slice `i` of `K`
/// holds the partitions `j` with `j * K / P == i`. Each slice expands the
/// whole parent layer, keeps the children of its own partitions, merges
/// and counts them, and is committed before the next begins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slicing {
    /// Slices of the layer (0 when the run is not slicing).
    pub slices: u32,
    /// Slices counted so far.
    pub done: u32,
    /// The sum of their counts.
    pub counted: Expansion,
}

impl Slicing {
    /// The slice that partition `j` of `partitions` belongs to.
    pub fn slice_of(j: u32, slices: u32, partitions: u32) -> u32 {
        (j as u64 * slices as u64 / partitions.max(1) as u64) as u32
    }
}

impl Encode for Slicing {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(e, self.slices, self.done, self.counted)
    }
}

impl<C> Decode<C> for Slicing {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(Slicing { slices: u32::decode(d)?, done: u32::decode(d)?, counted: Expansion::decode(d)? })
    }
}
