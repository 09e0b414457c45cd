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
//! - this module: the [`Solver`] and its probe loop, which narrows the
//!   score with null-window searches;
//! - `search`: negamax, one position and its moves;
//! - `bounds`: the static bounds read off the board;
//! - `order`: which move to search first;
//! - `parallel`: threads searching one position together;
//! - `stats` (the `search-stats` feature): where the positions go, for
//!   measuring;
//! - [`tuning`]: every tunable, with the reason for its value;
//! - `verdict`: a score read back as who wins with which disc
//!   ([`Verdict`]);
//! - [`table`]: the transposition table.
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

mod bounds;
mod order;
mod parallel;
#[cfg(test)]
pub(crate) mod plain;
mod search;
#[cfg(feature = "search-stats")]
pub mod stats;
mod stop;
pub mod table;
pub mod tuning;
mod verdict;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::bitboard::Geometry;
use crate::book::{Book, BookError};
pub use crate::error::SolveError;
use crate::mem::TableError;
use crate::position::{Ending, Position};
use crate::score;
use search::{Search, Tables};
pub use stop::{StopHandle, Stopped};
use table::Table;
pub use tuning::{default_table_mb, DEFAULT_SHARED_TABLE_MB, DEFAULT_TABLE_MB, NEAR_TABLE_MB};
use tuning::{NEAR_MAX_EMPTY, NEAR_TABLE_FROM_MB, OWN_NEAR_MAX_EMPTY};
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
    table: Table,
    /// With a large `table`: the table of positions near the end, used
    /// when the threads have none of their own.
    near: Option<Table>,
    /// With several threads: each thread's own table of positions near
    /// the end (see [`set_threads`](Self::set_threads)), the main
    /// search's first.
    own_near: Vec<Table>,
    /// Positions searched over the solver's life.
    searched: u64,
    /// The value of `searched` at the last [`reset_nodes`](Self::reset_nodes).
    searched_at_reset: u64,
    /// Threads searching each large position together.
    threads: usize,
    /// Exact scores of the opening, answered without search.
    book: Option<Arc<Book>>,
    /// The searches since the last [`reset_nodes`](Self::reset_nodes), up
    /// to [`MAX_PROBES`]; allocated once, so recording never allocates.
    probes: Vec<Probe>,
    /// Stops the `*_until` searches from another thread.
    stop: StopHandle,
    /// Whether the call under way is a `*_until` one, whose searches the
    /// handle and the deadline stop.
    stoppable: bool,
}

/// Most searches [`Solver::probes`] keeps: room for a strong solve of
/// every move of [`Solver::analyze`].
pub const MAX_PROBES: usize = 128;

/// The most threads a front end should ask for: far more than lazy SMP
/// gains from, few enough that the system starts them all.
pub const MAX_THREADS: usize = 256;

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
    const CELLS: i32 = (W * H) as i32;
    /// Rejects at compile time boards too wide for a table entry's move.
    const VALID: () = assert!(W <= table::MAX_WIDTH, "at most 14 columns");
    /// Width of a position key: every column's cells plus its sentinel.
    const KEY_BITS: u32 = Geometry::<W, H>::LAYOUT_BITS;
    /// Columns from the centre outwards, where lines are most numerous.
    const ORDER: [usize; W] = Geometry::<W, H>::CENTRE_FIRST;

    /// A solver with a table of [`DEFAULT_TABLE_MB`] mebibytes.
    pub fn new() -> Self {
        Self::with_table_mb(DEFAULT_TABLE_MB)
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
        let () = Self::VALID;
        let near = if mb >= NEAR_TABLE_FROM_MB {
            Some(Table::try_with_mb(NEAR_TABLE_MB, Self::KEY_BITS)?)
        } else {
            None
        };
        Ok(Solver {
            table: Table::try_with_mb(mb, Self::KEY_BITS)?,
            near,
            own_near: Vec::new(),
            searched: 0,
            searched_at_reset: 0,
            threads: 1,
            book: Self::built_in_book(),
            probes: Vec::with_capacity(MAX_PROBES),
            stop: StopHandle::default(),
            stoppable: false,
        })
    }

    /// Searches positions in the first half of the game with `threads`
    /// threads (at least 1; 1 by default) sharing the table: all search
    /// the same position, and helpers put off the move the main search is
    /// busy with, so that the threads split the tree rather than repeat
    /// it. Later positions are too quick to share. Threads share only
    /// through the table, so give them a larger one ([`default_table_mb`]).
    ///
    /// Each thread also gets a table of its own, of [`NEAR_TABLE_MB`], for
    /// the positions near the end of the game (the main search uses its
    /// own for the later positions it searches alone): those are cheap to
    /// search again, and sharing them costs more in traffic between the
    /// cores than it saves. If the system will not allocate them, the
    /// threads share the main table throughout.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
        self.own_near = if self.threads > 1 {
            (0..self.threads)
                .map(|_| Table::try_with_mb(NEAR_TABLE_MB, Self::KEY_BITS))
                .collect::<Result<_, _>>()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
    }

    /// The book built into the library for this board, if there is one
    /// (7x6 only).
    fn built_in_book() -> Option<Arc<Book>> {
        (W, H).eq(&(7, 6)).then(Book::standard)
    }

    /// Answers the positions `book` holds from it. A new solver has the
    /// built-in book of its board, if there is one; a book for another
    /// board is refused.
    pub fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        book.check_board(crate::size::BoardSize::of::<W, H>())?;
        self.book = Some(book);
        Ok(())
    }

    /// Searches every position, even those a book holds.
    pub fn drop_book(&mut self) {
        self.book = None;
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Book> {
        self.book.as_deref()
    }

    /// The size of the tables in bytes.
    pub fn table_bytes(&self) -> usize {
        let own: usize = self.own_near.iter().map(Table::bytes).sum();
        self.table.bytes() + self.near.as_ref().map_or(0, Table::bytes) + own
    }

    /// Positions searched since the solver was made or
    /// [`reset_nodes`](Self::reset_nodes) was last called.
    pub fn nodes(&self) -> u64 {
        self.searched - self.searched_at_reset
    }

    /// Sets the node count back to zero and forgets the recorded
    /// [`probes`](Self::probes).
    pub fn reset_nodes(&mut self) {
        self.searched_at_reset = self.searched;
        self.probes.clear();
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
        &self.probes
    }

    /// Has the system supply all of the table's memory now, as a
    /// benchmark does before it starts timing: otherwise the first
    /// positions solved also pay for the kernel zeroing the pages they
    /// touch first. Stored bounds are unchanged.
    pub fn touch_table(&mut self) {
        self.table.touch();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.touch();
        }
    }

    /// Forgets every stored bound (cheap: no memory is rewritten).
    pub fn clear_table(&mut self) {
        self.table.clear();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.clear();
        }
    }

    /// The score a win scores for the side to move when it wins with the
    /// move after `moves` moves played (see [`score::win`]).
    #[inline(always)]
    pub(crate) fn win_score(moves: i32) -> i32 {
        score::win(W * H, moves as u32)
    }

    /// The score of a finished game from the side to move, or `None` if
    /// the game goes on.
    fn finished_score(p: &Position<W, H>) -> Option<i32> {
        // The winning move was the last, played after all but one.
        let n = p.moves_played() as i32;
        p.ending().map(|ending| match ending {
            Ending::Lost => -Self::win_score(n - 1),
            Ending::Won => Self::win_score(n - 1),
            Ending::Draw => 0,
        })
    }

    /// The exact score of `p` for the side to move.
    ///
    /// Scores follow the [`score`] convention: a win scores more the sooner
    /// it comes, a loss is the negation of the opponent's win, a draw is 0;
    /// both sides win as fast and lose as slowly as they can.
    ///
    /// A finished game is not an error here: a full board scores 0, and a
    /// position whose last move made four scores that win, negated, from
    /// the side to move. [`try_solve`](Self::try_solve) rejects those
    /// instead.
    pub fn solve(&mut self, p: &Position<W, H>) -> i32 {
        Self::unstoppable(self.solve_inner(p))
    }

    /// [`solve`](Self::solve), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        self.stoppable(deadline, |s| s.solve_inner(p))
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
        self.stop.clone()
    }

    /// Runs `f` with its searches stoppable by the handle or at `deadline`.
    fn stoppable<T>(
        &mut self,
        deadline: Option<Instant>,
        f: impl FnOnce(&mut Self) -> Result<T, Stopped>,
    ) -> Result<T, Stopped> {
        let stop = self.stop.clone();
        self.stoppable = true;
        let result = stop.with_deadline(deadline, || f(self));
        self.stoppable = false;
        result
    }

    /// The answer of a search nothing could stop.
    fn unstoppable<T>(result: Result<T, Stopped>) -> T {
        match result {
            Ok(answer) => answer,
            Err(Stopped) => unreachable!("only the *_until searches can be stopped"),
        }
    }

    /// The flag that stops the searches of the call under way, if any.
    fn stop_flag(&self) -> Option<&AtomicBool> {
        self.stoppable.then(|| self.stop.abort_flag())
    }

    fn solve_inner(&mut self, p: &Position<W, H>) -> Result<i32, Stopped> {
        if let Some(score) = Self::finished_score(p) {
            return Ok(score);
        }
        if let Some(score) = self.book.as_ref().and_then(|b| b.score(p)) {
            return Ok(score);
        }
        let n = p.moves_played() as i32;
        if p.can_win_next() {
            return Ok(Self::win_score(n));
        }
        // The opponent wins at best with its next move, the side to move at
        // best with the move after that.
        let mut min = -Self::win_score(n + 1);
        let mut max = Self::win_score(n + 2);
        let mut probes = 0;
        while min < max {
            let probe = tuning::next_probe(min, max, probes, n);
            probes += 1;
            let r = self.search(p, probe, probe + 1)?;
            if r <= probe {
                max = r;
            } else {
                min = r;
            }
        }
        Ok(min)
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
        Self::unstoppable(self.solve_weak_inner(p))
    }

    /// [`solve_weak`](Self::solve_weak), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_weak_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        self.stoppable(deadline, |s| s.solve_weak_inner(p))
    }

    fn solve_weak_inner(&mut self, p: &Position<W, H>) -> Result<i32, Stopped> {
        if let Some(score) = Self::finished_score(p) {
            return Ok(score.signum());
        }
        if let Some(score) = self.book.as_ref().and_then(|b| b.score(p)) {
            return Ok(score.signum());
        }
        if p.can_win_next() {
            return Ok(1);
        }
        Ok(self.search(p, -1, 1)?.signum())
    }

    /// The score of every move for the side to move (the score of the
    /// position after it, negated), `None` for a full column. A move that
    /// wins at once scores [`score::win`] of the moves played. A
    /// finished game has no moves: every entry is `None`.
    pub fn analyze(&mut self, p: &Position<W, H>) -> [Option<i32>; W] {
        self.analyze_inner(p)
            .map(|score| score.map(Self::unstoppable))
    }

    /// [`analyze`](Self::analyze), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`: the columns
    /// settled before then have their score, the others `Err(Stopped)`.
    pub fn analyze_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> [Option<Result<i32, Stopped>>; W] {
        let mut scores = [None; W];
        let _ = self.stoppable(deadline, |s| {
            scores = s.analyze_inner(p);
            Ok(())
        });
        scores
    }

    fn analyze_inner(&mut self, p: &Position<W, H>) -> [Option<Result<i32, Stopped>>; W] {
        let mut scores = [None; W];
        if p.is_game_over() {
            return scores;
        }
        let n = p.moves_played() as i32;
        for (col, score) in scores.iter_mut().enumerate() {
            if p.can_play(col) {
                *score = Some(if p.is_winning_move(col) {
                    Ok(Self::win_score(n))
                } else {
                    self.solve_inner(&p.after(col)).map(|s| -s)
                });
            }
        }
        scores
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
        Self::unstoppable(self.best_move_inner(p))
    }

    /// [`best_move`](Self::best_move), stopped by the solver's
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn best_move_until(
        &mut self,
        p: &Position<W, H>,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, Stopped> {
        self.stoppable(deadline, |s| s.best_move_inner(p))
    }

    fn best_move_inner(&mut self, p: &Position<W, H>) -> Result<Option<usize>, Stopped> {
        if p.is_game_over() {
            return Ok(None);
        }
        let score = self.solve_inner(p)?;
        for col in Self::ORDER {
            if p.can_play(col) && self.reaches(p, col, score)? {
                return Ok(Some(col));
            }
        }
        // Some move reaches the score, so this is never reached; were it,
        // the slow way still gives an answer.
        debug_assert!(false, "no move reaches the score\n{p:?}");
        let mut scores = [None; W];
        for (score, analysed) in scores.iter_mut().zip(self.analyze_inner(p)) {
            *score = analysed.transpose()?;
        }
        Ok(Self::best_of(&scores))
    }

    /// Whether playing `col` (playable) in `p` (not over), whose score is
    /// `score`, keeps that score: whether the position it leads to scores
    /// at most the score's negation, which one null-window search of that
    /// position settles.
    fn reaches(&mut self, p: &Position<W, H>, col: usize, score: i32) -> Result<bool, Stopped> {
        let n = p.moves_played() as i32;
        let child = p.after(col);
        Ok(if p.is_winning_move(col) {
            // The best any move can score: `solve` gave it too.
            true
        } else if child.is_game_over() {
            score <= 0
        } else if child.can_win_next() {
            score <= -Self::win_score(n + 1)
        } else if let Some(known) = self.book.as_ref().and_then(|b| b.score(&child)) {
            -known >= score
        } else {
            self.search(&child, -score, -score + 1)? <= -score
        })
    }

    /// The best move among analysed scores (as [`analyze`](Self::analyze)
    /// returns them): the highest score, the centre-most among equals.
    pub fn best_of(scores: &[Option<i32>; W]) -> Option<usize> {
        let mut best: Option<(i32, usize)> = None;
        for &col in &Self::ORDER {
            if let Some(s) = scores[col] {
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, col));
                }
            }
        }
        best.map(|(_, col)| col)
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
        Self::unstoppable(self.best_moves_inner(p))
    }

    fn best_moves_inner(&mut self, p: &Position<W, H>) -> Result<(i32, [bool; W]), Stopped> {
        let mut moves = [false; W];
        let score = self.solve_inner(p)?;
        if !p.is_game_over() {
            for (col, best) in moves.iter_mut().enumerate() {
                *best = p.can_play(col) && self.reaches(p, col, score)?;
            }
        }
        Ok((score, moves))
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
        Self::unstoppable(self.answer_inner(p, question))
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
        self.stoppable(deadline, |s| s.answer_inner(p, question))
    }

    fn answer_inner(
        &mut self,
        p: &Position<W, H>,
        question: Question,
    ) -> Result<Reply<W>, Stopped> {
        Ok(match question {
            Question::Score => Reply::Score(self.solve_inner(p)?),
            Question::Sign => Reply::Sign(self.solve_weak_inner(p)?),
            Question::Moves => {
                let mut scores = [None; W];
                for (score, analysed) in scores.iter_mut().zip(self.analyze_inner(p)) {
                    *score = analysed.transpose()?;
                }
                Reply::Moves(scores)
            }
            Question::Best => {
                let (score, moves) = self.best_moves_inner(p)?;
                Reply::Best { score, moves }
            }
        })
    }

    /// Searches `p` within `alpha..beta` (see [`Search::negamax`]), with
    /// helper threads if it is worth it.
    fn search(&mut self, p: &Position<W, H>, alpha: i32, beta: i32) -> Result<i32, Stopped> {
        let before = self.searched;
        let result = self.search_unrecorded(p, alpha, beta)?;
        if self.probes.len() < MAX_PROBES {
            self.probes.push(Probe {
                alpha,
                beta,
                result,
                nodes: self.searched - before,
            });
        }
        Ok(result)
    }

    /// The tables thread `thread` searches with (0 is the main search):
    /// its own near table and the shared one when the threads have their
    /// own, else the shared tables alone.
    fn tables(&self, thread: usize) -> Tables<'_> {
        match self.own_near.get(thread) {
            Some(near) => Tables {
                far: &self.table,
                near,
                near_max_empty: OWN_NEAR_MAX_EMPTY,
            },
            None => Tables {
                far: &self.table,
                near: self.near.as_ref().unwrap_or(&self.table),
                near_max_empty: NEAR_MAX_EMPTY,
            },
        }
    }

    /// [`search`](Self::search) without the record.
    fn search_unrecorded(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        if self.threads <= 1 || p.moves_played() >= tuning::threads_below_moves(Self::CELLS as u32)
        {
            let mut search = Search::new(self.tables(0), self.searched, self.stop_flag());
            let score = search.negamax(p, alpha, beta);
            let finished = search.finished();
            self.searched = search.nodes;
            return finished.then_some(score).ok_or(Stopped);
        }
        let tables: Vec<Tables> = (0..self.threads).map(|t| self.tables(t)).collect();
        let (score, nodes) = match self.stop_flag() {
            Some(stop) => {
                let found = parallel::search_together(&tables, p, alpha, beta, stop);
                // The threads stopped each other through the flag: it says
                // again only what the user and the deadline say.
                self.stop.settle();
                found
            }
            None => parallel::search_together(&tables, p, alpha, beta, &AtomicBool::new(false)),
        };
        self.searched += nodes;
        score.ok_or(Stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_first_order() {
        assert_eq!(Solver::<7, 6>::ORDER, [3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(Solver::<4, 4>::ORDER, [2, 1, 3, 0]);
        assert_eq!(Solver::<1, 4>::ORDER, [0]);
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
            let first = Solver::<7, 6>::ORDER.into_iter().find(|&c| moves[c]);
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
