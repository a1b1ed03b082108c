//! `othello-census catalog add` and `othello-census plot`.

use std::process::ExitCode;

use anyhow::Context;

use super::args::{CatalogAction, CatalogArgs, PlotArgs};
use super::run::note;
use othello_census::report::catalog::Catalog;

pub fn run(a: &CatalogArgs) -> anyhow::Result<ExitCode> {
    match &a.action {
        CatalogAction::Add { runs, dir } => {
            let mut catalog = Catalog::load(dir)?;
            for path in runs {
                let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
                let doc: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| anyhow::anyhow!("{}: not a result file ({e})", path.display()))?;
                let table = catalog.add(path, &doc)?;
                note(format!("{}: added to {table}", path.display()));
            }
            // only once every run passed: nothing is written on a refusal
            let written = catalog.save(dir)?;
            let plotted = othello_census::report::plot::plot(&catalog, &dir.join("census.svg"));
            for p in &written {
                note(format!("wrote {}", p.display()));
            }
            match plotted {
                Ok(_) => note(format!("wrote {}", dir.join("census.svg").display())),
                Err(e) => note(format!("no plot: {e}")),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn plot(a: &PlotArgs) -> anyhow::Result<ExitCode> {
    let catalog = Catalog::load(&a.dir)?;
    let out = a.out.clone().unwrap_or_else(|| a.dir.join("census.svg"));
    let n = othello_census::report::plot::plot(&catalog, &out).map_err(anyhow::Error::msg)?;
    note(format!("wrote {} ({n} lines)", out.display()));
    Ok(ExitCode::SUCCESS)
}
