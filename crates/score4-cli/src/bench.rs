//! `score4 bench`: solve labelled fixture files, report speed and correctness.

use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `score4 bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Fixture files (`MOVES SCORE` per line); every set under fixtures/solver if none.
    files: Vec<PathBuf>,
}

/// Runs the benchmark over every file.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("score4: bench is not implemented yet");
    ExitCode::from(2)
}
