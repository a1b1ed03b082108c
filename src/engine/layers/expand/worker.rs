//! A worker of an expansion: what it holds (its buffers, its tallies, its
//! tables), how it buffers a child and spills its buffers. How it
//! classifies parents and makes children is in [`super::classify`].

use super::buffers::{BufferPool, BufferSet, Children};
use crate::board::cpu::{Avx2, CpuLevel};
use crate::census::LayerBy;
use crate::engine::layers::LayersError;
use crate::engine::layers::expansion::Expansion;
use crate::engine::layers::shapes::{ShapeParts, ShapeTable};
use crate::engine::layers::shuffle::ShuffleSink;
use crate::engine::layers::store::{RunEncoder, to_stored};
use crate::key::dense::{KeyTables, Unpacker, side_weight};
use crate::key::occupancy::occupancy_images;
use crate::key::{Keyed, PackedKey};

pub(super) struct Worker<'a, G: Keyed> {
    pub(super) by: LayerBy,
    pub(super) generate: bool,
    /// Child records buffered, over every partition.
    pub(super) held: usize,
    /// The children, one buffer per partition of the next layer, each
    /// allocated once (spilled before it would grow).
    pub(super) split: Vec<Children<G::Key>>,
    /// The records of one spilled partition, summed and encoded.
    pub(super) out: RunEncoder,
    pub(super) sink: &'a dyn ShuffleSink,
    pub(super) found: Expansion,
    /// The token of the AVX2 level where this CPU has it: the copy
    /// compiled for it runs then.
    pub(super) avx2: Option<Avx2>,
    /// The shapes of the part being read, tallied, and where a part's
    /// tally goes (none: the worker counts its own records alone, and its
    /// tally is final when it is flushed).
    pub(super) shapes: ShapeTable<G>,
    /// The shapes of the chunk being read, and the games reaching each
    /// image of each, until they are added to `shapes`.
    pub(super) chunk_shapes: Vec<(u64, u128)>,
    pub(super) shape_part: usize,
    pub(super) shape_records: u64,
    pub(super) parts: Option<&'a ShapeParts<G>>,
    /// The images of each square (of its bit) under the four symmetries,
    /// which make a child's occupancy images from its parent's.
    pub(super) square_images: [[u64; 4]; 64],
    /// The board's key tables (fetched once, not at every child).
    pub(super) tables: &'static KeyTables<G::Key>,
    /// Unpacks the records, read in key order (with their images' keys
    /// where children are made).
    pub(super) unpacker: Unpacker<G>,
}

impl<'a, G: Keyed> Worker<'a, G> {
    pub(super) const SIDE: u128 = side_weight(G::N);
    pub(super) const PAYLOAD: u32 = Children::<G::Key>::payload_bits(Self::SIDE);

    /// A worker buffering about `cap` children (split evenly, as the hash
    /// spreads them, with 1/8 to spare per partition), in buffers of its own.
    pub(super) fn new(by: LayerBy, generate: bool, cap: usize, sink: &'a dyn ShuffleSink) -> Self {
        Self::with_pool(by, generate, cap, sink, &BufferPool::default())
    }

    /// [`Worker::new`], with buffers from `pool` where it has them.
    pub(super) fn with_pool(
        by: LayerBy,
        generate: bool,
        cap: usize,
        sink: &'a dyn ShuffleSink,
        pool: &BufferPool<G::Key>,
    ) -> Self {
        let parts = sink.partitions();
        let kept = (0..parts).filter(|&j| sink.keeps(j)).count().max(1);
        let each = if generate { (cap / kept + cap / kept / 8).max(64) } else { 0 };
        let capacities: Vec<usize> = (0..parts).map(|j| if sink.keeps(j) { each } else { 0 }).collect();
        let (split, out) = pool.take(&capacities);
        Worker {
            by,
            generate,
            held: 0,
            split,
            out,
            sink,
            found: Expansion::default(),
            avx2: CpuLevel::detect().avx2(),
            shapes: ShapeTable::default(),
            chunk_shapes: Vec::new(),
            shape_part: 0,
            shape_records: 0,
            parts: None,
            square_images: std::array::from_fn(|sq| {
                if sq < G::SQUARES as usize { occupancy_images::<G>(1 << sq) } else { [0; 4] }
            }),
            tables: G::key_tables(),
            unpacker: Unpacker::new(),
        }
    }

    /// What it found, and its buffers with the children it still holds
    /// (for [`spill_together`]).
    pub(super) fn into_results(mut self) -> (Expansion, BufferSet<G::Key>) {
        let set = (std::mem::take(&mut self.split), std::mem::take(&mut self.out));
        (self.found, set)
    }

    /// Hands the tally of the current part on (or counts it, alone).
    pub(super) fn flush_shapes(&mut self) {
        if self.shape_records == 0 {
            return;
        }
        let table = std::mem::take(&mut self.shapes);
        match self.parts {
            Some(parts) => parts.merge(self.shape_part, table, self.shape_records),
            None => {
                let (n, u) = table.counts();
                self.found.shapes = (self.found.shapes.0 + n, self.found.shapes.1 + u);
            }
        }
        self.shape_records = 0;
    }

    /// Buffers a child of partition `j` (that of its canonical occupancy).
    #[inline]
    pub(super) fn push(&mut self, key: G::Key, m: u128, j: usize) -> Result<(), LayersError> {
        let stored = to_stored(key.to_u128(), Self::SIDE);
        let part = &mut self.split[j];
        if part.absent() {
            return Ok(()); // a partition of another slice
        }
        part.push(stored, m, Self::PAYLOAD);
        self.held += 1;
        self.found.emitted += 1;
        if part.full() {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts each partition's buffer, sums duplicates, and sends one run
    /// per partition.
    pub(super) fn spill(&mut self) -> Result<(), LayersError> {
        if self.held == 0 {
            return Ok(());
        }
        for (j, part) in self.split.iter_mut().enumerate() {
            if part.is_empty() {
                continue;
            }
            part.spill(Self::PAYLOAD, j, &mut self.out, self.sink)?;
        }
        self.held = 0;
        Ok(())
    }
}
