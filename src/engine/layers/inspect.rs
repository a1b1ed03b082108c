//! A layered work directory examined without running it: its state from
//! the manifest, and every part the manifest promises read back and
//! checked (checksums, record counts). What `othello-census inspect DIR`
//! prints.

use std::path::Path;

use serde::Serialize;

use super::LayersError;
use super::commit::read_state;
use super::merge::count_part;
use super::store::Phase;
use super::transport::owner_of;
use super::workdir::WorkDir;
use crate::census::LayerBy;
use crate::report::group_digits;

/// What a work directory holds and whether its parts are sound.
#[derive(Clone, Debug, Serialize)]
pub struct Inspection {
    pub work_dir: String,
    /// The software that last wrote the manifest.
    pub software: String,
    pub size: u32,
    /// `discs` or `ply` (`unknown` for a code this build does not know).
    pub by: &'static str,
    pub limit: u32,
    pub partitions: u32,
    pub command: String,
    pub started_unix: u64,
    pub memory_limit: u64,
    /// The layer of the committed state, and its phase.
    pub layer: u32,
    pub phase: &'static str,
    pub slices: u32,
    pub slices_done: u32,
    pub layers_counted: usize,
    pub elapsed_seconds: f64,
    /// Bytes of the work directory.
    pub bytes: u64,
    /// The layer whose parts were checked, and how many.
    pub checked_layer: u32,
    pub parts_checked: u64,
    pub checksums_ok: bool,
    /// One line per part that failed its check.
    pub problems: Vec<String>,
    /// The state in words.
    #[serde(skip)]
    pub state: String,
    /// The layers whose counts are final, in words.
    #[serde(skip)]
    pub counted: String,
}

/// Reads the manifest of the run in `dir` and checks every part of the
/// layer it stands on (the complete layer's; or, after an expansion, the
/// next layer's parts merged so far). A part of a run of MPI ranks is
/// looked for in the directory of the rank that owns it.
pub fn inspect(dir: &Path) -> Result<Inspection, LayersError> {
    let work = WorkDir::new(dir);
    let m = read_state(&work)?;
    let state = match m.phase {
        Phase::Complete => {
            format!("layer {} complete ({} classes)", m.layer, group_digits(m.part_records.iter().sum::<u64>()))
        }
        Phase::Expanded => format!("layer {} expanded; layer {} waiting to be merged", m.layer, m.layer + 1),
        Phase::Counted => format!("finished; its last layer, {}, was counted while merged and not stored", m.layer),
        Phase::Slicing => format!(
            "layer {} complete; its last layer, {}, is counted in {} slices, {} done",
            m.layer,
            m.layer + 1,
            m.slicing.slices,
            m.slicing.done
        ),
    };
    let counted = match (m.stats.first(), m.stats.last()) {
        (Some(f), Some(l)) if m.phase == Phase::Complete && l.layer < m.layer => format!(
            "counts final for layers {}..{} ({}; layer {} is counted as it is expanded)",
            f.layer,
            l.layer,
            m.stats.len(),
            m.layer
        ),
        (Some(f), Some(l)) => format!("counts final for layers {}..{} ({})", f.layer, l.layer, m.stats.len()),
        _ => "no layer counted yet".to_string(),
    };
    // the parts of the complete layer, all promised; after an expansion,
    // those of the next layer merged so far; none once counted
    let (layer, promised) =
        if matches!(m.phase, Phase::Complete | Phase::Slicing) { (m.layer, true) } else { (m.layer + 1, false) };
    let ranks = work.ranks();
    let mut problems = Vec::new();
    let mut checked = 0;
    for j in (0..m.run.partitions).filter(|_| m.phase != Phase::Counted) {
        let path = match ranks {
            Some(r) => work.for_rank(owner_of(j, r), r).part(layer, j),
            None => work.part(layer, j),
        };
        if !promised && !path.exists() {
            continue;
        }
        checked += 1;
        match count_part(&path, &m.run.part(layer, j)) {
            Ok(n) if promised && n != m.part_records[j as usize] => problems.push(format!(
                "{}: holds {n} records, the manifest says {}",
                path.display(),
                m.part_records[j as usize]
            )),
            Ok(_) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    Ok(Inspection {
        work_dir: dir.display().to_string(),
        software: m.software.clone(),
        size: m.run.size,
        by: LayerBy::from_code(m.run.by).map_or("unknown", LayerBy::name),
        limit: m.run.limit,
        partitions: m.run.partitions,
        command: m.run.command.clone(),
        started_unix: m.run.started_unix,
        memory_limit: m.run.memory_limit,
        layer: m.layer,
        phase: m.phase.name(),
        slices: m.slicing.slices,
        slices_done: m.slicing.done,
        layers_counted: m.stats.len(),
        elapsed_seconds: m.elapsed_seconds,
        bytes: work.bytes(),
        checked_layer: layer,
        parts_checked: checked,
        checksums_ok: problems.is_empty(),
        problems,
        state,
        counted,
    })
}
