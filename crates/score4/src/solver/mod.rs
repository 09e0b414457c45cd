//! The perfect solver: the exact game value of any position.
//!
//! Scores follow the [`score`](crate::score) convention: positive when
//! the side to move wins, larger for a faster win. The search is negamax with
//! alpha-beta pruning, driven by null-window probes that bisect the possible
//! score range, over a transposition table of proven bounds. Losing moves are
//! never searched, moves are tried centre-first and most-threatening-first,
//! and a position and its mirror image share table entries. Static bounds
//! end many searches early: a side with no line left open cannot win, and
//! a side that can answer nearly every move on top of it ("claimeven")
//! bounds which cells each side gets.
//!
//! The parts, in the order a search uses them:
//! - this module: the [`Solver`], a handle to the search compiled for its
//!   board size;
//! - `engine`: that search's state and its probe loop, which narrows the
//!   score with null-window searches, compiled once in this library for
//!   every supported size;
//! - `search`: negamax, one position and its moves, written once over
//!   `node`'s traits for every board (compiled sizes and sizes as data);
//! - `bounds`: the static bounds read off the board;
//! - `order`: which move to search first;
//! - `parallel`: threads searching one position together;
//! - [`stats`]: where the positions go, counted by a measuring solver;
//! - [`tuning`]: every tunable, with the reason for its value;
//! - `journal`: the costliest searches' bounds kept on disk, so that a
//!   killed solve goes on from close to where it stopped;
//! - `anytime`: an analysis that reports each move's proven range
//!   of scores as it narrows, for answers within a budget
//!   ([`Analysis`]);
//! - `verdict`: a score read back as who wins with which disc
//!   ([`Verdict`]);
//! - [`table`]: the transposition table;
//! - [`proof`]: a proof-number search for "is the score above alpha?",
//!   which a strong solve asks the sign of a few boards (see `tuning`);
//! - [`rules`]: Allis' rule set as a static test of "the side that just
//!   moved at least draws", measured against the static bounds; the
//!   search can ask it ([`tuning`]), but by default does not.
//!
//! ```
//! use score4::{Position, Solver};
//! let mut solver = Solver::<7, 6>::with_table_mb(4);
//! // The side to move completes three in a row on the bottom and wins at once.
//! let p: Position = "445566".parse().unwrap();
//! assert_eq!(solver.solve(&p), 18);
//! assert_eq!(solver.solve_weak(&p), 1);
//! assert_eq!(solver.best_move(&p), Some(2));
//! let scores = solver.analyze(&p);
//! assert_eq!(scores[2], Some(18));
//! assert_eq!(scores[6], Some(18));
//! ```

mod anytime;
mod bounds;
pub(crate) mod engine;
mod journal;
mod node;
mod order;
mod parallel;
#[cfg(test)]
pub(crate) mod plain;
pub mod proof;
pub mod rules;
mod search;
pub mod stats;
mod stop;
pub mod table;
pub mod tuning;
mod verdict;

use crate::clock::Instant;
use std::sync::Arc;

use crate::bitboard::Geometry;
use crate::book::{Book, BookError};
pub use crate::error::SolveError;
use crate::mem::TableError;
use crate::position::Position;
pub(crate) use anytime::Windows;
pub(crate) use anytime::{best_among, prove, score_among, watch, Counts, Progress};
pub use anytime::{Analysis, BestSoFar, Goal, ScoreRange};
pub(crate) use engine::{
    best_of, built_for, next_probe, score_range, settled_score, AnyEngine, Ask, Engine, Found,
    Parts,
};
pub use journal::{JournalError, JournalLoaded};
pub(crate) use node::{Key, Node, Store};
pub use stop::{Proven, StopHandle, Stopped};
pub use tuning::{
    default_table_mb, DEFAULT_SHARED_TABLE_MB, DEFAULT_TABLE_MB, JOURNAL_MIN_WORK,
    LARGE_BOARD_CELLS, LARGE_TABLE_MB, NEAR_TABLE_MB, SEARCH_STACK_BYTES,
};
pub use verdict::{Player, Verdict};

/// A perfect Connect Four solver for the `W` x `H` board (7x6 unless named).
///
/// The solver keeps its transposition table between calls: proven bounds
/// stay true for every later position, so solving related positions (the
/// moves of one game, the children in [`analyze`](Self::analyze)) gets
/// cheaper. [`clear_table`](Self::clear_table) forgets them, for measuring
/// one position on its own.
///
/// A new 7x6 solver answers the positions of the built-in opening book
/// ([`Book::standard`]) without search; [`use_book`](Self::use_book) picks
/// another book, [`drop_book`](Self::drop_book) searches everything (to
/// measure the search).
pub struct Solver<const W: usize = 7, const H: usize = 6> {
    /// The search compiled for this size (see `engine`).
    engine: Box<dyn AnyEngine>,
}

/// Most searches [`Solver::probes`] keeps: room for a strong solve of
/// every move of [`Solver::analyze`].
pub const MAX_PROBES: usize = 128;

/// The most threads a front end should ask for: far more than lazy SMP
/// gains from, few enough that the system starts them all.
pub const MAX_THREADS: usize = 256;

/// The largest table a front end should ask for, in MiB: 64 GiB. Smaller
/// sizes the system refuses are reported when the table is made.
pub const MAX_TABLE_MB: usize = 1 << 16;

/// Every core the system gives this process, at most [`MAX_THREADS`]: the
/// threads of the searches that use them all by default (`-perfect`, a
/// book's build).
pub fn all_cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
}

/// What to ask of a position: the one dispatch every front end uses
/// (see [`Solver::answer`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Question {
    /// The exact score ([`Solver::solve`]).
    #[default]
    Score,
    /// Only who wins: 1, 0 or -1 ([`Solver::solve_weak`]).
    Sign,
    /// The score of every move ([`Solver::analyze`]).
    Moves,
    /// The score and every move that keeps it ([`Solver::best_moves`]).
    Best,
}

/// The answer to a [`Question`], one variant for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply<const W: usize> {
    /// The exact score.
    Score(i32),
    /// 1, 0 or -1.
    Sign(i32),
    /// Each column's score, `None` for a full column.
    Moves([Option<i32>; W]),
    /// The score, and for each column whether playing it keeps the score.
    Best {
        /// The position's exact score.
        score: i32,
        /// Whether each column is a best move.
        moves: [bool; W],
    },
}

impl<const W: usize> Reply<W> {
    /// The position's value as asked: its score, or its sign for
    /// [`Question::Sign`]; for [`Question::Moves`] the best move's score,
    /// which is the position's (`None` if the game is over).
    pub fn value(&self) -> Option<i32> {
        match *self {
            Reply::Score(s) | Reply::Sign(s) | Reply::Best { score: s, .. } => Some(s),
            Reply::Moves(scores) => scores.iter().flatten().max().copied(),
        }
    }
}

/// What one null-window search proves about a score ([`Solver::probe`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The score is at most this.
    AtMost(i32),
    /// The score is at least this.
    AtLeast(i32),
}

/// `<=R` or `>=R`, as record files and `split run` write a bound.
impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::AtMost(r) => write!(f, "<={r}"),
            Bound::AtLeast(r) => write!(f, ">={r}"),
        }
    }
}

impl Bound {
    /// The bound a fail-soft null-window search at `alpha` proved by
    /// returning `r`: at most `r` if `r <= alpha`, else at least `r`.
    pub(crate) fn from_probe(r: i32, alpha: i32) -> Bound {
        if r <= alpha {
            Bound::AtMost(r)
        } else {
            Bound::AtLeast(r)
        }
    }

    /// Whether the bound settles "is the score above `alpha`?": `Some`
    /// with the answer, or `None` if it does not.
    pub fn above(self, alpha: i32) -> Option<bool> {
        match self {
            Bound::AtMost(r) if r <= alpha => Some(false),
            Bound::AtLeast(r) if r > alpha => Some(true),
            _ => None,
        }
    }
}

/// One search of a position within a window, as [`Solver::probes`]
/// records it: the unit in which a solve spends its positions.
///
/// A strong solve narrows the score with null-window searches (`beta ==
/// alpha + 1`: "is the score above `alpha`?"); a weak solve searches once
/// within `-1..1`. The result is fail-soft: at most `alpha` means the
/// score is at most `result`, at least `beta` that it is at least `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The window's lower end (exclusive).
    pub alpha: i32,
    /// The window's upper end (exclusive).
    pub beta: i32,
    /// What the search returned.
    pub result: i32,
    /// Positions it searched.
    pub nodes: u64,
}

impl<const W: usize, const H: usize> Default for Solver<W, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize> Solver<W, H> {
    /// A solver with a table of [`default_table_mb`] mebibytes for one
    /// thread on this board: [`DEFAULT_TABLE_MB`] up to the standard
    /// board's size, [`LARGE_TABLE_MB`] beyond it.
    pub fn new() -> Self {
        Self::with_table_mb(default_table_mb(1, W * H))
    }

    /// A solver whose table takes about `mb` mebibytes (rounded down to a
    /// power of two; at least 1 MiB, more on boards whose keys need it).
    ///
    /// A table of 64 MiB or more comes with a second one of
    /// [`NEAR_TABLE_MB`] for the positions near the end of the game. Those
    /// are most of the positions searched, each saving little; in a table
    /// far larger than the processor's caches nearly every look-up of
    /// theirs would wait for memory, while the few positions early in the
    /// game, each saving a large search, are the ones that gain from the
    /// room.
    ///
    /// # Panics
    ///
    /// If the system will not allocate the table; for sizes chosen by a
    /// user, use [`try_with_table_mb`](Self::try_with_table_mb).
    pub fn with_table_mb(mb: usize) -> Self {
        match Self::try_with_table_mb(mb) {
            Ok(solver) => solver,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`with_table_mb`](Self::with_table_mb), but a table the system
    /// will not allocate is an error.
    pub fn try_with_table_mb(mb: usize) -> Result<Self, TableError> {
        Ok(Solver {
            engine: engine::build::<W, H>(mb)?,
        })
    }

    /// A measuring solver: like [`try_with_table_mb`](Self::try_with_table_mb),
    /// but its searches also count where their positions go, in the
    /// counters [`stats::take`] reads. The counting costs time, so measure
    /// positions with it, not speed. Its search is compiled where this is
    /// called, not in the library: only measuring programs pay for it.
    pub fn measuring_with_table_mb(mb: usize) -> Result<Self, TableError> {
        Ok(Solver {
            engine: engine::build_measuring::<W, H>(mb)?,
        })
    }

    /// Searches positions in the first half of the game with `threads`
    /// threads (at least 1, at most [`MAX_THREADS`]; 1 by default) sharing
    /// the table: all search the same position, and helpers put off the
    /// move the main search is busy with (on the large boards, every
    /// thread the moves the others are busy with), so that the threads
    /// split the tree rather than repeat it. Later positions are too quick
    /// to share. Threads share only through the table, so give them a
    /// larger one ([`default_table_mb`]).
    ///
    /// Each thread also gets a table of its own, of [`NEAR_TABLE_MB`], for
    /// the positions near the end of the game (the main search uses its
    /// own for the later positions it searches alone): those are cheap to
    /// search again, and sharing them costs more in traffic between the
    /// cores than it saves (on the boards of the widest keys, larger: see
    /// [`table::Table::min_mb`]). If the system will not allocate them, or
    /// the board's keys allow none small enough to be worth it, the
    /// threads share the main table throughout.
    pub fn set_threads(&mut self, threads: usize) {
        self.engine.set_threads(threads);
    }

    /// Answers the positions `book` holds from it. A new solver has the
    /// built-in book of its board, if there is one; a book for another
    /// board is refused.
    pub fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        self.engine.use_book(book)
    }

    /// Searches every position, even those a book holds.
    pub fn drop_book(&mut self) {
        self.engine.drop_book();
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Book> {
        self.engine.book()
    }

    /// The size of the tables in bytes.
    pub fn table_bytes(&self) -> usize {
        self.engine.table_bytes()
    }

    /// Positions searched since the solver was made or
    /// [`reset_nodes`](Self::reset_nodes) was last called.
    pub fn nodes(&self) -> u64 {
        self.engine.nodes()
    }

    /// Sets the node count back to zero and forgets the recorded
    /// [`probes`](Self::probes).
    pub fn reset_nodes(&mut self) {
        self.engine.reset_nodes();
    }

    /// The searches made since the last [`reset_nodes`](Self::reset_nodes)
    /// (the first [`MAX_PROBES`] of them), in order: where a solve's
    /// positions went. Empty for positions answered by the book or
    /// without search.
    ///
    /// ```
    /// use score4::{Position, Solver};
    ///
    /// let mut solver = Solver::<7, 6>::new();
    /// let p: Position = "61354363717466".parse().unwrap();
    /// solver.reset_nodes();
    /// let score = solver.solve(&p);
    /// let probes = solver.probes();
    /// assert!(probes.iter().all(|probe| probe.beta == probe.alpha + 1));
    /// assert_eq!(probes.iter().map(|probe| probe.nodes).sum::<u64>(), solver.nodes());
    /// // The score is proved from both sides: one search fails low with it,
    /// // one fails high with it.
    /// assert!(probes.iter().any(|probe| probe.result <= probe.alpha && probe.result == score));
    /// assert!(probes.iter().any(|probe| probe.result >= probe.beta && probe.result == score));
    /// ```
    pub fn probes(&self) -> &[Probe] {
        self.engine.probes()
    }

    /// Has the system supply all of the table's memory now, as a
    /// benchmark does before it starts timing: otherwise the first
    /// positions solved also pay for the kernel zeroing the pages they
    /// touch first. Stored bounds are unchanged.
    pub fn touch_table(&mut self) {
        self.engine.touch_table();
    }

    /// Forgets every stored bound (cheap: no memory is rewritten), except
    /// the journal's, which go back into the table before the next search.
    pub fn clear_table(&mut self) {
        self.engine.clear_table();
    }

    /// Keeps a journal at `path` (created if missing): every search of at
    /// least `min_work` positions ([`JOURNAL_MIN_WORK`] is a good choice)
    /// appends its proven bound to it, and every bound it holds already
    /// goes into the table before the next search. A solve killed and
    /// started again with the same journal goes on from close to where it
    /// stopped, whatever it solves: the bounds are facts about positions
    /// of this board. Lines damaged since they were written are skipped,
    /// never trusted, and counted in what this returns; a file of another
    /// board is an error.
    ///
    /// ```
    /// use score4::{Position, Solver};
    ///
    /// let path = std::env::temp_dir().join(format!("doc-journal-{}", std::process::id()));
    /// let p: Position<6, 5> = Position::new();
    /// let mut first = Solver::<6, 5>::new();
    /// first.keep_journal(&path, 10_000).unwrap();
    /// let score = first.solve(&p);
    /// // A new solver (another process, after a kill) starts from the journal.
    /// let mut again = Solver::<6, 5>::new();
    /// let loaded = again.keep_journal(&path, 10_000).unwrap();
    /// assert!(loaded.bounds > 0 && loaded.damaged == 0);
    /// assert_eq!(again.solve(&p), score);
    /// assert!(again.nodes() < first.nodes() / 100);
    /// # std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn keep_journal(
        &mut self,
        path: &std::path::Path,
        min_work: u64,
    ) -> Result<JournalLoaded, JournalError> {
        self.engine.keep_journal(path, min_work)
    }

    /// The first write to the journal that failed, if any: the answers
    /// stay right, but from then on the journal keeps nothing more.
    pub fn journal_error(&self) -> Option<JournalError> {
        self.engine.journal_error()
    }

    /// The exact score of `p` for the side to move.
    ///
    /// Scores follow the [`score`](crate::score) convention: a win scores more the sooner
    /// it comes, a loss is the negation of the opponent's win, a draw is 0;
    /// both sides win as fast and lose as slowly as they can.
    ///
    /// A finished game is not an error here: a full board scores 0, and a
    /// position whose last move made four scores that win, negated, from
    /// the side to move. [`try_solve`](Self::try_solve) rejects those
    /// instead.
    pub fn solve(&mut self, p: &Position<W, H>) -> i32 {
        self.score(p, Ask::Score, None).unwrap_or_else(never)
    }

    /// [`solve`](Self::solve), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        self.score(p, Ask::Score, Some(deadline))
    }

    /// A handle that stops this solver's `*_until` searches from another
    /// thread.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use score4::{Position, Solver, Stopped};
    ///
    /// let mut solver = Solver::<7, 6>::new();
    /// solver.drop_book();
    /// let handle = solver.stop_handle();
    /// handle.stop();
    /// let empty = Position::<7, 6>::new();
    /// assert_eq!(solver.solve_until(&empty, None), Err(Stopped));
    /// handle.resume();
    /// // A position settled at once needs no search and no time.
    /// let p: Position = "445566".parse().unwrap();
    /// let soon = Instant::now() + Duration::from_secs(60);
    /// assert_eq!(solver.solve_until(&p, Some(soon)), Ok(18));
    /// ```
    pub fn stop_handle(&self) -> StopHandle {
        self.engine.stop_handle()
    }

    /// Like [`solve`](Self::solve), but a finished game is an error.
    pub fn try_solve(&mut self, p: &Position<W, H>) -> Result<i32, SolveError> {
        SolveError::check(p)?;
        Ok(self.solve(p))
    }

    /// Only who wins: 1 if the side to move wins, 0 for a draw, -1 if it
    /// loses. Much cheaper than [`solve`](Self::solve). A finished game
    /// gets the sign of its [`solve`](Self::solve) score.
    pub fn solve_weak(&mut self, p: &Position<W, H>) -> i32 {
        self.score(p, Ask::Sign, None).unwrap_or_else(never)
    }

    /// [`solve_weak`](Self::solve_weak), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_weak_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        self.score(p, Ask::Sign, Some(deadline))
    }

    /// The score of every move for the side to move (the score of the
    /// position after it, negated), `None` for a full column. A move that
    /// wins at once scores [`score::win`](crate::score::win) of the moves played. A
    /// finished game has no moves: every entry is `None`.
    pub fn analyze(&mut self, p: &Position<W, H>) -> [Option<i32>; W] {
        self.moves(p, None)
            .map(|score| score.map(|s| s.unwrap_or_else(never)))
    }

    /// [`analyze`](Self::analyze), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`: the columns
    /// settled before then have their score, the others `Err(Stopped)`.
    pub fn analyze_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> [Option<Result<i32, Stopped>>; W] {
        self.moves(p, Some(deadline))
    }

    /// A best move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; among equals, the one nearest the centre. `None`
    /// if the game is over.
    ///
    /// The same move as [`best_of`](Self::best_of) over
    /// [`analyze`](Self::analyze), found with less work: once the
    /// position's score is known, a move reaches it exactly when the
    /// position it leads to scores at most its negation, which one
    /// null-window search of that position settles. Moves are tried
    /// centre first and the first that reaches the score is the answer;
    /// the others need no exact score.
    pub fn best_move(&mut self, p: &Position<W, H>) -> Option<usize> {
        self.best_move_asked(p, None).unwrap_or_else(never)
    }

    /// [`best_move`](Self::best_move), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn best_move_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, Stopped> {
        self.best_move_asked(p, Some(deadline))
    }

    /// The best move among analysed scores (as [`analyze`](Self::analyze)
    /// returns them): the highest score, the centre-most among equals.
    pub fn best_of(scores: &[Option<i32>; W]) -> Option<usize> {
        engine::best_of(&Geometry::<W, H>::CENTRE_FIRST, scores)
    }

    /// Every best move (a column that keeps the position's score), with
    /// the score: the columns [`best_move`](Self::best_move) chooses
    /// among, and [`best_of`](Self::best_of) over
    /// [`analyze`](Self::analyze) picks from, found with one null-window
    /// search per move rather than an exact solve of each. The score of a
    /// finished game (see [`solve`](Self::solve)) and no moves if the game
    /// is over.
    ///
    /// ```
    /// use score4::{Position, Solver};
    /// let mut solver = Solver::<7, 6>::new();
    /// let p: Position = "445566".parse().unwrap();
    /// let (score, moves) = solver.best_moves(&p);
    /// assert_eq!(score, 18);
    /// assert_eq!(moves, [false, false, true, false, false, false, true]);
    /// ```
    pub fn best_moves(&mut self, p: &Position<W, H>) -> (i32, [bool; W]) {
        self.best_moves_asked(p, None).unwrap_or_else(never)
    }

    /// One null-window search: whether `p`'s score is above `alpha`, with
    /// the bound the search proved (at least as strong as the answer:
    /// `AtMost(r)` with `r <= alpha`, or `AtLeast(r)` with `r > alpha`).
    /// The unit of work a strong solve is made of, for programs that split
    /// a solve into independent searches.
    ///
    /// ```
    /// use score4::solver::Bound;
    /// use score4::{Position, Solver};
    /// let mut solver = Solver::<7, 6>::new();
    /// let p: Position = "4455661".parse().unwrap();
    /// assert_eq!(solver.solve(&p), -17);
    /// assert_eq!(solver.probe(&p, -17).above(-17), Some(false));
    /// assert_eq!(solver.probe(&p, -18).above(-18), Some(true));
    /// ```
    pub fn probe(&mut self, p: &Position<W, H>, alpha: i32) -> Bound {
        self.probe_asked(p, alpha, None).unwrap_or_else(never)
    }

    /// [`probe`](Self::probe), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn probe_until(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        deadline: Option<Instant>,
    ) -> Result<Bound, Stopped> {
        self.probe_asked(p, alpha, Some(deadline))
    }

    fn probe_asked(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        until: Option<Option<Instant>>,
    ) -> Result<Bound, Stopped> {
        let r = self.score(p, Ask::Probe(alpha), until)?;
        Ok(Bound::from_probe(r, alpha))
    }

    /// Answers `question` about `p`: the dispatch every front end makes
    /// between the ways of solving, in one place.
    ///
    /// ```
    /// use score4::solver::{Question, Reply};
    /// use score4::{Position, Solver};
    /// let mut solver = Solver::<7, 6>::new();
    /// let p: Position = "4455661".parse().unwrap();
    /// assert_eq!(solver.answer(&p, Question::Score), Reply::Score(-17));
    /// assert_eq!(solver.answer(&p, Question::Sign), Reply::Sign(-1));
    /// assert_eq!(solver.answer(&p, Question::Moves).value(), Some(-17));
    /// ```
    pub fn answer(&mut self, p: &Position<W, H>, question: Question) -> Reply<W> {
        self.answer_asked(p, question, None).unwrap_or_else(never)
    }

    /// [`answer`](Self::answer), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`; a
    /// [`Question::Moves`] stopped part way is stopped as a whole (see
    /// [`analyze_until`](Self::analyze_until) for the columns settled).
    pub fn answer_until(
        &mut self,
        p: &Position<W, H>,
        question: Question,
        deadline: Option<Instant>,
    ) -> Result<Reply<W>, Stopped> {
        self.answer_asked(p, question, Some(deadline))
    }

    /// The score or sign `ask` finds (unstoppable without `until`).
    fn score(
        &mut self,
        p: &Position<W, H>,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<i32, Stopped> {
        match self.engine.ask(p.to_parts(), ask, until)? {
            Found::Score(score) => Ok(score),
            found => unreachable!("{ask:?} found {found:?}"),
        }
    }

    /// Every column's score, those a stop left unsettled `Err(Stopped)`.
    fn moves(
        &mut self,
        p: &Position<W, H>,
        until: Option<Option<Instant>>,
    ) -> [Option<Result<i32, Stopped>>; W] {
        match self.engine.ask(p.to_parts(), Ask::Moves, until) {
            Ok(Found::Moves(scores)) => std::array::from_fn(|col| scores[col]),
            // A stop settles some columns, not the whole.
            found => unreachable!("moves found {found:?}"),
        }
    }

    fn best_move_asked(
        &mut self,
        p: &Position<W, H>,
        until: Option<Option<Instant>>,
    ) -> Result<Option<usize>, Stopped> {
        match self.engine.ask(p.to_parts(), Ask::BestMove, until)? {
            Found::Move(col) => Ok(col),
            found => unreachable!("a best move found {found:?}"),
        }
    }

    fn best_moves_asked(
        &mut self,
        p: &Position<W, H>,
        until: Option<Option<Instant>>,
    ) -> Result<(i32, [bool; W]), Stopped> {
        match self.engine.ask(p.to_parts(), Ask::Best, until)? {
            Found::Best(score, moves) => Ok((score, std::array::from_fn(|col| moves[col]))),
            found => unreachable!("the best moves found {found:?}"),
        }
    }

    fn answer_asked(
        &mut self,
        p: &Position<W, H>,
        question: Question,
        until: Option<Option<Instant>>,
    ) -> Result<Reply<W>, Stopped> {
        Ok(match question {
            Question::Score => Reply::Score(self.score(p, Ask::Score, until)?),
            Question::Sign => Reply::Sign(self.score(p, Ask::Sign, until)?),
            // Stopped part way, the analysis is stopped as a whole.
            Question::Moves => {
                let mut scores = [None; W];
                for (score, analysed) in scores.iter_mut().zip(self.moves(p, until)) {
                    *score = analysed.transpose()?;
                }
                Reply::Moves(scores)
            }
            Question::Best => {
                let (score, moves) = self.best_moves_asked(p, until)?;
                Reply::Best { score, moves }
            }
        })
    }
}

/// The answer of a search nothing could stop.
fn never<T>(_: Stopped) -> T {
    unreachable!("only the *_until searches can be stopped")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Front ends move solvers to their search threads and share them
    /// behind locks (the Python module's objects must be both).
    #[test]
    fn solvers_are_send_and_sync() {
        fn send_and_sync<T: Send + Sync>() {}
        send_and_sync::<Solver<7, 6>>();
        send_and_sync::<Solver<1, 4>>();
    }

    #[test]
    fn immediate_wins_and_losses() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        // The side to move wins with its 4th disc: 22 - 4.
        let p = Position::parse("445566").unwrap();
        assert_eq!(s.solve(&p), 18);
        // The opponent has two threats: the side to move blocks one and loses
        // to the opponent's 5th disc on the other.
        let p = Position::parse("4455661").unwrap();
        assert_eq!(s.solve(&p), -17);
        assert_eq!(s.solve_weak(&p), -1);
    }

    #[test]
    fn finished_games() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        let won = Position::parse("1212121").unwrap();
        // The first player won with its 4th disc.
        assert_eq!(s.solve(&won), -18);
        assert_eq!(s.solve_weak(&won), -1);
        assert_eq!(s.try_solve(&won), Err(SolveError::AlreadyWon(7)));
        assert_eq!(s.analyze(&won), [None; 7]);
        assert_eq!(s.best_move(&won), None);
        let mut tiny = Solver::<1, 2>::with_table_mb(8);
        let full = Position::<1, 2>::parse("11").unwrap();
        assert_eq!(tiny.solve(&full), 0);
        assert_eq!(tiny.try_solve(&full), Err(SolveError::BoardFull));
        let open = Position::<1, 2>::parse("").unwrap();
        assert_eq!(tiny.try_solve(&open), Ok(0));
        assert_eq!(tiny.analyze(&open), [Some(0)]);
    }

    /// Labelled positions from every part of the game.
    fn sample() -> Vec<Position<7, 6>> {
        let sets = [
            include_str!("../../../../fixtures/solver/ply4-8.txt"),
            include_str!("../../../../fixtures/solver/ply15-22.txt"),
            include_str!("../../../../fixtures/solver/ply23-32.txt"),
            include_str!("../../../../fixtures/solver/ply33-40.txt"),
        ];
        sets.iter()
            .flat_map(|text| {
                let set = crate::fixture::parse::<7, 6>(text).unwrap();
                set.into_iter().step_by(5).map(|l| l.position)
            })
            .collect()
    }

    #[test]
    fn best_moves_are_the_moves_analyze_scores_highest() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        for p in sample() {
            let scores = s.analyze(&p);
            let best = scores.iter().flatten().max().copied();
            let (score, moves) = s.best_moves(&p);
            assert_eq!(Some(score), best, "{p:?}");
            let expected = scores.map(|m| m == best);
            assert_eq!(moves, expected, "{p:?}");
            let first = Geometry::<7, 6>::CENTRE_FIRST
                .into_iter()
                .find(|&c| moves[c]);
            assert_eq!(s.best_move(&p), first, "{p:?}");
        }
        let won = Position::<7, 6>::parse("1212121").unwrap();
        assert_eq!(s.best_moves(&won), (-18, [false; 7]));
    }

    #[test]
    fn every_question_is_answered_by_its_method() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        for p in sample().into_iter().step_by(4) {
            let score = s.solve(&p);
            assert_eq!(s.answer(&p, Question::Score), Reply::Score(score));
            assert_eq!(s.answer(&p, Question::Sign), Reply::Sign(score.signum()));
            let moves = s.analyze(&p);
            assert_eq!(s.answer(&p, Question::Moves), Reply::Moves(moves));
            let (best_score, best) = s.best_moves(&p);
            let reply = s.answer(&p, Question::Best);
            assert_eq!(
                reply,
                Reply::Best {
                    score: best_score,
                    moves: best
                }
            );
            for question in [Question::Score, Question::Moves, Question::Best] {
                assert_eq!(s.answer(&p, question).value(), Some(score), "{p:?}");
            }
            assert_eq!(s.answer(&p, Question::Sign).value(), Some(score.signum()));
        }
    }

    #[test]
    fn nodes_count_and_reset() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        let p = Position::parse("61354363717466").unwrap();
        s.solve_weak(&p);
        assert!(s.nodes() > 0);
        s.reset_nodes();
        assert_eq!(s.nodes(), 0);
        s.clear_table();
    }
}
