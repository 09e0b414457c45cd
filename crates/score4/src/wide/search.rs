//! The solver of boards up to 128 bits: the compiled sizes' search (see
//! [`solver`](crate::solver)) over the [table](super::table) of 128-bit
//! keys, the score found by null windows.

use super::position::Position;
use super::shape::Shape;
use super::table::Table;
use crate::error::SolveError;
use crate::layout::Discs;
use crate::mem::TableError;
use crate::score;
use crate::solver::{tuning, Node, Search, Tables};

/// A solver of one board size, chosen at run time.
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
    table: Table,
    /// Positions searched since the last [`reset_nodes`](Self::reset_nodes).
    nodes: u64,
}

impl Solver {
    /// A solver for `shape` with a table of about `mb` mebibytes.
    pub fn new(shape: Shape, mb: usize) -> Result<Solver, TableError> {
        Ok(Solver {
            shape,
            table: Table::with_mb(mb, shape.layout_bits())?,
            nodes: 0,
        })
    }

    /// The board this solver solves.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Positions searched since the solver was made or last reset.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Counts positions from zero again.
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
    }

    /// The memory of the table.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Forgets what the table holds.
    pub fn clear_table(&mut self) {
        self.table.clear();
    }

    fn cells(&self) -> usize {
        self.shape.cells()
    }

    /// The exact score of `p` for the side to move, in the crate's
    /// [convention](crate::score).
    pub fn solve(&mut self, p: &Position) -> Result<i32, SolveError> {
        p.check_in_play(&self.shape)?;
        let (cells, n) = (self.cells(), p.moves_played());
        if p.can_win_next(&self.shape) {
            return Ok(score::win(cells, n));
        }
        // A loss to the opponent's next disc, at worst; a win with our
        // disc after next, at best.
        let (mut lower, mut upper) = (-score::win(cells, n + 1), score::win(cells, n + 2));
        let mut probes = 0;
        while lower < upper {
            // The compiled sizes' order of null windows.
            let sign = tuning::sign_probe(cells, self.shape.height(), n as i32);
            let probe = tuning::next_probe(lower, upper, probes, n as i32, sign);
            probes += 1;
            let found = self.negamax(p, probe, probe + 1);
            if found <= probe {
                upper = found;
            } else {
                lower = found;
            }
        }
        Ok(lower)
    }

    /// Who wins `p` with best play: 1 for the side to move, 0 a draw, -1
    /// the opponent; one search of the window `-1..1`.
    pub fn solve_weak(&mut self, p: &Position) -> Result<i32, SolveError> {
        p.check_in_play(&self.shape)?;
        if p.can_win_next(&self.shape) {
            return Ok(1);
        }
        Ok(self.negamax(p, -1, 1).signum())
    }

    /// The score of every move of `p` (the negated score of the position
    /// after it), `None` for a full column; a move that wins at once
    /// scores the win.
    pub fn analyze(&mut self, p: &Position) -> Result<Vec<Option<i32>>, SolveError> {
        p.check_in_play(&self.shape)?;
        let shape = self.shape;
        let mut scores = vec![None; shape.width()];
        for (col, slot) in scores.iter_mut().enumerate() {
            if !p.can_play(&shape, col) {
                continue;
            }
            *slot = Some(if p.is_winning_move(&shape, col) {
                score::win(shape.cells(), p.moves_played())
            } else {
                let child = p.after(&shape, col);
                if child.is_full(&shape) {
                    0
                } else {
                    -self.solve(&child)?
                }
            });
        }
        Ok(scores)
    }

    /// The score of `p`, a position in play where the side to move cannot
    /// win at once, if it lies strictly between `alpha` and `beta`;
    /// otherwise a bound on the same side of the window as the score:
    /// at most `alpha` when the score is, at least `beta` when it is. The
    /// search of the compiled sizes, reading the masks from the shape.
    fn negamax(&mut self, p: &Position, alpha: i32, beta: i32) -> i32 {
        let tables = Tables::single(&self.table);
        let placed = Placed {
            shape: &self.shape,
            p: *p,
        };
        let mut search = Search::<Placed, Table, false>::unstoppable(&self.shape, tables);
        let found = search.negamax(&placed, alpha, beta);
        self.nodes += search.nodes;
        found
    }
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
}
