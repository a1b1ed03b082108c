//! What the ranks of a run exchange beside the children: the manifest
//! from rank 0, and the sum of their expansions.

use crate::engine::layers::LayersError;
use crate::engine::layers::expansion::Expansion;
use crate::engine::layers::store::Manifest;
use crate::engine::layers::transport::Transport;
use crate::formats::framed::{bincode_config, encode};

/// Rank 0's manifest, on every rank.
pub(super) fn share_manifest<T: Transport>(t: &T, m: Option<Manifest>) -> Result<Manifest, LayersError> {
    if t.ranks() == 1 {
        return Ok(m.expect("rank 0 read the manifest"));
    }
    let bytes = t.broadcast(m.map(|m| encode(&m)).unwrap_or_default());
    decode(&bytes, "the manifest from rank 0")
}

/// Decodes a value encoded by [`encode`] that another rank sent.
pub(super) fn decode<T: bincode::Decode<()>>(bytes: &[u8], what: &str) -> Result<T, LayersError> {
    bincode::decode_from_slice(bytes, bincode_config()).map(|(v, _)| v).map_err(|e| LayersError::WorkDir {
        path: std::path::PathBuf::from(what),
        detail: format!("cannot decode: {e}"),
    })
}

/// The sum over every rank of their expansions.
pub(super) fn sum_expansions<T: Transport>(t: &T, ex: Expansion) -> Result<Expansion, LayersError> {
    if t.ranks() == 1 {
        return Ok(ex);
    }
    let mut total = Expansion::default();
    for bytes in t.gather_bytes(&encode(&ex)) {
        total.add(&decode(&bytes, "the expansion of a rank")?);
    }
    Ok(total)
}
