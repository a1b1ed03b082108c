//! Commit: a phase of a layer becomes durable when its manifest replaces
//! the previous one (atomically); what the new manifest no longer needs is
//! then removed.

use super::LayersError;
use super::store::{Manifest, read_manifest, write_manifest};
use super::workdir::WorkDir;
use crate::software;

/// Makes `m` the state of the run, then sweeps what it no longer needs.
pub fn commit(work: &WorkDir, m: &mut Manifest) -> Result<(), LayersError> {
    m.software = software();
    write_manifest(&work.manifest(), m)?;
    work.sweep(m);
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
