//! The solver of every board up to 128 bits, its size chosen at run time:
//! a handle to the compiled search of its size where there is one, else
//! to the same engine and search (see [`solver`](crate::solver)), each
//! position beside its [`Shape`]: in `u64`s over the compiled sizes'
//! table where the board's layout fits 64 bits, else in `u128`s over the
//! [table](super::table) of 128-bit keys.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Instant;

use super::compiled::{with_compiled_wide_size, Geometry128};
use super::node::{placed, OfShape, Placed};
use super::position::Position;
use super::shape::{Shape, MAX_WIDTH};
use super::table::Table;
use crate::book::{Book, BookError};
use crate::error::SolveError;
use crate::layout::Narrow;
use crate::mem::TableError;
use crate::solver::{
    best_among, built_for, prove, score_among, watch, AnyEngine, Ask, BestSoFar, Bound, Counts,
    Engine, Found, Goal, JournalError, JournalLoaded, Node, Parts, Probe, Progress, ScoreRange,
    StopHandle, Stopped, Store, Windows,
};

/// A solver of one board size, chosen at run time: the size-erased
/// [`Solver`](crate::Solver), with the same methods, on positions of this
/// module. A compiled size runs its compiled search (unless made with
/// [`as_data`](Self::as_data)); any other runs the search of sizes as
/// data.
///
/// ```
/// use score4::wide::{Position, Shape, Solver};
/// let shape = Shape::new(10, 4).unwrap();
/// let mut solver = Solver::new(shape, 16).unwrap();
/// // The first player has three on the bottom row, open at both ends.
/// let p = Position::parse(&shape, "4a5a6").unwrap();
/// assert!(solver.solve(&p).unwrap() < 0);
/// ```
pub struct Solver {
    shape: Shape,
    engine: Box<dyn AnyEngine>,
}

impl Solver {
    /// A solver for `shape` with a table of about `mb` mebibytes (see
    /// [`Solver::with_table_mb`](crate::Solver::with_table_mb)): the
    /// compiled search for a compiled size, with its built-in book if it
    /// has one; the search of sizes as data for the others.
    pub fn new(shape: Shape, mb: usize) -> Result<Solver, TableError> {
        Ok(Solver {
            shape,
            engine: built_for(shape, mb)?,
        })
    }

    /// A solver for `shape` that runs the search of sizes as data whatever
    /// the size: to compare it with the compiled one.
    pub fn as_data(shape: Shape, mb: usize) -> Result<Solver, TableError> {
        Ok(Solver {
            shape,
            engine: as_data_engine(shape, mb)?,
        })
    }

    /// The board this solver solves.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// See [`Solver::set_threads`](crate::Solver::set_threads).
    pub fn set_threads(&mut self, threads: usize) {
        self.engine.set_threads(threads);
    }

    /// See [`Solver::use_book`](crate::Solver::use_book).
    pub fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        self.engine.use_book(book)
    }

    /// See [`Solver::drop_book`](crate::Solver::drop_book).
    pub fn drop_book(&mut self) {
        self.engine.drop_book();
    }

    /// See [`Solver::book`](crate::Solver::book).
    pub fn book(&self) -> Option<&Book> {
        self.engine.book()
    }

    /// See [`Solver::keep_journal`](crate::Solver::keep_journal): an error
    /// on a board whose size is data.
    pub fn keep_journal(
        &mut self,
        path: &Path,
        min_work: u64,
    ) -> Result<JournalLoaded, JournalError> {
        self.engine.keep_journal(path, min_work)
    }

    /// See [`Solver::journal_error`](crate::Solver::journal_error).
    pub fn journal_error(&self) -> Option<JournalError> {
        self.engine.journal_error()
    }

    /// Positions searched since the solver was made or last reset.
    pub fn nodes(&self) -> u64 {
        self.engine.nodes()
    }

    /// Counts positions from zero again, and forgets the recorded probes.
    pub fn reset_nodes(&mut self) {
        self.engine.reset_nodes();
    }

    /// See [`Solver::probes`](crate::Solver::probes).
    pub fn probes(&self) -> &[Probe] {
        self.engine.probes()
    }

    /// The memory of the tables.
    pub fn table_bytes(&self) -> usize {
        self.engine.table_bytes()
    }

    /// Has the system supply all of the tables' memory now.
    pub fn touch_table(&mut self) {
        self.engine.touch_table();
    }

    /// Forgets what the tables hold.
    pub fn clear_table(&mut self) {
        self.engine.clear_table();
    }

    /// A handle that stops this solver's `*_until` searches from another
    /// thread.
    pub fn stop_handle(&self) -> StopHandle {
        self.engine.stop_handle()
    }

    /// The exact score of `p` for the side to move, in the crate's
    /// [convention](crate::score).
    pub fn solve(&mut self, p: &Position) -> Result<i32, SolveError> {
        Ok(self.score(p, Ask::Score, None)?.unwrap_or_else(never))
    }

    /// [`solve`](Self::solve), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Result<i32, Stopped>, SolveError> {
        self.score(p, Ask::Score, Some(deadline))
    }

    /// Who wins `p` with best play: 1 for the side to move, 0 a draw, -1
    /// the opponent; one search of the window `-1..1`.
    pub fn solve_weak(&mut self, p: &Position) -> Result<i32, SolveError> {
        Ok(self.score(p, Ask::Sign, None)?.unwrap_or_else(never))
    }

    /// [`solve_weak`](Self::solve_weak), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_weak_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Result<i32, Stopped>, SolveError> {
        self.score(p, Ask::Sign, Some(deadline))
    }

    /// The score of every move of `p` (the negated score of the position
    /// after it), `None` for a full column; a move that wins at once
    /// scores the win.
    pub fn analyze(&mut self, p: &Position) -> Result<Vec<Option<i32>>, SolveError> {
        let found = self.ask(p, Ask::Moves, None)?.unwrap_or_else(never);
        let Found::Moves(scores) = found else {
            unreachable!("moves asked, {found:?} found")
        };
        Ok(scores[..self.shape.width()]
            .iter()
            .map(|score| score.map(|s| s.unwrap_or_else(never)))
            .collect())
    }

    /// The score of `p` and, by column, whether its move keeps that score
    /// (one null-window search a move).
    pub fn best_moves(&mut self, p: &Position) -> Result<(i32, Vec<bool>), SolveError> {
        Ok(self.best_moves_asked(p, None)?.unwrap_or_else(never))
    }

    /// [`best_moves`](Self::best_moves), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    #[allow(clippy::type_complexity)]
    pub fn best_moves_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Result<(i32, Vec<bool>), Stopped>, SolveError> {
        self.best_moves_asked(p, Some(deadline))
    }

    #[allow(clippy::type_complexity)]
    fn best_moves_asked(
        &mut self,
        p: &Position,
        until: Option<Option<Instant>>,
    ) -> Result<Result<(i32, Vec<bool>), Stopped>, SolveError> {
        let width = self.shape.width();
        Ok(self.ask(p, Ask::Best, until)?.map(|found| {
            let Found::Best(score, moves) = found else {
                unreachable!("best moves asked, {found:?} found")
            };
            (score, moves[..width].to_vec())
        }))
    }

    /// [`analyze`](Self::analyze), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`: the columns
    /// settled before then have their score, the others `Err(Stopped)`.
    #[allow(clippy::type_complexity)]
    pub fn analyze_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Vec<Option<Result<i32, Stopped>>>, SolveError> {
        // A stop settles some columns, not the whole: never an error.
        let found = self
            .ask(p, Ask::Moves, Some(deadline))?
            .unwrap_or_else(never);
        let Found::Moves(scores) = found else {
            unreachable!("moves asked, {found:?} found")
        };
        Ok(scores[..self.shape.width()].to_vec())
    }

    /// A best move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; among equals, the one nearest the centre.
    pub fn best_move(&mut self, p: &Position) -> Result<usize, SolveError> {
        Ok(self.best_move_asked(p, None)?.unwrap_or_else(never))
    }

    /// [`best_move`](Self::best_move), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn best_move_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Result<usize, Stopped>, SolveError> {
        self.best_move_asked(p, Some(deadline))
    }

    fn best_move_asked(
        &mut self,
        p: &Position,
        until: Option<Option<Instant>>,
    ) -> Result<Result<usize, Stopped>, SolveError> {
        Ok(self.ask(p, Ask::BestMove, until)?.map(|found| match found {
            Found::Move(Some(col)) => col,
            found => unreachable!("a position in play has a best move, {found:?} found"),
        }))
    }

    /// One null-window search: whether `p`'s score is above `alpha`, with
    /// the bound the search proved, as
    /// [`Solver::probe`](crate::Solver::probe) does.
    pub fn probe(&mut self, p: &Position, alpha: i32) -> Result<Bound, SolveError> {
        Ok(self.probe_asked(p, alpha, None)?.unwrap_or_else(never))
    }

    /// [`probe`](Self::probe), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn probe_until(
        &mut self,
        p: &Position,
        alpha: i32,
        deadline: Option<Instant>,
    ) -> Result<Result<Bound, Stopped>, SolveError> {
        self.probe_asked(p, alpha, Some(deadline))
    }

    fn probe_asked(
        &mut self,
        p: &Position,
        alpha: i32,
        until: Option<Option<Instant>>,
    ) -> Result<Result<Bound, Stopped>, SolveError> {
        Ok(self
            .score(p, Ask::Probe(alpha), until)?
            .map(|r| Bound::from_probe(r, alpha)))
    }

    /// Analyses `p` as
    /// [`Solver::analyze_anytime`](crate::Solver::analyze_anytime) does,
    /// reporting each column's proven range as it narrows (a finished
    /// game has no columns to narrow).
    pub fn analyze_anytime(
        &mut self,
        p: &Position,
        goal: Goal,
        deadline: Option<Instant>,
        tick: Duration,
        update: impl FnMut(&Analysis),
    ) -> Analysis {
        let start = Instant::now();
        let handle = self.engine.stop_handle();
        let width = self.shape.width();
        let placed = placed(&self.shape, p);
        let mut asking = Asking(&mut *self.engine);
        watch(&handle, start, tick, update, |report| {
            let done = prove(&mut asking, &placed, goal, deadline, start, |state| {
                report(&Analysis::of(state, width))
            });
            Analysis::of(&done, width)
        })
    }

    /// The anytime analysis on the calling thread, without reports.
    pub(crate) fn proving(
        &mut self,
        p: &Position,
        goal: Goal,
        deadline: Option<Instant>,
    ) -> Analysis {
        let width = self.shape.width();
        let placed = placed(&self.shape, p);
        let mut asking = Asking(&mut *self.engine);
        let done = prove(&mut asking, &placed, goal, deadline, Instant::now(), |_| {});
        Analysis::of(&done, width)
    }

    /// A score asked of `p` in play (`Ask::Score` or `Ask::Sign`),
    /// stoppable when `until` is given.
    fn score(
        &mut self,
        p: &Position,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<Result<i32, Stopped>, SolveError> {
        Ok(self.ask(p, ask, until)?.map(|found| match found {
            Found::Score(score) => score,
            found => unreachable!("a score asked, {found:?} found"),
        }))
    }

    /// Asks the engine about `p`, a position in play; stoppable (by the
    /// handle or at the deadline) when `until` is given.
    fn ask(
        &mut self,
        p: &Position,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<Result<Found, Stopped>, SolveError> {
        p.check_in_play(&self.shape)?;
        Ok(self.engine.ask(p.to_parts(), ask, until))
    }
}

/// What an anytime analysis has proven about a position's moves: the
/// size-erased [`Analysis`](crate::solver::Analysis).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The range of each column's score for the side to move, one entry a
    /// column; `None` for a full column, and for every column once the
    /// game is over.
    pub columns: Vec<Option<ScoreRange>>,
    /// Positions searched by this analysis so far.
    pub nodes: u64,
    /// Time since the analysis began.
    pub elapsed: Duration,
    /// Whether every column's score is exact.
    pub done: bool,
}

impl Analysis {
    fn of(state: &Progress<[Option<ScoreRange>; MAX_WIDTH]>, width: usize) -> Analysis {
        Analysis {
            columns: state.columns[..width].to_vec(),
            nodes: state.nodes,
            elapsed: state.elapsed,
            done: state.done,
        }
    }

    /// See [`Analysis::best`](crate::solver::Analysis::best).
    pub fn best(&self) -> Option<BestSoFar> {
        let width = self.columns.len();
        let order: Vec<usize> = (0..width)
            .map(|i| crate::bitboard::centre_first_column(width, i))
            .collect();
        best_among(&self.columns, &order)
    }

    /// See [`Analysis::score`](crate::solver::Analysis::score).
    pub fn score(&self) -> Option<ScoreRange> {
        score_among(&self.columns)
    }
}

impl Counts for Analysis {
    fn counts(&mut self) -> (&mut u64, &mut Duration) {
        (&mut self.nodes, &mut self.elapsed)
    }
}

/// An engine of any size as an anytime analysis asks it, one window at a
/// time, each position crossing the boundary as parts.
struct Asking<'e>(&'e mut dyn AnyEngine);

impl<'s> Windows<Placed<'s, &'s Shape>> for Asking<'_> {
    fn window(
        &mut self,
        p: &Placed<'s, &'s Shape>,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        match self.0.ask(
            p.position().to_parts(),
            Ask::Window(alpha, beta),
            Some(deadline),
        )? {
            Found::Score(r) => Ok(r),
            found => unreachable!("a window found {found:?}"),
        }
    }

    fn nodes(&self) -> u64 {
        self.0.nodes()
    }

    fn book_score(&self, p: &Placed<'s, &'s Shape>) -> Option<i32> {
        self.0.book().and_then(|book| p.book_score(book))
    }
}

/// The engine of `shape` as data, with a table of about `mb` mebibytes:
/// on `u64`s where the board's layout fits them (a `u128` costs two
/// registers and several instructions an operation), else on `u128`s.
pub(crate) fn as_data_engine(shape: Shape, mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    if shape.layout_bits() <= u64::BITS {
        engine_over::<OnU64>(shape, mb)
    } else {
        engine_over::<OnU128>(shape, mb)
    }
}

/// The engine of a size that `with_compiled_size!` does not list: the
/// compiled search past 64 bits where [`with_compiled_wide_size!`] lists
/// the size, else the search of sizes as data.
pub(crate) fn shape_engine(shape: Shape, mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    with_compiled_wide_size!(
        (shape.width(), shape.height()),
        compiled_wide(shape, mb),
        as_data_engine(shape, mb)
    )
}

// The unit tests and the WebAssembly compile no size past 64 bits.
#[cfg_attr(any(test, target_family = "wasm"), allow(dead_code))]
fn compiled_wide<const W: usize, const H: usize>(
    shape: Shape,
    mb: usize,
) -> Result<Box<dyn AnyEngine>, TableError> {
    engine_over::<CompiledWide<W, H>>(shape, mb)
}

/// The engine of `shape` whose positions the search takes as `P` places
/// them.
fn engine_over<P: Placing>(shape: Shape, mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    Ok(Box::new(ShapeEngine::<P> {
        shape,
        engine: Engine::try_with_table_mb(&shape, mb)?,
    }))
}

/// The table of keys up to 64 bits, the compiled `u64` sizes'.
type NarrowTable = crate::solver::table::Table;

/// How a size's positions meet the search: the table they go in, and the
/// layout each position is searched in beside its shape.
trait Placing: 'static {
    type Store: Store + Send + 'static;
    /// The layout the positions are searched in.
    type Layout<'s>: OfShape<'s, Cells = <Self::Store as Store>::Key>;
}

/// Boards past 64 bits, their masks read from the shape: in `u128`s.
struct OnU128;

impl Placing for OnU128 {
    type Store = Table;
    type Layout<'s> = &'s Shape;
}

/// Boards whose layout fits 64 bits, their masks read from the shape: in
/// `u64`s.
struct OnU64;

impl Placing for OnU64 {
    type Store = NarrowTable;
    type Layout<'s> = Narrow<'s>;
}

/// The compiled `W` x `H` board past 64 bits: in `u128`s, its masks
/// constants.
#[cfg_attr(any(test, target_family = "wasm"), allow(dead_code))]
struct CompiledWide<const W: usize, const H: usize>;

impl<const W: usize, const H: usize> Placing for CompiledWide<W, H> {
    type Store = Table;
    type Layout<'s> = Geometry128<W, H>;
}

/// The engine of a size held as a [`Shape`] (every size but those of
/// `with_compiled_size!`): the engine of every size, each position placed
/// beside the shape as `P` does.
struct ShapeEngine<P: Placing> {
    shape: Shape,
    engine: Engine<P::Store, false>,
}

impl<P: Placing> AnyEngine for ShapeEngine<P> {
    fn set_threads(&mut self, threads: usize) {
        self.engine.set_threads(threads);
    }

    fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        book.check_board(&self.shape)?;
        self.engine.book = Some(book);
        Ok(())
    }

    fn drop_book(&mut self) {
        self.engine.book = None;
    }

    fn book(&self) -> Option<&Book> {
        self.engine.book.as_deref()
    }

    fn table_bytes(&self) -> usize {
        self.engine.table_bytes()
    }

    fn nodes(&self) -> u64 {
        self.engine.nodes()
    }

    fn reset_nodes(&mut self) {
        self.engine.reset_nodes();
    }

    fn probes(&self) -> &[Probe] {
        self.engine.probes()
    }

    fn touch_table(&mut self) {
        self.engine.touch_table();
    }

    fn clear_table(&mut self) {
        self.engine.clear_table();
    }

    fn stop_handle(&self) -> StopHandle {
        self.engine.stop_handle()
    }

    fn keep_journal(&mut self, path: &Path, min_work: u64) -> Result<JournalLoaded, JournalError> {
        self.engine.keep_journal(path, min_work)
    }

    fn journal_error(&self) -> Option<JournalError> {
        self.engine.journal_error()
    }

    fn ask(
        &mut self,
        p: Parts,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<Found, Stopped> {
        let p = Placed::<P::Layout<'_>>::new(&self.shape, Position::from_parts(p));
        self.engine.run(until, |engine| engine.answer(&p, ask))
    }
}

/// The answer of a search nothing could stop.
fn never<T>(_: Stopped) -> T {
    unreachable!("only a search given a deadline is stopped")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search on `u128`s, which only boards past 64 bits take, on
    /// boards whose layout fits 64 bits, beside the search on `u64`s there:
    /// the same answers to every question, so that the wide path is checked
    /// on every board the narrow one is, which is itself checked against
    /// the compiled search position by position (`tests/library/wide.rs`).
    /// Their tables differ (keys of 128 and of 64 bits, and so their
    /// entries and sizes), so the positions searched may differ too.
    #[test]
    fn the_search_on_u128s_is_the_search_on_u64s() {
        let mut rng = crate::rng::Rng::new(128);
        for (w, h) in [(7, 6), (5, 5), (6, 5), (9, 4), (4, 8)] {
            let shape = Shape::any(w, h);
            assert!(shape.layout_bits() <= u64::BITS, "{shape}");
            let mut narrow = as_data_engine(shape, 4).unwrap();
            let mut wide = engine_over::<OnU128>(shape, 4).unwrap();
            let mut searched = 0;
            while searched < 6 {
                // From the middle of the game to its end: seconds at most.
                let moves = w * h / 2 + rng.index(w * h / 2);
                let mut p = Position::new();
                for _ in 0..moves {
                    let open: Vec<usize> = (0..w).filter(|&c| p.can_play(&shape, c)).collect();
                    let col = open[rng.index(open.len())];
                    if p.is_winning_move(&shape, col) {
                        break;
                    }
                    p.play(&shape, col);
                }
                if p.ending(&shape).is_some() {
                    continue;
                }
                for ask in [Ask::Score, Ask::Sign, Ask::Moves, Ask::Best, Ask::BestMove] {
                    narrow.clear_table();
                    wide.clear_table();
                    let a = narrow.ask(p.to_parts(), ask, None).unwrap();
                    let b = wide.ask(p.to_parts(), ask, None).unwrap();
                    let shown = p.drawing(&shape);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{ask:?}\n{shown}");
                }
                searched += 1;
            }
        }
    }
}
