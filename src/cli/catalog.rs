//! `othello-census catalog add`, `catalog export`, `catalog regenerate` and
//! `othello-census plot`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::args::{CatalogAction, CatalogArgs, PlotArgs};
use super::run::note;
use othello_census::formats::atomic::{FileLock, lock_dir_wait};
use othello_census::report::catalog::Catalog;

pub fn run(a: &CatalogArgs) -> anyhow::Result<ExitCode> {
    match &a.action {
        CatalogAction::Add { runs, dir, new } => {
            if !Catalog::exists(dir) && !*new && dir != Path::new("results") {
                anyhow::bail!(
                    "{} holds no catalogue ({} is missing); check --dir, or add --new to start a new catalogue there",
                    dir.display(),
                    othello_census::report::catalog::CATALOG_FILE
                );
            }
            let made = !dir.is_dir();
            if made {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            let _lock = lock(dir)?;
            let added = add(runs, dir);
            if added.is_err() && made {
                // only when it is still empty: nothing was written
                let _ = std::fs::remove_dir(dir);
            }
            added
        }
        CatalogAction::Export { id, out, dir } => export(id, out, dir),
        CatalogAction::Oeis { dir } => {
            require_catalog(dir)?;
            let _lock = lock(dir)?;
            let written = Catalog::load(dir)?.save_bfiles(dir)?;
            if written.is_empty() {
                anyhow::bail!("the catalogue in {} holds no 8x8 by-ply terms", dir.display());
            }
            for p in &written {
                note(format!("wrote {}", p.display()));
            }
            Ok(ExitCode::SUCCESS)
        }
        CatalogAction::Regenerate { dir } => {
            let file = dir.join(othello_census::report::catalog::CATALOG_FILE);
            if !file.is_file() {
                anyhow::bail!(
                    "{} does not exist: there is no catalogue to regenerate in {}",
                    file.display(),
                    dir.display()
                );
            }
            let _lock = lock(dir)?;
            write(&Catalog::load(dir)?, dir, Vec::new())
        }
    }
}

/// Refuses a directory without a catalogue, in one line.
fn require_catalog(dir: &Path) -> anyhow::Result<()> {
    if !Catalog::exists(dir) {
        anyhow::bail!("{} holds no catalogue; give the catalogue's directory with --dir", dir.display());
    }
    Ok(())
}

/// Takes the catalogue's lock (its directory's): every process that
/// replaces its files reads catalog.json and writes it back under it, so
/// that two adds at once both land instead of the later replacing the
/// earlier's catalogue with one read before it (a lost run).
fn lock(dir: &Path) -> anyhow::Result<FileLock> {
    lock_dir_wait(dir, || note(format!("waiting for another process writing the catalogue in {}", dir.display())))
        .with_context(|| format!("cannot lock the catalogue in {}", dir.display()))
}

/// The largest result or estimate document `catalog add` reads, bytes (the
/// largest are estimates listing their undecided samples, megabytes).
const MAX_DOCUMENT: u64 = 256 << 20;

/// Reads a result or estimate document, refusing first (in one line,
/// `what` naming it) what is not a regular file or is over
/// [`MAX_DOCUMENT`]: a result document is kilobytes, and /dev/zero, a
/// FIFO or a huge file would be read into memory, or waited on, without
/// end.
pub fn read_document(path: &Path, what: &str) -> anyhow::Result<String> {
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() || meta.len() > MAX_DOCUMENT {
        anyhow::bail!(
            "{what}: not a result file ({})",
            if meta.is_file() {
                format!("{} bytes, over the {MAX_DOCUMENT} a result may have", meta.len())
            } else {
                "not a regular file".into()
            }
        );
    }
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Adds `runs` to the catalogue in `dir` (under its lock) and writes it.
fn add(runs: &[PathBuf], dir: &Path) -> anyhow::Result<ExitCode> {
    let mut catalog = Catalog::load(dir)?;
    // told once the catalogue is written: a later refusal adds nothing
    let mut added = Vec::new();
    for path in runs {
        let text = read_document(path, &path.display().to_string())?;
        let doc: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not a result file ({e})", path.display()))?;
        let table = catalog.add(path, &doc)?;
        added.push(format!("{}: added to {table}", path.display()));
        if othello_census::report::catalog::unsealed(&doc) {
            added.push(format!(
                "warning: {} was written before result documents carried a checksum (schema version {}): its \
                 counts were checked with one another, but an edit that keeps them consistent cannot be found",
                path.display(),
                doc["schema_version"]
            ));
        }
        if let Some(commit) = doc["commit"].as_str().filter(|c| c.ends_with("-dirty")) {
            added.push(format!(
                "warning: {} was computed by a build with uncommitted changes (commit {commit}); its rows \
                 are catalogued, but no commit rebuilds its binary: confirm them with a run of a clean build",
                path.display()
            ));
        }
    }
    // only once every run passed: nothing is written on a refusal
    write(&catalog, dir, added)
}

/// `catalog export`: the estimate `id` of the catalogue in `dir`, written
/// to `out` as its run wrote it (without the `id` the catalogue gave it,
/// which its checksum leaves out), checked first.
fn export(id: &str, out: &Path, dir: &Path) -> anyhow::Result<ExitCode> {
    require_catalog(dir)?;
    // never over a file: it may be the run's own document, or another
    // (checked again, atomically, when it is created)
    if out.symlink_metadata().is_ok() {
        anyhow::bail!("{} exists: give --out a new file", out.display());
    }
    let catalog = Catalog::load(dir)?;
    let Some(doc) = catalog.estimates.iter().find(|e| e["id"] == id) else {
        let ids: Vec<&str> = catalog.estimates.iter().filter_map(|e| e["id"].as_str()).collect();
        anyhow::bail!(
            "the catalogue in {} holds no estimate {id} (it holds {} estimates{})",
            dir.display(),
            ids.len(),
            ids.last().map_or(String::new(), |l| format!(", the last added {l}"))
        );
    };
    let mut doc = doc.clone();
    if let Some(m) = doc.as_object_mut() {
        m.remove("id");
    }
    othello_census::report::seal::verify(&doc).map_err(|e| anyhow::anyhow!("estimate {id} in the catalogue: {e}"))?;
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    othello_census::formats::atomic::atomic_create(out, text.as_bytes()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            anyhow::anyhow!("{} exists: give --out a new file", out.display())
        } else {
            anyhow::anyhow!("cannot write {}: {e}", out.display())
        }
    })?;
    note(format!(
        "wrote {} (estimate {id}, seed {}, {} undecided samples)",
        out.display(),
        doc["seed"],
        doc["undecided_samples"].as_array().map_or(0, Vec::len)
    ));
    Ok(ExitCode::SUCCESS)
}

/// Writes the catalogue's files and its plot into `dir`, then tells
/// `added` (the runs it holds now).
fn write(catalog: &Catalog, dir: &Path, added: Vec<String>) -> anyhow::Result<ExitCode> {
    let written = catalog.save(dir)?;
    added.into_iter().for_each(note);
    let plotted = othello_census::report::plot::plot(catalog, &dir.join("census.svg"));
    for p in &written {
        note(format!("wrote {}", p.display()));
    }
    match plotted {
        Ok(_) => note(format!("wrote {}", dir.join("census.svg").display())),
        Err(e) => note(format!("no plot: {e}")),
    }
    Ok(ExitCode::SUCCESS)
}

pub fn plot(a: &PlotArgs) -> anyhow::Result<ExitCode> {
    if !Catalog::exists(&a.dir) {
        anyhow::bail!(
            "{} holds no catalogue ({} is missing); give the catalogue's directory with --dir",
            a.dir.display(),
            othello_census::report::catalog::CATALOG_FILE
        );
    }
    let catalog = Catalog::load(&a.dir)?;
    let out = a.out.clone().unwrap_or_else(|| a.dir.join("census.svg"));
    let n = othello_census::report::plot::plot(&catalog, &out).map_err(anyhow::Error::msg)?;
    note(format!("wrote {} ({n} lines)", out.display()));
    Ok(ExitCode::SUCCESS)
}
