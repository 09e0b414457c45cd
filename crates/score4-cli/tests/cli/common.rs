//! What the command-line tests share: the `score4` binary, whose path only
//! this crate's tests know, run through the shared runner.

use std::process::Output;

pub use score4_testkit::cli::text;

/// Runs `score4` with `args`, stdin empty, and collects what it wrote.
pub fn score4(args: &[&str]) -> Output {
    score4_testkit::cli::run(env!("CARGO_BIN_EXE_score4"), args)
}
