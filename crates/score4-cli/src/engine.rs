//! `score4 engine`: the classic Score4 engine protocol.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use score4::classic::{self, Request};
use score4::Solver;

/// Answers one engine request and returns the protocol's exit status:
/// the original's stdout and status for a well-formed request, one line on
/// stderr and status 2 for anything else.
pub fn run(args: &[OsString]) -> ExitCode {
    // Arguments that are not UTF-8 cannot be cells or flags: their lossy
    // form is skipped like any unknown token, or, if it starts like a cell,
    // named in the error.
    let tokens = args.iter().map(|a| a.to_string_lossy());
    let request = match Request::parse(tokens) {
        Ok(request) => request,
        Err(err) => {
            eprintln!("score4: {err}");
            return ExitCode::from(2);
        }
    };
    let answer = if request.perfect {
        classic::answer_perfect(&request, &mut Solver::new())
    } else {
        classic::answer(&request)
    };
    let text = answer.to_string();
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    ExitCode::from(answer.exit_status())
}
