//! A layered work directory examined without running it: its state from
//! the manifest, and every part the manifest promises read back and
//! checked (checksums, record counts). What `othello-census inspect DIR`
//! prints.

use std::path::Path;

use serde::Serialize;

use super::LayersError;
use super::commit::read_state;
use super::merge::count_part;
use super::store::{PartReader, Phase, from_stored};
use super::transport::owner_of;
use super::workdir::WorkDir;
use crate::census::LayerBy;
use crate::text::group_digits;

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
    /// The `--slices`, `--compact-buckets` and `--disk` the run was last
    /// given, which a `resume` without them keeps.
    pub settings: InspectedSettings,
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
    /// Whether another process holds the run's lock: it is running, and a
    /// part it is writing may fail the checks for a moment.
    pub running: bool,
    /// The state in words.
    #[serde(skip)]
    pub state: String,
    /// The layers whose counts are final, in words.
    #[serde(skip)]
    pub counted: String,
}

/// The settings a run keeps across resumes ([`super::store::RunSettings`],
/// and the manifest's `out`).
#[derive(Clone, Debug, Serialize)]
pub struct InspectedSettings {
    /// `--slices` (none: as the disk allows).
    pub slices: Option<u32>,
    /// `--compact-buckets`.
    pub compact_buckets: bool,
    /// `--disk`, bytes (none: the free space).
    pub disk_limit: Option<u64>,
    /// `--out`, absolute (none: the default).
    pub out: Option<String>,
}

impl InspectedSettings {
    /// As the options that give them (`none given` for the defaults).
    pub fn as_options(&self) -> String {
        let mut v = Vec::new();
        if let Some(k) = self.slices {
            v.push(format!("--slices {k}")); // command line
        }
        if self.compact_buckets {
            v.push("--compact-buckets".to_string()); // command line
        }
        if let Some(d) = self.disk_limit {
            v.push(format!("--disk {d}")); // command line
        }
        if let Some(o) = &self.out {
            v.push(format!("--out {}", crate::text::shell_path(Path::new(o)))); // command line
        }
        if v.is_empty() { "none given".to_string() } else { v.join(" ") }
    }
}

/// The layer a work directory holds complete on disk, as
/// [`for_each_class`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredLayer {
    /// Board side.
    pub size: u32,
    /// How the run is layered.
    pub by: LayerBy,
    /// The layer (a disc count, or a ply).
    pub layer: u32,
    /// Its classes.
    pub classes: u64,
}

/// The complete layer the run in `dir` holds on disk (its last stored
/// layer), from its manifest. Refused in one line where no layer is stored
/// complete: a run whose last layer was counted without being stored, or
/// one stopped between phases (resume it first).
pub fn stored_layer(dir: &Path) -> Result<StoredLayer, LayersError> {
    stored(dir).map(|(s, _)| s)
}

fn stored(dir: &Path) -> Result<(StoredLayer, super::store::Manifest), LayersError> {
    let m = read_state(&WorkDir::new(dir))?;
    let bad = |detail: String| LayersError::WorkDir { path: dir.to_path_buf(), detail };
    let by = LayerBy::from_code(m.run.by).ok_or_else(|| bad(format!("an unknown layering ({})", m.run.by)))?;
    match m.phase {
        Phase::Complete | Phase::Slicing => {}
        Phase::Counted => {
            return Err(bad(format!(
                "its last layer ({}) was counted without being stored (the run was told not to store it); run the \
                 census to that layer again, storing it",
                m.layer
            )));
        }
        Phase::Expanded => {
            return Err(bad(format!(
                "it stopped between layers {} and {}; finish it first (othello-census resume)",
                m.layer,
                m.layer + 1
            )));
        }
    }
    let classes = m.part_records.iter().sum();
    Ok((StoredLayer { size: m.run.size, by, layer: m.layer, classes }, m))
}

/// Where part `j` of `layer` lies: in the directory of the rank that owns
/// it for a run of MPI ranks (`ranks`), else in the run's own.
fn part_path(work: &WorkDir, ranks: Option<u32>, layer: u32, j: u32) -> std::path::PathBuf {
    match ranks {
        Some(r) => work.for_rank(owner_of(j, r), r).part(layer, j),
        None => work.part(layer, j),
    }
}

/// Hands the canonical dense key of every class of [`stored_layer`] to
/// `each`, part by part in key order, checking every part against the
/// manifest (identity, checksums, record count).
pub fn for_each_class(dir: &Path, each: &mut dyn FnMut(u128)) -> Result<StoredLayer, LayersError> {
    let (layer, m) = stored(dir)?;
    let work = WorkDir::new(dir);
    let side = crate::key::dense::side_weight(m.run.size);
    let ranks = work.ranks();
    for j in 0..m.run.partitions {
        let path = part_path(&work, ranks, m.layer, j);
        let mut r = PartReader::open(&path, &m.run.part(m.layer, j))?;
        while let Some((stored, _)) = r.next_record()? {
            each(from_stored(stored, side));
        }
        if r.count() != m.part_records[j as usize] {
            return Err(LayersError::WorkDir {
                path: dir.to_path_buf(),
                detail: format!(
                    "{} holds {} records, the manifest says {}",
                    path.display(),
                    r.count(),
                    m.part_records[j as usize]
                ),
            });
        }
    }
    Ok(layer)
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
        let path = part_path(&work, ranks, layer, j);
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
        settings: InspectedSettings {
            slices: m.settings.slices,
            compact_buckets: m.settings.compact_always,
            disk_limit: m.settings.disk_limit,
            out: m.out.clone(),
        },
        layers_counted: m.stats.len(),
        elapsed_seconds: m.elapsed_seconds,
        bytes: work.bytes(),
        checked_layer: layer,
        parts_checked: checked,
        checksums_ok: problems.is_empty(),
        problems,
        running: work.is_running(),
        state,
        counted,
    })
}
