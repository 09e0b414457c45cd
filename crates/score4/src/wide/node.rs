//! A position beside its [`Shape`]: the node the search takes on every
//! size held as a shape, in the sets of the layout it is searched in.
//!
//! The layouts (see [`OfShape`]): the shape's own masks in `u128`s, the
//! same masks in `u64`s where the layout fits them ([`Narrow`]), or the
//! masks of a compiled size past 64 bits as constants ([`Geometry128`]).
//! One node serves the three, so that they search the same positions by
//! the same rules and differ only in how a mask is had.

use crate::book::Book;
use crate::layout::{self, CellSet, Discs, Layout, Narrow};
use crate::position::Ending;
use crate::solver::{Key, Node};

use super::compiled::Geometry128;
use super::position::Position;
use super::shape::Shape;

/// A layout that a position of a [`Shape`] is searched in, had from the
/// shape.
pub(crate) trait OfShape<'s>: Layout + Copy {
    fn of(shape: &'s Shape) -> Self;
}

impl<'s> OfShape<'s> for &'s Shape {
    #[inline(always)]
    fn of(shape: &'s Shape) -> Self {
        shape
    }
}

impl<'s> OfShape<'s> for Narrow<'s> {
    #[inline(always)]
    fn of(shape: &'s Shape) -> Self {
        debug_assert!(shape.layout_bits() <= u64::BITS, "{shape}");
        Narrow(shape)
    }
}

impl<'s, const W: usize, const H: usize> OfShape<'s> for Geometry128<W, H> {
    #[inline(always)]
    fn of(shape: &'s Shape) -> Self {
        debug_assert!(shape.width() == W && shape.height() == H, "{shape}");
        Geometry128
    }
}

/// `p` beside `shape`, its masks read from the shape in `u128`s: the node
/// of the analyses that ask the engine window by window (its positions
/// cross to the engine as parts).
pub(crate) fn placed<'s>(shape: &'s Shape, p: &Position) -> Placed<'s, &'s Shape> {
    Placed::new(shape, *p)
}

/// A position beside its shape, in the sets of the layout `L`. The shape
/// is kept for what the engine asks once a call (the ending, the book).
#[derive(Clone, Copy)]
pub(crate) struct Placed<'s, L: Layout> {
    shape: &'s Shape,
    current: L::Cells,
    mask: L::Cells,
    moves: u32,
}

impl<'s, L: OfShape<'s>> Placed<'s, L> {
    /// `p` on `shape`, whose layout fits `L`'s sets.
    pub(crate) fn new(shape: &'s Shape, p: Position) -> Self {
        Placed {
            shape,
            current: L::Cells::from_wide(p.current()),
            mask: L::Cells::from_wide(p.occupied()),
            moves: p.moves_played(),
        }
    }

    /// The position as every size keeps it.
    pub(crate) fn position(&self) -> Position {
        Position::from_parts((self.current.to_wide(), self.mask.to_wide(), self.moves))
    }

    #[inline(always)]
    fn playable(&self) -> L::Cells {
        L::of(self.shape).playable(self.mask)
    }
}

impl<'s, L: OfShape<'s>> Node for Placed<'s, L>
where
    L::Cells: Key,
{
    type Layout = L;
    type Key = L::Cells;

    #[inline(always)]
    fn layout(&self) -> L {
        L::of(self.shape)
    }

    #[inline(always)]
    fn moves_played(&self) -> u32 {
        self.moves
    }

    #[inline(always)]
    fn discs(&self) -> Discs<L::Cells> {
        Discs {
            current: self.current,
            mask: self.mask,
            moves: self.moves,
        }
    }

    #[inline(always)]
    fn winning_cells(&self) -> L::Cells {
        self.layout().winning_cells(self.current) & !self.mask
    }

    #[inline(always)]
    fn opponent_winning_cells(&self) -> L::Cells {
        self.layout().winning_cells(self.current ^ self.mask) & !self.mask
    }

    #[inline(always)]
    fn non_losing_moves_against(&self, threats: L::Cells) -> L::Cells {
        layout::non_losing_among(self.playable(), threats)
    }

    #[inline(always)]
    fn play_cell(&mut self, cell: L::Cells) {
        self.current = self.current ^ self.mask;
        self.mask = self.mask | cell;
        self.moves += 1;
    }

    /// `current + mask`, unique as each column's top is marked by the bit
    /// above it.
    #[inline(always)]
    fn key(&self) -> L::Cells {
        self.current.plus(self.mask)
    }

    /// The smaller of the key and its mirror image's: `current + mask`
    /// never carries past a column's sentinel, so mirroring the key
    /// mirrors both sets.
    #[inline(always)]
    fn canonical_key(&self) -> L::Cells {
        let key = self.key();
        let layout = self.layout();
        let image = layout::mirror(key, layout.width(), layout.stride());
        if image.to_wide() < key.to_wide() {
            image
        } else {
            key
        }
    }

    fn can_win_next(&self) -> bool {
        (self.winning_cells() & self.playable()).any()
    }

    fn is_game_over(&self) -> bool {
        self.ending().is_some()
    }

    // Once a call, not on the search's path: the rules of every size.
    fn ending(&self) -> Option<Ending> {
        self.position().ending(self.shape)
    }

    fn book_score(&self, book: &Book) -> Option<i32> {
        book.score_as_data(self.shape, &self.position())
    }
}
