//! A layer counted from its records in key order, making no children: the
//! last layer, counted while it is merged and never stored.

use std::path::PathBuf;

use super::worker::Worker;
use super::{CHUNK, cut_before};
use crate::census::LayerBy;
use crate::engine::layers::LayersError;
use crate::engine::layers::expansion::Expansion;
use crate::engine::layers::store::Record;
use crate::key::Keyed;

/// Counts a layer from its records handed over in key order, generating no
/// children: a last layer counted while it is merged, never stored.
pub struct Counter<G: Keyed> {
    worker: Worker<'static, G>,
    chunk: Vec<Record>,
    path: PathBuf,
}

static NO_CHILDREN: crate::engine::layers::shuffle::NoChildren = crate::engine::layers::shuffle::NoChildren;

impl<G: Keyed> Counter<G> {
    /// A counter for the records of `path` (named in errors).
    pub fn new(by: LayerBy, path: PathBuf) -> Self {
        Counter { worker: Worker::new(by, false, 0, &NO_CHILDREN), chunk: Vec::with_capacity(CHUNK + 1), path }
    }

    /// Takes the next record (keys strictly increasing).
    pub fn push(&mut self, r: Record) -> Result<(), LayersError> {
        if cut_before(&self.chunk, &r) {
            self.flush()?;
        }
        self.chunk.push(r);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), LayersError> {
        let r = self.worker.chunk(&self.chunk, 0, &self.path);
        self.chunk.clear();
        r
    }

    /// What the records counted to.
    pub fn finish(mut self) -> Result<Expansion, LayersError> {
        self.flush()?;
        self.worker.flush_shapes();
        Ok(self.worker.found)
    }
}
