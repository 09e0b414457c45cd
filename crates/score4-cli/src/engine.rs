//! `score4 engine`: the classic Score4 engine protocol.

use std::ffi::OsString;

use score4::classic::{self, Request};

use crate::output::{self, Output, FAILED};

/// Answers one engine request and returns the protocol's exit status:
/// the original's stdout and status for a well-formed request, one line on
/// stderr and status 2 for anything else (a malformed request, no memory
/// for the search, stdout that cannot be written).
pub fn run(args: &[OsString]) -> u8 {
    // Arguments that are not UTF-8 cannot be cells or flags: their lossy
    // form is skipped like any unknown token, or, if it starts like a cell,
    // named (escaped) in the error.
    let tokens = args.iter().map(|a| a.to_string_lossy());
    let request = match Request::parse(tokens) {
        Ok(request) => request,
        Err(err) => {
            output::error(err);
            return FAILED;
        }
    };
    let answer = classic::respond(&request);
    match answer {
        Ok(answer) => Output::new().finish(&answer.to_string(), answer.exit_status()),
        Err(e) => {
            output::error(e);
            FAILED
        }
    }
}
