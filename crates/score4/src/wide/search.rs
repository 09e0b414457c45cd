//! The search of boards up to 128 bits: alpha-beta over the
//! [table](super::table), moves that lose at once never tried, the others
//! tried by the threats they make, and the score found by null windows.

use super::position::Position;
use super::shape::Shape;
use super::table::Table;
use crate::error::SolveError;
use crate::layout::Discs;
use crate::mem::TableError;
use crate::score;
use crate::solver::ordered_moves;
use crate::solver::table::Bounds;
use crate::solver::{static_bounds, Threats};

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
        while lower < upper {
            // Halve the interval, but ask nearer zero first: most
            // positions are decided early and questions near zero are
            // cheap.
            let mut middle = lower + (upper - lower) / 2;
            if middle <= 0 && lower / 2 < middle {
                middle = lower / 2;
            } else if middle >= 0 && upper / 2 > middle {
                middle = upper / 2;
            }
            let found = self.negamax(p, middle, middle + 1);
            if found <= middle {
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
    /// at most `alpha` when the score is, at least `beta` when it is.
    fn negamax(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        debug_assert!(alpha < beta && !p.can_win_next(&self.shape));
        self.nodes += 1;
        let shape = self.shape;
        let (cells, n) = (shape.cells(), p.moves_played());
        // The opponent's winning cells and the playable ones, found once:
        // the safe moves and their order both need them.
        let threats = p.opponent_winning_cells(&shape);
        let playable = p.playable(&shape);
        let candidates = Position::non_losing_among(playable, threats);
        if candidates == 0 {
            return -score::win(cells, n + 1);
        }
        // Neither side can win with the next two discs, and then the board is full.
        if n as usize + 2 >= cells {
            return 0;
        }
        // The opponent cannot win with its next disc, nor can we: the loss
        // comes later, our win with our disc after next at best; the static
        // bounds and the table may say more.
        let discs = Discs {
            current: p.current(),
            mask: p.occupied(),
            moves: n,
        };
        let both = Threats {
            ours: p.winning_cells(&shape),
            theirs: threats,
        };
        let (lower, upper) = static_bounds(&shape, discs, alpha, beta, both);
        let (mut lower, mut upper) = (lower.max(-score::win(cells, n + 3)), upper);
        let key = p.key();
        let mut hint = None;
        if let Some(k) = self.table.get(key) {
            lower = lower.max(k.lower);
            upper = upper.min(k.upper);
            hint = k.best;
        }
        if lower >= beta {
            return lower;
        }
        if upper <= alpha {
            return upper;
        }
        alpha = alpha.max(lower);
        beta = beta.min(upper);
        if alpha >= beta {
            // Only when both bounds meet: the exact score.
            return alpha;
        }

        // The order of the compiled search: the table's best move, then
        // by the threats each makes, ties centre first.
        let (moves, winning, _) = ordered_moves(&shape, &discs, threats, candidates, hint, alpha);
        if winning != 0 {
            // The opponent loses whatever it plays: the best there is.
            let won = score::win(cells, n + 2);
            let best = Some(shape.column_of(winning));
            self.table.put(
                key,
                Bounds {
                    lower: won,
                    upper: won,
                    best,
                },
            );
            return won;
        }

        let mut best = None;
        for &(cell, _) in moves.iter().take_while(|&&(cell, _)| cell != 0) {
            let mut child = *p;
            child.play_cell(cell);
            let found = -self.negamax(&child, -beta, -alpha);
            if found >= beta {
                debug_assert!(found <= upper);
                let best = Some(shape.column_of(cell));
                self.table.put(
                    key,
                    Bounds {
                        lower: found,
                        upper,
                        best,
                    },
                );
                return found;
            }
            if found > alpha {
                alpha = found;
                best = Some(shape.column_of(cell));
            }
        }
        // Every move scored at most `alpha`; one scored exactly that if it
        // raised it.
        let lower = if best.is_some() { alpha } else { lower };
        self.table.put(
            key,
            Bounds {
                lower,
                upper: alpha,
                best,
            },
        );
        alpha
    }
}
