//! A board's layout as the search sees it, known when the program is
//! compiled or only when it runs.
//!
//! The compiled sizes have their masks as constants ([`Geometry`] in a
//! `u64`, and the few past 64 bits `wide::compiled`'s `Geometry128` in a
//! `u128`; one compiled search per size); the others have them as data
//! ([`Shape`], in a `u128`, one search for every size, on `u64`s through
//! `Narrow` where the layout fits one). All draw the
//! same Fhourstones layout ([`bitboard`](crate::bitboard)), so every rule
//! of the search (the lines of four, the static bounds, the move order) is
//! written once, over the two traits here: [`CellSet`] for a set of cells
//! and [`Layout`] for the masks of one board.

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

use crate::bitboard::{Bitboard, Geometry};
use crate::score;
use crate::wide::shape::MAX_WIDTH;
use crate::wide::Shape;

/// A set of cells, one bit per cell of the layout: [`Bitboard`] (a `u64`)
/// or a `u128`.
pub trait CellSet:
    Copy
    + Eq
    + Debug
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + 'static
{
    /// No cell.
    const EMPTY: Self;
    /// The first bit of the layout: the bottom cell of the first column.
    const ONE: Self;
    /// Whether at least one cell is set.
    fn any(self) -> bool;
    /// Whether no cell is set.
    fn is_empty(self) -> bool {
        !self.any()
    }
    /// The number of cells set.
    fn count(self) -> u32;
    /// Whether more than one cell is set.
    fn has_several(self) -> bool;
    /// The lowest set cell alone, or the empty set.
    fn lowest(self) -> Self;
    /// The position of the lowest set bit in the layout.
    fn trailing_zeros(self) -> u32;
    /// Carrying addition, the layout's way to find each column's next cell.
    fn plus(self, other: Self) -> Self;
    /// Borrowing subtraction.
    fn minus(self, other: Self) -> Self;
    /// The set as a `u128`, the layout of every size.
    fn to_wide(self) -> u128;
    /// The set of the `u128` `cells`, all of whose bits this type holds.
    fn from_wide(cells: u128) -> Self;
    /// The single-cell sets, lowest bit first.
    fn cells(self) -> Cells<Self> {
        Cells(self)
    }
}

/// The single-cell sets of a [`CellSet`], lowest bit first.
#[derive(Clone, Copy, Debug)]
pub struct Cells<C>(C);

impl<C: CellSet> Iterator for Cells<C> {
    type Item = C;

    #[inline(always)]
    fn next(&mut self) -> Option<C> {
        if self.0.is_empty() {
            return None;
        }
        let low = self.0.lowest();
        self.0 = self.0 ^ low;
        Some(low)
    }
}

impl CellSet for Bitboard {
    const EMPTY: Self = Bitboard::EMPTY;
    const ONE: Self = Bitboard(1);
    #[inline(always)]
    fn any(self) -> bool {
        Bitboard::any(self)
    }
    #[inline(always)]
    fn count(self) -> u32 {
        Bitboard::count(self)
    }
    #[inline(always)]
    fn has_several(self) -> bool {
        Bitboard::has_several(self)
    }
    #[inline(always)]
    fn lowest(self) -> Self {
        Bitboard::lowest(self)
    }
    #[inline(always)]
    fn trailing_zeros(self) -> u32 {
        self.bits().trailing_zeros()
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self + other
    }
    #[inline(always)]
    fn minus(self, other: Self) -> Self {
        self - other
    }
    #[inline(always)]
    fn to_wide(self) -> u128 {
        self.bits().into()
    }
    #[inline(always)]
    fn from_wide(cells: u128) -> Self {
        debug_assert!(u64::try_from(cells).is_ok());
        Bitboard(cells as u64)
    }
}

/// The plain integers as sets of cells: `u128` for boards past 64 bits,
/// `u64` for the others whose size is data (see [`Narrow`]).
macro_rules! integer_cell_set {
    ($int:ty) => {
        impl CellSet for $int {
            const EMPTY: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn any(self) -> bool {
                self != 0
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn has_several(self) -> bool {
                self & self.wrapping_sub(1) != 0
            }
            #[inline(always)]
            fn lowest(self) -> Self {
                self & self.wrapping_neg()
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$int>::trailing_zeros(self)
            }
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn minus(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
            #[inline(always)]
            fn to_wide(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn from_wide(cells: u128) -> Self {
                debug_assert!(<$int>::try_from(cells).is_ok());
                cells as $int
            }
        }
    };
}

integer_cell_set!(u128);
integer_cell_set!(u64);

/// The masks of one board's layout. Every method of [`Geometry`] is a
/// constant of its size; those of [`Shape`] read its fields.
pub trait Layout: Sync {
    /// The sets of cells of this board.
    type Cells: CellSet;
    /// An array with an entry for each column (at least): `[T; W]` for a
    /// compiled size, so that its loops unroll as they did before.
    type PerColumn<T: Copy>: Copy + AsRef<[T]> + AsMut<[T]>;
    /// An array of `fill`, one entry for each column.
    fn per_column<T: Copy>(&self, fill: T) -> Self::PerColumn<T>;
    /// Whether the move order finds every column's threats in one pass
    /// before ranking the moves: the compiler turns that pass into vector
    /// instructions on `u64` sets, where it pays even for the columns
    /// with no move; on `u128` sets it does not, and each move's threats
    /// are found as it is ranked.
    const BATCH_THREATS: bool;
    /// Number of columns.
    fn width(&self) -> usize;
    /// The columns from the centre outwards (see
    /// [`centre_first`](crate::bitboard::centre_first)).
    fn centre_first(&self) -> &[usize];
    /// Number of rows.
    fn height(&self) -> usize;
    /// Number of cells.
    fn cells(&self) -> u32;
    /// Bits per column: the cells plus the sentinel.
    fn stride(&self) -> u32;
    /// The bottom cell of every column.
    fn bottom(&self) -> Self::Cells;
    /// Every cell of the board, no sentinels.
    fn board(&self) -> Self::Cells;
    /// The cell above the top of every column.
    fn sentinels(&self) -> Self::Cells;
    /// The cells of the even rows (`parity` 0) or of the odd ones (1),
    /// sentinels included.
    fn row_parity(&self, parity: usize) -> Self::Cells;
    /// The cells at least three rows below the sentinel: those a cell
    /// three rows higher in the same column is on the board for.
    fn below_top_three(&self) -> Self::Cells;
    /// All cells of column `col`.
    fn column(&self, col: usize) -> Self::Cells;
    /// The column of a single-cell set.
    fn column_of(&self, cell: Self::Cells) -> usize;

    /// Whether `discs` hold four in a row in any direction.
    #[inline(always)]
    fn has_four(&self, discs: Self::Cells) -> bool {
        has_four(discs, self.stride())
    }

    /// Every board cell that would complete four in a row for `discs`,
    /// empty or not (callers mask with the empty cells).
    #[inline(always)]
    fn winning_cells(&self, discs: Self::Cells) -> Self::Cells {
        winning_cells(discs, self.stride()) & self.board()
    }

    /// The next free cell of every column that has one, `mask` being
    /// every disc.
    #[inline(always)]
    fn playable(&self, mask: Self::Cells) -> Self::Cells {
        mask.plus(self.bottom()) & self.board()
    }

    /// The playable cells after a disc drops into `cell`, one of the
    /// `playable` ones: the cell above it takes its place, if the column
    /// has one.
    #[inline(always)]
    fn playable_after(&self, playable: Self::Cells, cell: Self::Cells) -> Self::Cells {
        (playable ^ cell) | ((cell << 1) & self.board())
    }

    /// The score of a win by the disc played as move `moves + 1` (see
    /// [`score`]).
    #[inline(always)]
    fn win_score(&self, moves: i32) -> i32 {
        score::win(self.cells() as usize, moves as u32)
    }
}

/// A layout behind a reference is the same layout: the search keeps a
/// compiled size's layout by value (it has no bytes) and a [`Shape`]'s by
/// reference (it has many).
impl<L: Layout> Layout for &L {
    type Cells = L::Cells;
    type PerColumn<T: Copy> = L::PerColumn<T>;
    const BATCH_THREATS: bool = L::BATCH_THREATS;

    #[inline(always)]
    fn per_column<T: Copy>(&self, fill: T) -> Self::PerColumn<T> {
        (**self).per_column(fill)
    }

    #[inline(always)]
    fn width(&self) -> usize {
        (**self).width()
    }

    #[inline(always)]
    fn centre_first(&self) -> &[usize] {
        (**self).centre_first()
    }

    #[inline(always)]
    fn height(&self) -> usize {
        (**self).height()
    }

    #[inline(always)]
    fn cells(&self) -> u32 {
        (**self).cells()
    }

    #[inline(always)]
    fn stride(&self) -> u32 {
        (**self).stride()
    }

    #[inline(always)]
    fn bottom(&self) -> L::Cells {
        (**self).bottom()
    }

    #[inline(always)]
    fn board(&self) -> L::Cells {
        (**self).board()
    }

    #[inline(always)]
    fn sentinels(&self) -> L::Cells {
        (**self).sentinels()
    }

    #[inline(always)]
    fn row_parity(&self, parity: usize) -> L::Cells {
        (**self).row_parity(parity)
    }

    #[inline(always)]
    fn below_top_three(&self) -> L::Cells {
        (**self).below_top_three()
    }

    #[inline(always)]
    fn column(&self, col: usize) -> L::Cells {
        (**self).column(col)
    }

    #[inline(always)]
    fn column_of(&self, cell: L::Cells) -> usize {
        (**self).column_of(cell)
    }

    #[inline(always)]
    fn has_four(&self, discs: L::Cells) -> bool {
        (**self).has_four(discs)
    }

    #[inline(always)]
    fn winning_cells(&self, discs: L::Cells) -> L::Cells {
        (**self).winning_cells(discs)
    }

    #[inline(always)]
    fn playable_after(&self, playable: L::Cells, cell: L::Cells) -> L::Cells {
        (**self).playable_after(playable, cell)
    }
}

/// Whether `discs` hold four in a row in any direction, on a layout whose
/// columns are `stride` bits apart.
#[inline(always)]
pub fn has_four<C: CellSet>(discs: C, stride: u32) -> bool {
    // Every direction, then one test: stopping at the first four found
    // saves a few instructions but mispredicts often enough in the
    // search's bound tests to cost more than it saves.
    let mut fours = C::EMPTY;
    for s in [1, stride, stride - 1, stride + 1] {
        let pairs = discs & (discs >> s);
        fours = fours | (pairs & (pairs >> (2 * s)));
    }
    fours.any()
}

/// Every cell of the layout, sentinels included, that would complete four
/// in a row for `discs`, on a layout whose columns are `stride` bits apart.
#[inline(always)]
pub fn winning_cells<C: CellSet>(discs: C, stride: u32) -> C {
    let b = discs;
    // Upright, only the cell on top of three can complete a column.
    let mut r = (b << 1) & (b << 2) & (b << 3);
    for s in [stride, stride - 1, stride + 1] {
        // The new cell is the 4th, 3rd, 2nd or 1st of the line.
        let left = (b << s) & (b << (2 * s));
        r = r | (left & (b << (3 * s)));
        r = r | (left & (b >> s));
        let right = (b >> s) & (b >> (2 * s));
        r = r | (right & (b << s));
        r = r | (right & (b >> (3 * s)));
    }
    r
}

/// `cells` reflected left to right, on a layout of `width` columns
/// `stride` bits apart.
#[inline]
pub fn mirror<C: CellSet>(cells: C, width: usize, stride: u32) -> C {
    let column = (C::ONE << stride).minus(C::ONE);
    let mut out = C::EMPTY;
    for col in 0..width {
        let bits = (cells >> (col as u32 * stride)) & column;
        out = out | (bits << ((width - 1 - col) as u32 * stride));
    }
    out
}

/// A position as the layout's sets: the side to move's discs, every disc,
/// and the moves played (as [`Position`](crate::Position) keeps them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Discs<C> {
    /// The side to move's discs.
    pub current: C,
    /// Every disc.
    pub mask: C,
    /// The moves played.
    pub moves: u32,
}

impl<C: CellSet> Discs<C> {
    /// The discs of the side that moved last.
    #[inline(always)]
    pub fn opponent(&self) -> C {
        self.current ^ self.mask
    }
}

/// The cells of `playable` that do not lose at once to an opponent whose
/// winning cells are `threats`: none if two of them are playable, the one
/// if one is, and never the cell right below one.
#[inline(always)]
pub fn non_losing_among<C: CellSet>(playable: C, threats: C) -> C {
    let forced = playable & threats;
    let mut candidates = playable;
    if forced.any() {
        if forced.has_several() {
            return C::EMPTY;
        }
        candidates = forced;
    }
    candidates & !(threats >> 1)
}

impl<const W: usize, const H: usize> Layout for Geometry<W, H> {
    type Cells = Bitboard;
    type PerColumn<T: Copy> = [T; W];
    const BATCH_THREATS: bool = true;
    #[inline(always)]
    fn per_column<T: Copy>(&self, fill: T) -> [T; W] {
        [fill; W]
    }
    #[inline(always)]
    fn width(&self) -> usize {
        W
    }
    #[inline(always)]
    fn centre_first(&self) -> &[usize] {
        &Self::CENTRE_FIRST
    }
    #[inline(always)]
    fn height(&self) -> usize {
        H
    }
    #[inline(always)]
    fn cells(&self) -> u32 {
        Self::CELLS
    }
    #[inline(always)]
    fn stride(&self) -> u32 {
        Self::STRIDE
    }
    #[inline(always)]
    fn bottom(&self) -> Bitboard {
        Self::BOTTOM
    }
    #[inline(always)]
    fn board(&self) -> Bitboard {
        Self::BOARD
    }
    #[inline(always)]
    fn sentinels(&self) -> Bitboard {
        Self::SENTINELS
    }
    #[inline(always)]
    fn row_parity(&self, parity: usize) -> Bitboard {
        Self::ROW_PARITY[parity]
    }
    #[inline(always)]
    fn below_top_three(&self) -> Bitboard {
        Self::BELOW_TOP_THREE
    }
    #[inline(always)]
    fn column(&self, col: usize) -> Bitboard {
        Self::column(col)
    }
    #[inline(always)]
    fn column_of(&self, cell: Bitboard) -> usize {
        Self::column_of(cell)
    }
    #[inline(always)]
    fn has_four(&self, discs: Bitboard) -> bool {
        Self::has_four(discs)
    }
    #[inline(always)]
    fn winning_cells(&self, discs: Bitboard) -> Bitboard {
        Self::winning_cells(discs)
    }
    #[inline(always)]
    fn playable_after(&self, playable: Bitboard, cell: Bitboard) -> Bitboard {
        Self::playable_after(playable, cell)
    }
}

impl Layout for Shape {
    type Cells = u128;
    type PerColumn<T: Copy> = [T; MAX_WIDTH];
    const BATCH_THREATS: bool = false;
    #[inline(always)]
    fn per_column<T: Copy>(&self, fill: T) -> [T; MAX_WIDTH] {
        [fill; MAX_WIDTH]
    }
    #[inline(always)]
    fn width(&self) -> usize {
        Shape::width(self)
    }
    #[inline(always)]
    fn centre_first(&self) -> &[usize] {
        Shape::centre_first(self)
    }
    #[inline(always)]
    fn height(&self) -> usize {
        Shape::height(self)
    }
    #[inline(always)]
    fn cells(&self) -> u32 {
        Shape::cells(self) as u32
    }
    #[inline(always)]
    fn stride(&self) -> u32 {
        Shape::stride(self)
    }
    #[inline(always)]
    fn bottom(&self) -> u128 {
        Shape::bottom(self)
    }
    #[inline(always)]
    fn board(&self) -> u128 {
        Shape::board(self)
    }
    #[inline(always)]
    fn sentinels(&self) -> u128 {
        Shape::sentinels(self)
    }
    #[inline(always)]
    fn row_parity(&self, parity: usize) -> u128 {
        Shape::row_parity(self, parity)
    }
    #[inline(always)]
    fn below_top_three(&self) -> u128 {
        Shape::below_top_three(self)
    }
    #[inline(always)]
    fn column(&self, col: usize) -> u128 {
        Shape::column(self, col)
    }
    #[inline(always)]
    fn column_of(&self, cell: u128) -> usize {
        Shape::column_of(self, cell)
    }
}

/// A board whose size is data and whose layout fits 64 bits: the masks of
/// its [`Shape`] in a `u64`, so that its search runs on the words the
/// compiled sizes run on rather than on `u128`s.
#[derive(Clone, Copy)]
pub(crate) struct Narrow<'s>(pub(crate) &'s Shape);

impl Layout for Narrow<'_> {
    type Cells = u64;
    type PerColumn<T: Copy> = [T; MAX_WIDTH];
    const BATCH_THREATS: bool = true;
    #[inline(always)]
    fn per_column<T: Copy>(&self, fill: T) -> [T; MAX_WIDTH] {
        [fill; MAX_WIDTH]
    }
    #[inline(always)]
    fn width(&self) -> usize {
        self.0.width()
    }
    #[inline(always)]
    fn centre_first(&self) -> &[usize] {
        self.0.centre_first()
    }
    #[inline(always)]
    fn height(&self) -> usize {
        self.0.height()
    }
    #[inline(always)]
    fn cells(&self) -> u32 {
        self.0.cells() as u32
    }
    #[inline(always)]
    fn stride(&self) -> u32 {
        self.0.stride()
    }
    // The masks' high halves are zero on such a board: each is its low
    // half, one load.
    #[inline(always)]
    fn bottom(&self) -> u64 {
        self.0.bottom() as u64
    }
    #[inline(always)]
    fn board(&self) -> u64 {
        self.0.board() as u64
    }
    #[inline(always)]
    fn sentinels(&self) -> u64 {
        self.0.sentinels() as u64
    }
    #[inline(always)]
    fn row_parity(&self, parity: usize) -> u64 {
        self.0.row_parity(parity) as u64
    }
    #[inline(always)]
    fn below_top_three(&self) -> u64 {
        self.0.below_top_three() as u64
    }
    // Shape's formulas in `u64`s: narrowing its `u128` results would
    // shift and count in two registers on the search's path.
    #[inline(always)]
    fn column(&self, col: usize) -> u64 {
        ((1 << self.0.height()) - 1) << (col as u32 * self.0.stride())
    }
    #[inline(always)]
    fn column_of(&self, cell: u64) -> usize {
        self.0.column_of_bit(cell.trailing_zeros())
    }
}
