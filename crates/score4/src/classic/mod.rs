//! The classic Score4 engine, as a drop-in replacement for the original.
//!
//! - [`protocol`]: the request read from the engine's arguments, and the
//!   answer with the original's exact stdout and exit status.
//! - [`search`]: the depth-limited search that returns the original's move
//!   and per-column values.
//!
//! [`answer`] ties them together; [`answer_perfect`] answers in the same
//! protocol by the perfect solver instead.

pub mod protocol;
pub mod search;

pub use protocol::{is_protocol_token, Answer, Outcome, Request, DEFAULT_LEVEL, FLAGS};
pub use search::{Search, MAX_LEVEL, NO_MOVE};

use crate::bitboard::Standard;
use crate::solver::Solver;
use crate::table::TableError;
use protocol::game_over;

type G = Standard;

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

/// Answers a `-perfect` request: the move the perfect solver picks (the
/// fastest win, else a draw, else the slowest loss, the centre-most among
/// equals), in the same output protocol. The game-over checks and exit
/// statuses are the classic engine's; the debug lines carry each column's
/// exact score (the solver's convention, from orange's side) and, as their
/// depth, the number of empty cells, since the search runs to the end.
///
/// ```
/// use score4::classic::{answer_perfect, Outcome, Request};
/// use score4::Solver;
/// // Columns 0 and 4 both win at once: the classic engine takes the
/// // leftmost, the solver the one nearer the centre.
/// let r = Request::parse(["o53", "y43", "o52", "y42", "o51", "y41", "-perfect"]).unwrap();
/// let a = answer_perfect(&r, &mut Solver::with_table_mb(1));
/// assert_eq!(a.outcome, Outcome::Move { column: 4, wins: true });
/// assert_eq!(a.to_string(), "4\nI win\n\n");
/// ```
pub fn answer_perfect(request: &Request, solver: &mut Solver) -> Answer {
    let board = &request.board;
    let empty = G::CELLS - board.occupied().count();
    let mut answer = Answer {
        level: empty,
        columns: [None; G::WIDTH],
        outcome: Outcome::NoMove,
    };
    if let Some(outcome) = game_over(board) {
        answer.outcome = outcome;
        return answer;
    }
    let position = board.position();
    // Only -debug prints every move's score; the move alone takes less.
    let best = if request.debug {
        answer.columns = solver.analyze(&position);
        <Solver>::best_of(&answer.columns)
    } else {
        solver.best_move(&position)
    };
    if let Some(column) = best {
        let wins = position.is_winning_move(column);
        answer.outcome = Outcome::Move { column, wins };
    }
    answer
}
