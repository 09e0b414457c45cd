//! The classic Score4 engine, as a drop-in replacement for the original.
//!
//! - [`protocol`]: the request read from the engine's arguments.
//! - [`answer`](mod@answer): the answer, with the original's exact stdout
//!   and exit status.
//! - [`search`]: the depth-limited search that returns the original's move
//!   and per-column values.
//! - [`perfect`]: the same protocol answered by the perfect solver
//!   (`-perfect`), and the policy the engine plays it with.
//!
//! The modules depend on each other in that order, never back: `answer`
//! on nothing here, `search` and `perfect` on `answer`, `protocol` on
//! `search` for its deepest level.
//!
//! [`respond`] answers a request as the engine does; [`answer`] and
//! [`try_answer`] always by the classic search.

pub mod answer;
pub mod perfect;
pub mod protocol;
pub mod search;

pub use answer::{Answer, Outcome};
pub use perfect::{answer_perfect, try_answer_perfect, PerfectPlayer};
pub use protocol::{is_protocol_token, Request, DEFAULT_LEVEL, FLAGS};
pub use search::{Search, MAX_LEVEL, NO_MOVE};

use crate::TableError;

/// Answers a request with a search sized for its level.
///
/// # Panics
///
/// If the system will not allocate the search's table; see [`try_answer`].
///
/// ```
/// use score4::classic::{answer, Outcome, Request};
/// // Orange holds the bottom row's columns 1..3: columns 0 and 4 both win,
/// // and the original takes the leftmost.
/// let r = Request::parse(["o53", "y43", "o52", "y42", "o51", "y41"]).unwrap();
/// let a = answer(&r);
/// assert_eq!(a.outcome, Outcome::Move { column: 0, wins: true });
/// assert_eq!(a.to_string(), "0\nI win\n\n");
/// assert_eq!(a.exit_status(), 255);
/// ```
pub fn answer(request: &Request) -> Answer {
    match try_answer(request) {
        Ok(answer) => answer,
        Err(e) => panic!("{e}"),
    }
}

/// Like [`answer`], but a search table the system will not allocate is an
/// error rather than a panic.
pub fn try_answer(request: &Request) -> Result<Answer, TableError> {
    let mut search = Search::try_for_level(request.level)?;
    Ok(search.answer(&request.board, request.level, request.debug))
}

/// Answers a request as the engine does: by perfect play
/// ([`try_answer_perfect`]) if it asks for `-perfect`, else by the
/// classic search ([`try_answer`]).
///
/// ```
/// use score4::classic::{respond, Outcome, Request};
/// let cells = ["o53", "y43", "o52", "y42", "o51", "y41"];
/// let classic = respond(&Request::parse(cells).unwrap()).unwrap();
/// assert_eq!(classic.outcome, Outcome::Move { column: 0, wins: true });
/// let perfect = Request::parse(cells.iter().chain(&["-perfect"])).unwrap();
/// assert_eq!(respond(&perfect).unwrap().outcome, Outcome::Move { column: 4, wins: true });
/// ```
pub fn respond(request: &Request) -> Result<Answer, TableError> {
    if request.perfect {
        try_answer_perfect(request)
    } else {
        try_answer(request)
    }
}
