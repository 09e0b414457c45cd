//! `score4 solve`: exact scores for positions.

use std::process::ExitCode;

/// Options of `score4 solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions in move notation (columns 1..7); read from stdin if none.
    positions: Vec<String>,
}

/// Solves every position asked for.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("score4: solve is not implemented yet");
    ExitCode::from(2)
}
