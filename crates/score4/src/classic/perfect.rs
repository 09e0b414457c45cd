//! Perfect play in the engine protocol (`-perfect`): the solver's move,
//! with the classic engine's game-over checks and exit statuses, and the
//! policy the engine plays it with (every core, a table they share well).

use super::answer::{game_over, Answer, Outcome};
use super::protocol::Request;
use crate::bitboard::Standard;
use crate::solver::{all_cores, default_table_mb, Solver};
use crate::TableError;

type G = Standard;

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

/// The `-perfect` player as the engine runs it: a solver searching with
/// every core ([`all_cores`]) and the table size that many threads share
/// well ([`default_table_mb`]). A driver waits for each answer, and the
/// searches that make it wait are the early ones, where threads pay.
///
/// One player can answer many requests (a server's games): its table
/// keeps what earlier answers proved.
///
/// ```
/// use score4::classic::{Outcome, PerfectPlayer, Request};
/// let mut player = PerfectPlayer::try_with_threads(1).unwrap();
/// let r = Request::parse(["o53", "y43", "o52", "y42", "o51", "y41", "-perfect"]).unwrap();
/// assert_eq!(player.answer(&r).outcome, Outcome::Move { column: 4, wins: true });
/// ```
pub struct PerfectPlayer {
    solver: Solver,
    threads: usize,
}

impl PerfectPlayer {
    /// The engine's player: every core.
    pub fn try_new() -> Result<Self, TableError> {
        Self::try_with_threads(all_cores())
    }

    /// A player searching with `threads` threads (at least 1) and the
    /// table size they share well.
    pub fn try_with_threads(threads: usize) -> Result<Self, TableError> {
        let threads = threads.max(1);
        let mut solver =
            Solver::try_with_table_mb(default_table_mb(threads, Standard::CELLS as usize))?;
        solver.set_threads(threads);
        Ok(PerfectPlayer { solver, threads })
    }

    /// The threads it searches with.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The solver it plays with.
    pub fn solver(&self) -> &Solver {
        &self.solver
    }

    /// Answers `request` by perfect play, as [`answer_perfect`] does,
    /// whether or not it asked for `-perfect`.
    pub fn answer(&mut self, request: &Request) -> Answer {
        answer_perfect(request, &mut self.solver)
    }
}

/// Answers a request by perfect play as the engine's `-perfect` does:
/// with a new [`PerfectPlayer`]. A table the system will not allocate is
/// an error.
pub fn try_answer_perfect(request: &Request) -> Result<Answer, TableError> {
    Ok(PerfectPlayer::try_new()?.answer(request))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::DEFAULT_TABLE_MB;

    #[test]
    fn the_player_uses_every_core_and_the_shared_table_size() {
        let player = PerfectPlayer::try_new().unwrap();
        assert_eq!(player.threads(), all_cores());
        let one = PerfectPlayer::try_with_threads(0).unwrap();
        assert_eq!(one.threads(), 1);
        assert!(one.solver().table_bytes() >= default_table_mb(1, 42) << 20);
        assert_eq!(default_table_mb(1, 42), DEFAULT_TABLE_MB);
        let two = PerfectPlayer::try_with_threads(2).unwrap();
        assert!(two.solver().table_bytes() >= default_table_mb(2, 42) << 20);
    }

    #[test]
    fn the_player_answers_as_a_plain_solver_does() {
        let mut player = PerfectPlayer::try_with_threads(2).unwrap();
        let mut solver = Solver::with_table_mb(4);
        for cells in [
            &["o53", "y43"][..],
            &["o53", "y43", "o52", "y42", "o51", "-debug"],
            &["o53", "y43", "o52", "y42", "o51", "y41"],
            &["y53", "y52", "y51", "y50"],
            &[],
        ] {
            let request = Request::parse(cells).unwrap();
            let plain = answer_perfect(&request, &mut solver);
            assert_eq!(player.answer(&request), plain, "{cells:?}");
            assert_eq!(try_answer_perfect(&request).unwrap(), plain, "{cells:?}");
        }
    }
}
