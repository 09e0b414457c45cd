//! The solver of boards up to 128 bits: the compiled sizes' engine and
//! search (see [`solver`](crate::solver)) over the [table](super::table)
//! of 128-bit keys, each position beside its [`Shape`].

use std::time::Instant;

use super::position::Position;
use super::shape::Shape;
use super::table::Table;
use crate::book::Book;
use crate::error::SolveError;
use crate::layout::Discs;
use crate::mem::TableError;
use crate::position::Ending;
use crate::solver::{Engine, Node, Probe, StopHandle, Stopped};

/// A solver of one board size, chosen at run time: the compiled sizes'
/// [`Solver`](crate::Solver), with threads, stops and deadlines, but no
/// book and no journal.
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
    engine: Engine<Table, false>,
}

impl Solver {
    /// A solver for `shape` with a table of about `mb` mebibytes (and,
    /// from 64 MiB, a table of the positions near the end, as the compiled
    /// sizes have).
    pub fn new(shape: Shape, mb: usize) -> Result<Solver, TableError> {
        Ok(Solver {
            shape,
            engine: Engine::try_with_table_mb(&shape, mb)?,
        })
    }

    /// The board this solver solves.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Searches positions in the first half of the game with `threads`
    /// threads, as [`Solver::set_threads`](crate::Solver::set_threads) does.
    pub fn set_threads(&mut self, threads: usize) {
        self.engine.set_threads(threads);
    }

    /// Positions searched since the solver was made or last reset.
    pub fn nodes(&self) -> u64 {
        self.engine.nodes()
    }

    /// Counts positions from zero again, and forgets the recorded probes.
    pub fn reset_nodes(&mut self) {
        self.engine.reset_nodes();
    }

    /// The searches made since the last [`reset_nodes`](Self::reset_nodes),
    /// as [`Solver::probes`](crate::Solver::probes) gives them.
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
        Ok(self
            .run(p, None, |engine, p| engine.solve_inner(p))?
            .unwrap_or_else(never))
    }

    /// [`solve`](Self::solve), stopped by the
    /// [`stop_handle`](Self::stop_handle) or at `deadline`.
    pub fn solve_until(
        &mut self,
        p: &Position,
        deadline: Option<Instant>,
    ) -> Result<Result<i32, Stopped>, SolveError> {
        self.run(p, Some(deadline), |engine, p| engine.solve_inner(p))
    }

    /// Who wins `p` with best play: 1 for the side to move, 0 a draw, -1
    /// the opponent; one search of the window `-1..1`.
    pub fn solve_weak(&mut self, p: &Position) -> Result<i32, SolveError> {
        Ok(self
            .run(p, None, |engine, p| engine.solve_weak_inner(p))?
            .unwrap_or_else(never))
    }

    /// The score of every move of `p` (the negated score of the position
    /// after it), `None` for a full column; a move that wins at once
    /// scores the win.
    pub fn analyze(&mut self, p: &Position) -> Result<Vec<Option<i32>>, SolveError> {
        let scores = self
            .run(p, None, |engine, p| Ok(engine.analyze_inner(p)))?
            .unwrap_or_else(never);
        Ok(scores[..self.shape.width()]
            .iter()
            .map(|score| score.map(|s| s.unwrap_or_else(never)))
            .collect())
    }

    /// The score of `p` and, by column, whether its move keeps that score
    /// (one null-window search a move).
    pub fn best_moves(&mut self, p: &Position) -> Result<(i32, Vec<bool>), SolveError> {
        let (score, moves) = self
            .run(p, None, |engine, p| engine.best_moves_inner(p))?
            .unwrap_or_else(never);
        Ok((score, moves[..self.shape.width()].to_vec()))
    }

    /// A best move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; among equals, the one nearest the centre.
    pub fn best_move(&mut self, p: &Position) -> Result<usize, SolveError> {
        let best = self
            .run(p, None, |engine, p| engine.best_move_inner(p))?
            .unwrap_or_else(never);
        // A position in play has a move.
        Ok(best.unwrap_or_else(|| unreachable!("a position in play has a move")))
    }

    /// Runs `ask` on `p` in play, stoppable (by the handle or at the
    /// deadline) when `until` is given.
    fn run<T>(
        &mut self,
        p: &Position,
        until: Option<Option<Instant>>,
        ask: impl FnOnce(&mut Engine<Table, false>, &Placed<'_>) -> Result<T, Stopped>,
    ) -> Result<Result<T, Stopped>, SolveError> {
        p.check_in_play(&self.shape)?;
        let placed = Placed {
            shape: &self.shape,
            p: *p,
        };
        Ok(self.engine.run(until, |engine| ask(engine, &placed)))
    }
}

/// The answer of a search nothing could stop.
fn never<T>(_: Stopped) -> T {
    unreachable!("only a search given a deadline is stopped")
}

/// A position beside its shape: what the search needs of a position.
#[derive(Clone, Copy)]
struct Placed<'s> {
    shape: &'s Shape,
    p: Position,
}

impl<'s> Node for Placed<'s> {
    type Layout = &'s Shape;
    type Key = u128;

    #[inline(always)]
    fn layout(&self) -> &'s Shape {
        self.shape
    }

    #[inline(always)]
    fn moves_played(&self) -> u32 {
        self.p.moves_played()
    }

    #[inline(always)]
    fn discs(&self) -> Discs<u128> {
        Discs {
            current: self.p.current(),
            mask: self.p.occupied(),
            moves: self.p.moves_played(),
        }
    }

    #[inline(always)]
    fn winning_cells(&self) -> u128 {
        self.p.winning_cells(self.shape)
    }

    #[inline(always)]
    fn opponent_winning_cells(&self) -> u128 {
        self.p.opponent_winning_cells(self.shape)
    }

    #[inline(always)]
    fn non_losing_moves_against(&self, threats: u128) -> u128 {
        Position::non_losing_among(self.p.playable(self.shape), threats)
    }

    #[inline(always)]
    fn play_cell(&mut self, cell: u128) {
        self.p.play_cell(cell)
    }

    #[inline(always)]
    fn key(&self) -> u128 {
        self.p.key()
    }

    #[inline(always)]
    fn canonical_key(&self) -> u128 {
        let key = self.p.key();
        // As for the compiled sizes: `current + mask` never carries past a
        // column's sentinel, so mirroring the key mirrors both sets.
        key.min(self.shape.mirror(key))
    }

    fn can_win_next(&self) -> bool {
        self.p.can_win_next(self.shape)
    }

    fn is_game_over(&self) -> bool {
        self.p.ending(self.shape).is_some()
    }

    fn ending(&self) -> Option<Ending> {
        self.p.ending(self.shape)
    }

    /// No book holds boards past 64 bits yet.
    fn book_score(&self, _: &Book) -> Option<i32> {
        None
    }
}
