//! `score4 engine`: the classic Score4 engine protocol.

use std::ffi::OsString;
use std::process::ExitCode;

/// The flags that, as a first argument, select the engine protocol.
pub const FLAGS: &[&str] = &["-debug", "-level", "-perfect"];

/// Answers one engine request and returns the protocol's exit status.
pub fn run(_args: &[OsString]) -> ExitCode {
    eprintln!("score4: the engine protocol is not implemented yet");
    ExitCode::from(2)
}
