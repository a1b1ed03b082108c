//! `othello-census reproduce`.

use std::process::ExitCode;

use super::args::ReproduceArgs;

pub fn run(_a: &ReproduceArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not yet")
}
