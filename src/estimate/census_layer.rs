//! A census layer the searches also stop at: read from a census work
//! directory, and what an estimate says of it.

use std::time::Instant;

use serde::Serialize;

use crate::key::{Keyed, PackedKey};
use crate::search::reachable::{Frontier, LayerHeld};
use crate::search::sorted_keys::SortedKeys;

/// Reachable positions of one layer above the frontier, read from a
/// census of it ([`census_layer`]): all of them, or those that need an odd
/// number of passes; the searches also stop at them.
#[derive(Clone, Debug)]
pub struct CensusLayer<G: Keyed> {
    /// Their disc count.
    pub discs: u32,
    /// Which positions of the layer they are.
    pub held: LayerHeld,
    /// Their canonical dense keys, in the census's order.
    pub keys: Vec<G::Key>,
    /// The census work directory they were read from.
    pub source: std::path::PathBuf,
    /// Classes of the layer read.
    pub layer_classes: u64,
    /// Seconds its reading took (an estimate's `--time` and elapsed time
    /// count them).
    pub read_seconds: f64,
}

/// Errors of [`census_layer`].
#[derive(Debug, thiserror::Error)]
pub enum CensusLayerError {
    #[error(transparent)]
    Layers(#[from] crate::engine::layers::LayersError),
    #[error("{}: {detail}", path.display())]
    Unsuitable { path: std::path::PathBuf, detail: String },
    /// The layer's keys do not fit in the memory left beside the searches.
    #[error(
        "{}: {classes} classes of {discs} discs need {} in memory, more than the {} left for them beside the \
         searches; use a census of the layer's odd-pass positions only, a census to fewer discs, or searches that \
         take less (fewer threads, a smaller budget)",
        path.display(),
        crate::text::human_bytes(*need as f64),
        crate::text::human_bytes(*memory as f64)
    )]
    TooLarge { path: std::path::PathBuf, classes: u64, discs: u32, need: u64, memory: u64 },
}

/// Reads the positions of the layer that a finished layered census by
/// discs of board `G` holds in `dir` (a run to K discs without
/// `--no-store-last`) that `held` says; the layer must lie above the
/// frontier of `frontier_discs`, and its keys must fit in `memory` bytes.
/// [`CensusLayerSource::open`] then [`CensusLayerSource::read`].
pub fn census_layer<G: Keyed>(
    dir: &std::path::Path,
    frontier_discs: u32,
    held: LayerHeld,
    memory: u64,
) -> Result<CensusLayer<G>, CensusLayerError> {
    CensusLayerSource::<G>::open(dir, frontier_discs, held, memory)?.read()
}

/// A census whose last layer can serve as a census layer, checked from its
/// manifest, not read yet.
pub struct CensusLayerSource<G: Keyed> {
    dir: std::path::PathBuf,
    held: LayerHeld,
    memory: u64,
    stored: crate::engine::layers::inspect::StoredLayer,
    board: std::marker::PhantomData<G>,
}

impl<G: Keyed> CensusLayerSource<G> {
    /// Checks the manifest of the census in `dir`: a census of another
    /// board or layering, of a layer not above the frontier of
    /// `frontier_discs`, or (`held` whole) of more classes than `memory`
    /// bytes hold, is refused before any part is read.
    pub fn open(
        dir: &std::path::Path,
        frontier_discs: u32,
        held: LayerHeld,
        memory: u64,
    ) -> Result<CensusLayerSource<G>, CensusLayerError> {
        let stored = crate::engine::layers::inspect::stored_layer(dir)?;
        let source =
            CensusLayerSource { dir: dir.to_path_buf(), held, memory, stored, board: std::marker::PhantomData };
        let stored = &source.stored;
        if stored.size != G::N {
            return Err(source.unsuitable(format!("a census of the {0}x{0} board, not {1}x{1}", stored.size, G::N)));
        }
        if stored.by != crate::census::LayerBy::Discs {
            return Err(source.unsuitable("a census by ply; a census layer comes from a census by discs".into()));
        }
        if stored.layer <= frontier_discs {
            return Err(source.unsuitable(format!(
                "its layer holds {} discs, not above the frontier ({frontier_discs} discs); run the census further",
                stored.layer
            )));
        }
        if held == LayerHeld::Whole && stored.classes > source.fits() {
            return Err(source.too_large(stored.classes));
        }
        Ok(source)
    }

    /// The disc count and the classes of the layer.
    pub fn layer(&self) -> (u32, u64) {
        (self.stored.layer, self.stored.classes)
    }

    /// What it will hold of its layer.
    pub fn held(&self) -> LayerHeld {
        self.held
    }

    /// The census directory.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    fn unsuitable(&self, detail: String) -> CensusLayerError {
        CensusLayerError::Unsuitable { path: self.dir.clone(), detail }
    }

    /// Keys that fit in the memory allowed, with their index.
    fn fits(&self) -> u64 {
        (self.memory as f64 / SortedKeys::<G::Key>::bytes_per_key()) as u64
    }

    fn too_large(&self, classes: u64) -> CensusLayerError {
        CensusLayerError::TooLarge {
            path: self.dir.clone(),
            classes,
            discs: self.stored.layer,
            need: (classes as f64 * SortedKeys::<G::Key>::bytes_per_key()).ceil() as u64,
            memory: self.memory,
        }
    }

    /// Reads the positions `held` says, each part checked (identity,
    /// checksums, record count) and each key unpacked to a position of the
    /// layer's disc count; odd-pass positions beyond the memory allowed are
    /// refused as soon as they exceed it.
    pub fn read(self) -> Result<CensusLayer<G>, CensusLayerError> {
        let started = Instant::now();
        let (layer, held, fits) = (self.stored.layer, self.held, self.fits());
        let mut keys = Vec::new();
        if held == LayerHeld::Whole {
            keys.reserve_exact(self.stored.classes as usize);
        }
        let (mut bad_key, mut over) = (None, false);
        let mut unpacker = crate::key::dense::Unpacker::<G>::new();
        crate::engine::layers::inspect::for_each_class(
            &self.dir,
            &mut |k| match unpacker.unpack(G::Key::from_u128(k)) {
                Ok(p) if p.discs() != layer => bad_key = Some(k),
                Ok(p) if held.answers(&p) => {
                    if keys.len() as u64 >= fits {
                        over = true;
                    } else {
                        keys.push(G::Key::from_u128(k));
                    }
                }
                Ok(_) => {}
                Err(_) => bad_key = Some(k),
            },
        )?;
        if let Some(k) = bad_key {
            return Err(self.unsuitable(format!("holds key {k}, which is no {0}x{0} position of {layer} discs", G::N)));
        }
        if over {
            return Err(self.too_large(fits + 1));
        }
        Ok(CensusLayer {
            discs: layer,
            held,
            keys,
            source: self.dir,
            layer_classes: self.stored.classes,
            read_seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The memory a census layer may take beside `reserved` bytes (the
/// searches and the frontier, [`search_memory`]): three quarters of what
/// the machine has available, and never more than what `reserved` and a
/// sixteenth for the rest leave of it; 1 GiB where that cannot be read.
pub fn census_layer_memory(reserved: u64) -> u64 {
    crate::engine::memory::available_memory()
        .map_or(1 << 30, |m| (m / 4 * 3).min((m - m / 16).saturating_sub(reserved)))
}

/// What an estimate says of the census layer its searches used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CensusLayerUsed {
    /// Its disc count.
    pub discs: u32,
    /// Which of its positions the searches answered from it.
    #[serde(serialize_with = "held_name")]
    pub held: LayerHeld,
    /// Classes held.
    pub classes: u64,
    /// The census work directory.
    pub source: String,
    /// Seconds its reading took (in `elapsed_seconds` and
    /// `frontier_seconds`); absent from documents written before.
    #[serde(default)]
    pub read_seconds: f64,
}

pub(super) fn held_name<S: serde::Serializer>(held: &LayerHeld, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(held.name())
}

/// `frontier` with the census layer `layer` where one is given, and what
/// the estimate's document says of it.
pub fn with_census_layer<G: Keyed>(
    frontier: Frontier<G>,
    layer: Option<CensusLayer<G>>,
) -> (Frontier<G>, Option<CensusLayerUsed>) {
    match layer {
        None => (frontier, None),
        Some(l) => {
            let used = CensusLayerUsed {
                discs: l.discs,
                held: l.held,
                classes: l.keys.len() as u64,
                source: l.source.display().to_string(),
                read_seconds: l.read_seconds,
            };
            (frontier.with_census_layer(l.discs, l.held, l.keys), Some(used))
        }
    }
}
