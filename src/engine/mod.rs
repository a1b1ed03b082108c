//! Census engines and the counts they share.

pub mod dfs;
pub mod hash;
pub mod layers;
pub mod memory;

use serde::Serialize;

/// Counts of one disc layer, or of a whole census. In checkpoint files it
/// is eight little-endian u64 in field order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Counts {
    /// Distinct reachable positions (board + side to move).
    pub positions: u64,
    /// Classes of positions under the four symmetries of the start.
    pub classes: u64,
    /// Distinct boards, side to move ignored.
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
}

impl Counts {
    /// Adds `other` field by field.
    pub fn add(&mut self, other: &Counts) {
        self.positions += other.positions;
        self.classes += other.classes;
        self.boards += other.boards;
        self.terminal_positions += other.terminal_positions;
        self.terminal_classes += other.terminal_classes;
        self.terminal_boards += other.terminal_boards;
        self.pass_positions += other.pass_positions;
        self.pass_classes += other.pass_classes;
    }
}

/// The counts of one disc layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Layer {
    /// Number of discs on the board.
    pub discs: u32,
    #[serde(flatten)]
    pub counts: Counts,
}

/// What a census found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CensusCounts {
    /// Layers 4..=max_discs, in order.
    pub layers: Vec<Layer>,
    /// Sum over the layers.
    pub totals: Counts,
    /// Positions expanded by the walkers.
    pub explored: u64,
    /// Children found already in the cache.
    pub repeated: u64,
}

impl CensusCounts {
    /// Builds the result from per-layer counts indexed by disc count.
    pub fn from_layers(by_discs: &[Counts], min: u32, max: u32, explored: u64, repeated: u64) -> CensusCounts {
        let layers: Vec<Layer> = (min..=max).map(|d| Layer { discs: d, counts: by_discs[d as usize] }).collect();
        let mut totals = Counts::default();
        for l in &layers {
            totals.add(&l.counts);
        }
        CensusCounts { layers, totals, explored, repeated }
    }
}
