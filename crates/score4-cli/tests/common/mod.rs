//! What the command-line tests share: running the binary and reading what
//! it wrote.

use std::process::{Command, Output};

/// Runs `score4` with `args`, stdin empty, and collects what it wrote.
pub fn score4(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_score4"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Output as text: every line score4 writes is UTF-8 (user text is escaped).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}
