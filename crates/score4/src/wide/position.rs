//! A position on a board of any [`Shape`]: the side to move's discs, every
//! disc, and the moves played, as [`crate::Position`] keeps them, in a
//! `u128`.

use std::fmt;

use super::notation;
use super::shape::{Cells, Shape};
use crate::error::{ParseError, SolveError};
use crate::layout::Layout;
use crate::position::Ending;

/// A position on a board whose [`Shape`] is given to every method that
/// needs it (a position does not carry it: the search copies positions,
/// and the shape is the same for all of them).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Position {
    current: Cells,
    mask: Cells,
    moves: u32,
}

impl Position {
    /// The empty board.
    pub const fn new() -> Self {
        Position {
            current: 0,
            mask: 0,
            moves: 0,
        }
    }

    /// Reads a move sequence in the [notation] of boards
    /// of every width, columns from 1.
    ///
    /// ```
    /// use score4::wide::{Position, Shape};
    /// let shape = Shape::new(10, 4).unwrap();
    /// let p = Position::parse(&shape, "5a6").unwrap();
    /// assert_eq!(p.moves_played(), 3);
    /// assert!(Position::parse(&shape, "5b").is_err());
    /// ```
    pub fn parse(shape: &Shape, moves: &str) -> Result<Self, ParseError> {
        struct On<'a>(&'a Shape, Position);
        impl notation::Board for On<'_> {
            fn width(&self) -> usize {
                self.0.width()
            }
            fn can_play(&self, col: usize) -> bool {
                self.1.can_play(self.0, col)
            }
            fn is_winning_move(&self, col: usize) -> bool {
                self.1.is_winning_move(self.0, col)
            }
            fn play(&mut self, col: usize) {
                self.1.play(self.0, col)
            }
        }
        let mut board = On(shape, Position::new());
        notation::replay(&mut board, moves)?;
        Ok(board.1)
    }

    /// Number of discs on the board.
    #[inline(always)]
    pub const fn moves_played(&self) -> u32 {
        self.moves
    }

    /// The discs of the side to move.
    #[inline(always)]
    pub const fn current(&self) -> Cells {
        self.current
    }

    /// Every disc.
    #[inline(always)]
    pub const fn occupied(&self) -> Cells {
        self.mask
    }

    /// The opponent's discs.
    #[inline(always)]
    pub const fn opponent(&self) -> Cells {
        self.current ^ self.mask
    }

    /// The discs of the player who moved first.
    pub const fn first_player(&self) -> Cells {
        if self.moves.is_multiple_of(2) {
            self.current
        } else {
            self.opponent()
        }
    }

    /// The board drawn as [`crate::Position`] draws it, the columns
    /// labelled in the [notation] (`1`-`9`, then `a`-`g`).
    ///
    /// ```
    /// use score4::wide::{Position, Shape};
    /// let shape = Shape::new(10, 4).unwrap();
    /// let drawn = Position::parse(&shape, "a").unwrap().drawing(&shape).to_string();
    /// assert!(drawn.ends_with(" 8  9  a \n"));
    /// assert!(drawn.contains(".  X]"));
    /// ```
    pub fn drawing<'a>(&'a self, shape: &'a Shape) -> impl fmt::Display + 'a {
        struct Drawing<'a>(&'a Position, &'a Shape);
        impl fmt::Display for Drawing<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let (p, shape) = (self.0, self.1);
                let (x, all) = (p.first_player(), p.mask);
                let at = |col, row| {
                    let cell = shape.cell(col, row);
                    if x & cell != 0 {
                        'X'
                    } else if all & cell != 0 {
                        'O'
                    } else {
                        '.'
                    }
                };
                let label = |col: usize| notation::character(col + 1).unwrap_or('?');
                crate::render::render_grid(f, shape.width(), shape.height(), at, label)
            }
        }
        Drawing(self, shape)
    }

    /// The cell each column's next disc would take, for the columns not full.
    #[inline(always)]
    pub const fn playable(&self, shape: &Shape) -> Cells {
        (self.mask + shape.bottom()) & shape.board()
    }

    /// Whether column `col` (from 0) has room.
    #[inline(always)]
    pub const fn can_play(&self, shape: &Shape, col: usize) -> bool {
        col < shape.width() && self.mask & shape.cell(col, shape.height() - 1) == 0
    }

    /// Drops a disc of the side to move into column `col`, which has room.
    #[inline(always)]
    pub fn play(&mut self, shape: &Shape, col: usize) {
        debug_assert!(self.can_play(shape, col));
        self.play_cell((self.mask + shape.bottom()) & shape.column(col));
    }

    /// Drops a disc of the side to move into `cell`, a playable cell.
    #[inline(always)]
    pub fn play_cell(&mut self, cell: Cells) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// The position after a disc in column `col`.
    #[inline(always)]
    pub fn after(&self, shape: &Shape, col: usize) -> Self {
        let mut p = *self;
        p.play(shape, col);
        p
    }

    /// Whether a disc in column `col`, which has room, makes four.
    #[inline(always)]
    pub fn is_winning_move(&self, shape: &Shape, col: usize) -> bool {
        self.winning_cells(shape) & self.playable(shape) & shape.column(col) != 0
    }

    /// Whether the side to move can make four with its next disc.
    #[inline(always)]
    pub fn can_win_next(&self, shape: &Shape) -> bool {
        self.winning_cells(shape) & self.playable(shape) != 0
    }

    /// The empty cells that would complete four for the side to move.
    #[inline(always)]
    pub fn winning_cells(&self, shape: &Shape) -> Cells {
        shape.winning_cells(self.current) & !self.mask
    }

    /// The empty cells that would complete four for the opponent.
    #[inline(always)]
    pub fn opponent_winning_cells(&self, shape: &Shape) -> Cells {
        shape.winning_cells(self.opponent()) & !self.mask
    }

    /// The playable cells that do not lose at once: none that gives the
    /// opponent a win above it, and only the block if the opponent threatens
    /// one win (nothing if it threatens two). For a side that cannot win
    /// with its next disc.
    #[inline(always)]
    pub fn non_losing_moves(&self, shape: &Shape) -> Cells {
        Self::non_losing_among(self.playable(shape), self.opponent_winning_cells(shape))
    }

    /// The cells of `playable` that do not lose at once to an opponent
    /// whose winning cells are `threats` (see
    /// [`non_losing_moves`](Self::non_losing_moves)).
    #[inline(always)]
    pub fn non_losing_among(playable: Cells, threats: Cells) -> Cells {
        crate::layout::non_losing_among(playable, threats)
    }

    /// Whether every cell is taken.
    #[inline(always)]
    pub const fn is_full(&self, shape: &Shape) -> bool {
        self.moves as usize == shape.cells()
    }

    /// Whether the side that just moved made four.
    pub fn opponent_has_won(&self, shape: &Shape) -> bool {
        shape.has_four(self.opponent())
    }

    /// How the game ended, or `None` while it goes on: the rule of
    /// [`crate::Position::ending`].
    pub fn ending(&self, shape: &Shape) -> Option<Ending> {
        if self.opponent_has_won(shape) {
            Some(Ending::Lost)
        } else if shape.has_four(self.current) {
            Some(Ending::Won)
        } else if self.is_full(shape) {
            Some(Ending::Draw)
        } else {
            None
        }
    }

    /// `Ok` for a position in play, else why it cannot be solved.
    pub fn check_in_play(&self, shape: &Shape) -> Result<(), SolveError> {
        match self.ending(shape) {
            Some(Ending::Lost | Ending::Won) => Err(SolveError::AlreadyWon(self.moves)),
            Some(Ending::Draw) => Err(SolveError::BoardFull),
            None => Ok(()),
        }
    }

    /// A unique key below `2^layout_bits`: `current + mask` marks each
    /// column's top with the bit above it, so both sets come back from it.
    #[inline(always)]
    pub const fn key(&self) -> u128 {
        self.current + self.mask
    }

    /// The position as plain parts, to cross the solver's boundary between
    /// sizes (see `solver::engine`).
    pub(crate) fn to_parts(self) -> crate::solver::Parts {
        (self.current, self.mask, self.moves)
    }

    /// The position [`to_parts`](Self::to_parts) gave.
    pub(crate) fn from_parts((current, mask, moves): crate::solver::Parts) -> Self {
        Position {
            current,
            mask,
            moves,
        }
    }

    /// The key shared with the mirror image: the smaller of the two. As
    /// for the compiled sizes, `current + mask` never carries past a
    /// column's sentinel, so mirroring the key mirrors both sets.
    pub fn canonical_key(&self, shape: &Shape) -> u128 {
        let key = self.key();
        key.min(shape.mirror(key))
    }

    /// The position reflected left to right.
    pub fn mirror(&self, shape: &Shape) -> Self {
        Position {
            current: shape.mirror(self.current),
            mask: shape.mirror(self.mask),
            moves: self.moves,
        }
    }

    /// The position from the discs of the side to move and its opponent,
    /// if no cell is taken twice and every disc rests on another or on the
    /// bottom.
    pub fn from_sides(shape: &Shape, current: Cells, opponent: Cells) -> Option<Self> {
        let mask = current | opponent;
        let well_formed =
            current & opponent == 0 && mask & !shape.board() == 0 && shape.floating(mask) == 0;
        well_formed.then_some(Position {
            current,
            mask,
            moves: mask.count_ones(),
        })
    }
}
