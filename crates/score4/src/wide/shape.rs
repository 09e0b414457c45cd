//! A board's shape as data: its width, height and every mask of its
//! layout, computed once when the size is chosen.
//!
//! The layout is the Fhourstones layout of [`bitboard`](crate::bitboard)
//! (each column `height + 1` bits, cells from the bottom up, then a
//! sentinel that stays zero), in a `u128`: up to 128 bits, where a
//! [`Position<W, H>`](crate::Position) stops at 64.

use std::fmt;
use std::str::FromStr;

use crate::size::{SizeError, MIN_HEIGHT, MIN_WIDTH};

/// A set of cells of a board up to 128 bits, one bit per cell of the layout.
pub type Cells = u128;

/// Most columns: a column is written as one character, `1` to `9` then
/// `a` to `g` (see [`notation`](super::notation)), and a table entry names
/// a column in 5 bits.
pub const MAX_WIDTH: usize = 16;
/// Most bits of the layout: one `u128`.
pub const MAX_LAYOUT_BITS: usize = 128;

/// The fixed point of [`Shape::column_of_bit`]'s reciprocal.
const COLUMN_SHIFT: u32 = 16;

/// The shape of a board of any size up to [`MAX_LAYOUT_BITS`], with the
/// masks its positions and search need.
///
/// ```
/// use score4::wide::Shape;
/// let shape: Shape = "10x6".parse().unwrap();
/// assert_eq!(shape.cells(), 60);
/// assert_eq!(shape.layout_bits(), 70);
/// assert_eq!(shape.centre_first()[0], 5);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    width: usize,
    height: usize,
    /// Bits per column: the cells plus the sentinel.
    stride: u32,
    /// `2^16 / stride` rounded up: a bit's index times this, shifted down
    /// 16 bits, is its column. The search finds a column for every move
    /// it makes, and a division by a stride known only at run time takes
    /// tens of cycles where this multiplication takes three.
    column_reciprocal: u32,
    /// The bottom cell of every column.
    bottom: Cells,
    /// Every cell of the board, no sentinels.
    board: Cells,
    /// The cells of the even rows, then of the odd rows, sentinels
    /// included (see [`Layout::row_parity`](crate::layout::Layout::row_parity)).
    row_parity: [Cells; 2],
    /// See [`Layout::below_top_three`](crate::layout::Layout::below_top_three).
    below_top_three: Cells,
    /// The columns from the centre outwards (see
    /// [`centre_first`](crate::bitboard::centre_first)); the first `width`
    /// are used.
    order: [usize; MAX_WIDTH],
}

impl Shape {
    /// The shape `width` x `height`, for any board that a line of four can
    /// fit on, up to [`MAX_WIDTH`] columns and [`MAX_LAYOUT_BITS`] bits.
    pub fn new(width: usize, height: usize) -> Result<Shape, SizeError> {
        if !Self::supports(width, height) {
            return Err(SizeError::Unsupported { width, height });
        }
        Ok(Self::any(width, height))
    }

    /// The standard 7x6 board.
    pub fn standard() -> Shape {
        Self::any(7, 6)
    }

    /// Whether [`new`](Self::new) accepts `width` x `height`.
    pub const fn supports(width: usize, height: usize) -> bool {
        width >= MIN_WIDTH
            && width <= MAX_WIDTH
            && height >= MIN_HEIGHT
            && height < MAX_LAYOUT_BITS
            && width * (height + 1) <= MAX_LAYOUT_BITS
    }

    /// Whether this size's search is compiled for it (the standard board,
    /// its neighbours and the sizes of long solves); the others run the
    /// search as data, with the same answers and positions, in more time
    /// a position (docs/solver.md).
    ///
    /// ```
    /// use score4::wide::Shape;
    /// assert!(Shape::standard().is_compiled());
    /// assert!(!"16x7".parse::<Shape>().unwrap().is_compiled());
    /// ```
    pub fn is_compiled(&self) -> bool {
        crate::solver::engine::is_compiled(self.width, self.height)
    }

    /// Every size [`new`](Self::new) accepts, by width then height.
    pub fn all() -> impl Iterator<Item = Shape> {
        (MIN_WIDTH..=MAX_WIDTH).flat_map(|width| {
            (MIN_HEIGHT..)
                .take_while(move |&height| Self::supports(width, height))
                .map(move |height| Self::any(width, height))
        })
    }

    /// Any shape that fits the layout, small ones included (tests compare
    /// whole small boards with slow models).
    ///
    /// # Panics
    ///
    /// If the board is empty, wider than [`MAX_WIDTH`] or its layout does
    /// not fit [`MAX_LAYOUT_BITS`].
    pub const fn any(width: usize, height: usize) -> Shape {
        // A constant function (the compiled sizes past 64 bits take their
        // masks from it), so loops rather than iterators, and a message
        // without the size.
        assert!(
            width >= 1
                && width <= MAX_WIDTH
                && height >= 1
                && width * (height + 1) <= MAX_LAYOUT_BITS,
            "the board does not fit the 128-bit layout"
        );
        let stride = height as u32 + 1;
        let mut bottom: Cells = 0;
        let mut order = [0usize; MAX_WIDTH];
        let mut col = 0;
        while col < width {
            bottom |= 1 << (col as u32 * stride);
            order[col] = crate::bitboard::centre_first_column(width, col);
            col += 1;
        }
        let mut row_parity: [Cells; 2] = [0; 2];
        let mut row = 0;
        while row <= height {
            row_parity[row % 2] |= bottom << row;
            row += 1;
        }
        Shape {
            width,
            height,
            stride,
            column_reciprocal: (1u32 << COLUMN_SHIFT).div_ceil(stride),
            bottom,
            board: bottom * ((1 << height) - 1),
            row_parity,
            below_top_three: bottom * ((1 << height.saturating_sub(3)) - 1),
            order,
        }
    }

    /// Number of columns.
    pub const fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub const fn height(&self) -> usize {
        self.height
    }

    /// Number of cells.
    pub const fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Bits of the layout: a position's key stays below `2^layout_bits`.
    pub const fn layout_bits(&self) -> u32 {
        self.width as u32 * self.stride
    }

    /// The bottom cell of every column.
    #[inline(always)]
    pub const fn bottom(&self) -> Cells {
        self.bottom
    }

    /// Every cell of the board.
    #[inline(always)]
    pub const fn board(&self) -> Cells {
        self.board
    }

    /// See [`Layout::row_parity`](crate::layout::Layout::row_parity).
    #[inline(always)]
    pub const fn row_parity(&self, parity: usize) -> Cells {
        self.row_parity[parity]
    }

    /// See [`Layout::below_top_three`](crate::layout::Layout::below_top_three).
    #[inline(always)]
    pub const fn below_top_three(&self) -> Cells {
        self.below_top_three
    }

    /// The cell above the top of every column, never set.
    #[inline(always)]
    pub const fn sentinels(&self) -> Cells {
        self.bottom << self.height
    }

    /// Bits per column: the cells and the sentinel.
    #[inline(always)]
    pub const fn stride(&self) -> u32 {
        self.stride
    }

    /// The columns from the centre outwards.
    #[inline(always)]
    pub fn centre_first(&self) -> &[usize] {
        &self.order[..self.width]
    }

    /// The single cell at `col` (from 0 at the left) and `row` (0 at the bottom).
    #[inline(always)]
    pub const fn cell(&self, col: usize, row: usize) -> Cells {
        1 << (col as u32 * self.stride + row as u32)
    }

    /// Every cell of column `col`.
    #[inline(always)]
    pub const fn column(&self, col: usize) -> Cells {
        ((1 << self.height) - 1) << (col as u32 * self.stride)
    }

    /// The column of a single-cell set.
    #[inline(always)]
    pub const fn column_of(&self, cell: Cells) -> usize {
        self.column_of_bit(cell.trailing_zeros())
    }

    /// The column of the cell at bit `bit` of the layout: `bit / stride`
    /// without dividing. Exact for every bit of the layout, as the
    /// rounding error stays below `bit / 2^16`, far below `1 / stride`.
    #[inline(always)]
    pub const fn column_of_bit(&self, bit: u32) -> usize {
        ((bit * self.column_reciprocal) >> COLUMN_SHIFT) as usize
    }

    /// The playable cells after a disc drops into `cell`, one of the
    /// `playable` ones: the cell above takes its place, if the column has one.
    #[inline(always)]
    pub const fn playable_after(&self, playable: Cells, cell: Cells) -> Cells {
        (playable ^ cell) | ((cell << 1) & self.board)
    }

    /// The cells of `discs` that rest neither on the bottom row nor on
    /// another of `discs`.
    #[inline(always)]
    pub const fn floating(&self, discs: Cells) -> Cells {
        discs & !((discs << 1) | self.bottom)
    }

    /// The board reflected left to right.
    pub fn mirror(&self, b: Cells) -> Cells {
        crate::layout::mirror(b, self.width, self.stride)
    }
}

impl FromStr for Shape {
    type Err = SizeError;
    /// `WxH`, as [`BoardSize`](crate::BoardSize) reads it.
    fn from_str(text: &str) -> Result<Shape, SizeError> {
        let (width, height) = crate::size::parse_dimensions(text)?;
        Shape::new(width, height)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Geometry;
    use crate::layout::Layout;

    /// The masks of a shape equal the compiled geometry's where both exist.
    fn same_as_compiled<const W: usize, const H: usize>() {
        let s = Shape::any(W, H);
        type G<const W: usize, const H: usize> = Geometry<W, H>;
        assert_eq!(s.bottom(), G::<W, H>::BOTTOM.bits() as Cells);
        assert_eq!(s.board(), G::<W, H>::BOARD.bits() as Cells);
        assert_eq!(s.layout_bits(), G::<W, H>::LAYOUT_BITS);
        for parity in 0..2 {
            let rows = G::<W, H>::ROW_PARITY[parity].bits() as Cells;
            assert_eq!(s.row_parity(parity), rows);
        }
        assert_eq!(
            s.below_top_three(),
            G::<W, H>::BELOW_TOP_THREE.bits() as Cells
        );
        assert_eq!(s.sentinels(), G::<W, H>::SENTINELS.bits() as Cells);
        let order = s.centre_first().to_vec();
        assert_eq!(order, G::<W, H>::CENTRE_FIRST.to_vec());
        for col in 0..W {
            assert_eq!(s.column(col), G::<W, H>::column(col).bits() as Cells);
        }
        // Every set of a few cells: fours and winning cells as compiled.
        let mut rng = crate::rng::Rng::new(W as u64 * 100 + H as u64);
        for _ in 0..2000 {
            let discs = rng.next_u64() & rng.next_u64() & G::<W, H>::BOARD.bits();
            let b = crate::Bitboard(discs);
            assert_eq!(s.has_four(discs as Cells), G::<W, H>::has_four(b));
            assert_eq!(
                s.winning_cells(discs as Cells),
                G::<W, H>::winning_cells(b).bits() as Cells
            );
            assert_eq!(
                s.mirror(discs as Cells),
                G::<W, H>::mirror(b).bits() as Cells
            );
        }
    }

    #[test]
    fn masks_equal_the_compiled_ones() {
        same_as_compiled::<7, 6>();
        same_as_compiled::<4, 4>();
        same_as_compiled::<9, 6>();
        same_as_compiled::<4, 15>();
        same_as_compiled::<8, 7>();
    }

    #[test]
    fn limits() {
        assert!(Shape::new(16, 7).is_ok());
        assert_eq!(Shape::new(16, 7).unwrap().layout_bits(), 128);
        assert!(Shape::new(4, 31).is_ok());
        assert!(Shape::new(17, 4).is_err());
        assert!(Shape::new(4, 32).is_err());
        assert!(Shape::new(3, 6).is_err());
        assert!(Shape::new(10, 3).is_err());
        assert_eq!(
            "12x4".parse::<Shape>().map(|s| s.to_string()),
            Ok("12x4".into())
        );
        assert!("12x".parse::<Shape>().is_err());
    }

    #[test]
    fn every_bit_has_the_column_that_division_gives() {
        // Every layout the shapes can have, small ones included, and the
        // search's narrow layout, which shares the reciprocal.
        for width in 1..=MAX_WIDTH {
            for height in (1..).take_while(|h| width * (h + 1) <= MAX_LAYOUT_BITS) {
                let s = Shape::any(width, height);
                for bit in 0..s.layout_bits() {
                    let col = (bit / s.stride()) as usize;
                    assert_eq!(s.column_of_bit(bit), col, "{width}x{height} bit {bit}");
                    assert_eq!(s.column_of(1 << bit), col);
                    if bit < 64 {
                        let narrow = crate::layout::Narrow(&s);
                        assert_eq!(narrow.column_of(1u64 << bit), col);
                    }
                }
            }
        }
    }

    #[test]
    fn lines_across_the_top_bits() {
        // 16x7 fills all 128 bits: a line in the last column and along the
        // top row of the last four columns.
        let s = Shape::any(16, 7);
        let upright: Cells = (3..7).fold(0, |b, r| b | s.cell(15, r));
        assert!(s.has_four(upright));
        let row: Cells = (12..16).fold(0, |b, c| b | s.cell(c, 6));
        assert!(s.has_four(row));
        let diagonal: Cells = (0..4).fold(0, |b, i| b | s.cell(12 + i, 3 + i));
        assert!(s.has_four(diagonal));
        let three = row & !s.cell(15, 6);
        assert_eq!(s.winning_cells(three), s.cell(15, 6) | s.cell(11, 6));
        // Wrapping from the top of one column into the next is no line.
        let wrap = s.cell(14, 4) | s.cell(14, 5) | s.cell(14, 6) | s.cell(15, 0);
        assert!(!s.has_four(wrap));
    }
}
