//! Commit: a phase of a layer becomes durable when its manifest replaces
//! the previous one (atomically); what the new manifest no longer needs is
//! then removed.

use super::LayersError;
use super::store::{Manifest, Phase, read_manifest, write_manifest};
use super::workdir::WorkDir;
use crate::software;

/// Makes `m` the state of the run, then sweeps what it no longer needs.
pub fn commit(work: &WorkDir, m: &mut Manifest) -> Result<(), LayersError> {
    m.software = software();
    write_manifest(&work.manifest(), m)?;
    work.sweep(m.keep());
    Ok(())
}

/// Reads the state of the run of `work`.
pub fn read_state(work: &WorkDir) -> Result<Manifest, LayersError> {
    if !work.manifest().is_file() {
        return Err(LayersError::WorkDir {
            path: work.root().to_path_buf(),
            detail: "not a layered-census work directory (no run.manifest)".into(),
        });
    }
    Ok(read_manifest(&work.manifest())?)
}

/// Moves the last layer of manifest `m` of the run of `work` to `limit`
/// (further, or back to no earlier than the layer reached), so that a
/// finished run can be taken further: its last layer is kept on disk and
/// is expanded next. Only `m` changes: the run's next commit records the
/// limit. The caller holds the run's lock.
pub fn set_limit(work: &WorkDir, m: &mut Manifest, limit: u32) -> Result<(), LayersError> {
    if m.phase == Phase::Counted && limit != m.run.limit {
        return Err(LayersError::WorkDir {
            path: work.root().to_path_buf(),
            detail: format!(
                "its last layer ({}) was counted without being stored (the run was started not to store it), so \
                 the run cannot be extended; start a new run to {limit}",
                m.layer
            ),
        });
    }
    let reached = m.layer + (m.phase == Phase::Expanded) as u32;
    if limit < reached {
        return Err(LayersError::WorkDir {
            path: work.root().to_path_buf(),
            detail: format!(
                "the run has already reached layer {reached}, so it cannot stop at {limit}: resume it with a limit \
                 of {reached} or more, or without one to finish its own limit ({}); the counts of layers up to \
                 {limit} are the first rows of its result",
                m.run.limit
            ),
        });
    }
    // in the manifest read, not on disk: the next commit records it, and a
    // resume that fails before one leaves the run's limit as it was
    m.run.limit = limit;
    Ok(())
}
