//! Bitboards: one `u64` holds one set of cells.
//!
//! Every module uses the Fhourstones layout. On a `W` x `H` board each column
//! owns `H + 1` consecutive bits: `H` cells from the bottom up, then one
//! sentinel bit that is always zero. On the default 7x6 board:
//!
//! ```text
//!   6 13 20 27 34 41 48   <- sentinel row, never set
//!   5 12 19 26 33 40 47   <- top row
//!   4 11 18 25 32 39 46
//!   3 10 17 24 31 38 45
//!   2  9 16 23 30 37 44
//!   1  8 15 22 29 36 43
//!   0  7 14 21 28 35 42   <- bottom row
//!   1  2  3  4  5  6  7   <- column in move notation (index 0..6 in code)
//! ```
//!
//! Cell `(col, row)`, with row 0 at the bottom, is bit `col * (H + 1) + row`.
//! Because the sentinel bit stays zero, shifting a whole board by 1 (up a
//! column), `H + 1` (right along a row), `H` (down-right) or `H + 2`
//! (up-right) never carries a line of discs from one column into the next:
//! four in a row is four shifts and ANDs, and the cell above the top of a
//! column is the sentinel, so `mask + bottom` finds each column's next free
//! cell without overflowing into its neighbour.

use std::fmt;

use crate::layout;
use std::ops::{
    Add, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr, Sub,
};

/// A set of cells, one bit per cell in the layout drawn in the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The raw bits.
    #[inline(always)]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether no cell is set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether at least one cell is set.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The number of cells set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether every cell of `other` is also in `self`.
    #[inline(always)]
    pub const fn contains(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The lowest set cell alone, or the empty set.
    #[inline(always)]
    pub const fn lowest(self) -> Bitboard {
        Bitboard(self.0 & self.0.wrapping_neg())
    }

    /// Whether more than one cell is set.
    #[inline(always)]
    pub const fn has_several(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The set cells one at a time, lowest bit first.
    #[inline(always)]
    pub fn iter(self) -> Bits {
        Bits(self.0)
    }
}

/// Iterator over the single-cell bitboards of a [`Bitboard`].
#[derive(Clone, Copy, Debug)]
pub struct Bits(u64);

impl Iterator for Bits {
    type Item = Bitboard;

    #[inline(always)]
    fn next(&mut self) -> Option<Bitboard> {
        if self.0 == 0 {
            return None;
        }
        let low = self.0 & self.0.wrapping_neg();
        self.0 ^= low;
        Some(Bitboard(low))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bits {}

impl IntoIterator for Bitboard {
    type Item = Bitboard;
    type IntoIter = Bits;
    fn into_iter(self) -> Bits {
        self.iter()
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#x})", self.0)
    }
}

macro_rules! binary_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

binary_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binary_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binary_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Carrying addition: `mask + bottom` sets each column's lowest empty cell.
impl Add for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn add(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0.wrapping_add(rhs.0))
    }
}

/// Borrowing subtraction, the inverse of [`Add`].
impl Sub for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0.wrapping_sub(rhs.0))
    }
}

impl Shl<u32> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn shl(self, n: u32) -> Bitboard {
        Bitboard(self.0 << n)
    }
}

impl Shr<u32> for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn shr(self, n: u32) -> Bitboard {
        Bitboard(self.0 >> n)
    }
}

/// The shape of a `W` x `H` board and every mask that follows from it.
///
/// All masks are `const`, so code generic over the size compiles to the same
/// instructions as code written for one size.
///
/// ```
/// use score4::bitboard::Geometry;
/// type G = Geometry<7, 6>;
/// assert_eq!(G::BOTTOM.count(), 7);
/// assert_eq!(G::BOARD.count(), 42);
/// assert!(G::has_four(G::cell(0, 0) | G::cell(1, 1) | G::cell(2, 2) | G::cell(3, 3)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Geometry<const W: usize, const H: usize>;

impl<const W: usize, const H: usize> Geometry<W, H> {
    /// Rejects at compile time the sizes whose layout does not fit a `u64`
    /// or whose diagonal shifts would overflow it.
    const VALID: () = assert!(
        W >= 1 && H >= 1 && W * (H + 1) <= 64 && 3 * (H + 2) < 64,
        "board does not fit the 64-bit Fhourstones layout"
    );

    /// Number of columns.
    pub const WIDTH: usize = {
        let () = Self::VALID;
        W
    };
    /// Number of rows.
    pub const HEIGHT: usize = H;
    /// Bits per column: the cells plus the sentinel.
    pub const STRIDE: u32 = (H + 1) as u32;
    /// Number of cells.
    pub const CELLS: u32 = (W * H) as u32;
    /// Bits of the layout: every column's cells plus its sentinel. A
    /// position key (`current + mask`) stays below bit `LAYOUT_BITS`, so the
    /// bits above it are free for other fields.
    pub const LAYOUT_BITS: u32 = (W * (H + 1)) as u32;

    /// The columns from the centre outwards: the middle one (of two, the
    /// right one), then alternately the nearest left and right of those
    /// taken. Central cells lie on the most lines, so their moves tend to be
    /// the best and are worth trying first.
    pub const CENTRE_FIRST: [usize; W] = centre_first::<W>();

    /// The bottom cell of every column.
    pub const BOTTOM: Bitboard = {
        let () = Self::VALID;
        let mut bits = 0u64;
        let mut col = 0;
        while col < W {
            bits |= 1 << (col * (H + 1));
            col += 1;
        }
        Bitboard(bits)
    };

    /// Every cell of the board (no sentinels).
    pub const BOARD: Bitboard = Bitboard(Self::BOTTOM.0 * ((1u64 << H) - 1));

    /// The cell above the top of every column (row `H`): no disc goes
    /// there, so a carry or borrow in one column never reaches the next.
    pub const SENTINELS: Bitboard = Bitboard(Self::BOTTOM.0 << H);

    /// The playable cells after a disc drops into `cell`, one of the
    /// `playable` ones: the cell above it takes its place, if the column
    /// has one.
    #[inline(always)]
    pub const fn playable_after(playable: Bitboard, cell: Bitboard) -> Bitboard {
        Bitboard((playable.0 ^ cell.0) | ((cell.0 << 1) & Self::BOARD.0))
    }

    /// The cells of the even rows (0, 2, ...), then those of the odd rows,
    /// sentinels included: the sentinel row `H` is where a full column's
    /// next disc would go.
    pub const ROW_PARITY: [Bitboard; 2] = {
        let mut even = 0u64;
        let mut row = 0;
        while row <= H {
            if row % 2 == 0 {
                even |= Self::BOTTOM.0 << row;
            }
            row += 1;
        }
        let all = Self::BOTTOM.0 * ((1u64 << (H + 1)) - 1);
        [Bitboard(even), Bitboard(all & !even)]
    };

    /// The cells at least three rows below the sentinel: those a cell
    /// three rows higher in the same column is on the board for.
    pub const BELOW_TOP_THREE: Bitboard =
        Bitboard(Self::BOTTOM.0 * ((1u64 << H.saturating_sub(3)) - 1));

    /// The single cell at `col` (0-based, from the left) and `row` (0 at the bottom).
    #[inline(always)]
    pub const fn cell(col: usize, row: usize) -> Bitboard {
        Bitboard(1 << (col * (H + 1) + row))
    }

    /// All cells of column `col`.
    #[inline(always)]
    pub const fn column(col: usize) -> Bitboard {
        Bitboard(((1u64 << H) - 1) << (col * (H + 1)))
    }

    /// The bottom cell of column `col`.
    #[inline(always)]
    pub const fn bottom_cell(col: usize) -> Bitboard {
        Self::cell(col, 0)
    }

    /// The top cell of column `col`.
    #[inline(always)]
    pub const fn top_cell(col: usize) -> Bitboard {
        Self::cell(col, H - 1)
    }

    /// The column of a single-cell bitboard.
    #[inline(always)]
    pub const fn column_of(cell: Bitboard) -> usize {
        cell.0.trailing_zeros() as usize / (H + 1)
    }

    /// The row (0 at the bottom) of a single-cell bitboard.
    #[inline(always)]
    pub const fn row_of(cell: Bitboard) -> usize {
        cell.0.trailing_zeros() as usize % (H + 1)
    }

    /// The cells of `discs` that rest neither on the bottom row nor on
    /// another disc of `discs`. A set of board cells reached by dropping
    /// discs has none.
    #[inline(always)]
    pub const fn floating(discs: Bitboard) -> Bitboard {
        Bitboard(discs.0 & !((discs.0 << 1) | Self::BOTTOM.0))
    }

    /// Whether `discs` hold four in a row in any direction.
    #[inline(always)]
    pub fn has_four(discs: Bitboard) -> bool {
        layout::has_four(discs, Self::STRIDE)
    }

    /// Every board cell that would complete four in a row for `discs`,
    /// whether or not it is empty (callers mask with the empty cells).
    #[inline(always)]
    pub fn winning_cells(discs: Bitboard) -> Bitboard {
        layout::winning_cells(discs, Self::STRIDE) & Self::BOARD
    }

    /// The board reflected left to right.
    #[inline]
    pub fn mirror(b: Bitboard) -> Bitboard {
        layout::mirror(b, W, Self::STRIDE)
    }
}

/// The 7x6 board everyone plays.
pub type Standard = Geometry<7, 6>;

/// The columns of a board `W` wide, centre first (see
/// [`Geometry::CENTRE_FIRST`]), for code that knows the width alone.
pub const fn centre_first<const W: usize>() -> [usize; W] {
    let mut order = [0; W];
    let mut i = 0;
    while i < W {
        order[i] = centre_first_column(W, i);
        i += 1;
    }
    order
}

/// The `i`-th column of a board `width` wide, centre first: `width / 2`,
/// then alternately one left and one right of it.
pub const fn centre_first_column(width: usize, i: usize) -> usize {
    if i % 2 == 1 {
        width / 2 - i.div_ceil(2)
    } else {
        width / 2 + i / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type G = Standard;

    #[test]
    fn masks_follow_the_layout() {
        assert_eq!(
            G::BOTTOM.bits(),
            0b0000001_0000001_0000001_0000001_0000001_0000001_0000001
        );
        assert_eq!(G::BOARD.count(), 42);
        assert_eq!(G::column(3).bits(), 0b111111 << 21);
        assert_eq!(G::top_cell(6).bits(), 1 << 47);
        for col in 0..7 {
            assert_eq!(G::column(col) & G::BOARD, G::column(col));
            assert!(G::BOTTOM.contains(G::bottom_cell(col)));
            for row in 0..6 {
                let c = G::cell(col, row);
                assert_eq!(G::column_of(c), col);
                assert_eq!(G::row_of(c), row);
            }
        }
        // The sentinel row is exactly what lies in the layout but off the board.
        assert_eq!(G::LAYOUT_BITS, 49);
        let layout = Bitboard((1u64 << G::LAYOUT_BITS) - 1);
        assert_eq!((layout & !G::BOARD).count(), 7);
        assert_eq!(Geometry::<8, 7>::BOARD.count(), 56);
        assert_eq!(Geometry::<8, 7>::BOTTOM.bits() >> 56, 1);
    }

    #[test]
    fn centre_first_orders_columns_by_distance_from_the_centre() {
        assert_eq!(G::CENTRE_FIRST, [3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(Geometry::<6, 5>::CENTRE_FIRST, [3, 2, 4, 1, 5, 0]);
        assert_eq!(Geometry::<1, 4>::CENTRE_FIRST, [0]);
        fn check<const W: usize, const H: usize>() {
            let order = Geometry::<W, H>::CENTRE_FIRST;
            let mut sorted = order;
            sorted.sort_unstable();
            assert!(sorted.iter().copied().eq(0..W), "a permutation: {order:?}");
            // Twice the distance from the board's middle, to stay in integers.
            let distance = |c: usize| (2 * c + 1).abs_diff(W);
            assert!(
                order.windows(2).all(|p| distance(p[0]) <= distance(p[1])),
                "{order:?}"
            );
        }
        check::<2, 4>();
        check::<4, 4>();
        check::<5, 4>();
        check::<8, 7>();
    }

    #[test]
    fn floating_cells_have_a_gap_below() {
        let column = G::cell(2, 0) | G::cell(2, 1) | G::cell(2, 2);
        assert_eq!(G::floating(column), Bitboard::EMPTY);
        assert_eq!(G::floating(G::BOARD), Bitboard::EMPTY);
        assert_eq!(G::floating(column | G::cell(2, 4)), G::cell(2, 4));
        assert_eq!(G::floating(column & !G::cell(2, 0)), G::cell(2, 1));
        // The bottom of the next column is not supported by this column's top.
        let top = G::column(0) | G::cell(1, 1);
        assert_eq!(G::floating(top), G::cell(1, 1));
    }

    #[test]
    fn bits_iterate_lowest_first() {
        let b = G::cell(0, 0) | G::cell(2, 3) | G::cell(6, 5);
        let cells: Vec<Bitboard> = b.iter().collect();
        assert_eq!(cells, vec![G::cell(0, 0), G::cell(2, 3), G::cell(6, 5)]);
        assert_eq!(b.iter().len(), 3);
        assert!(b.has_several());
        assert!(!G::cell(1, 1).has_several());
        assert_eq!(b.lowest(), G::cell(0, 0));
    }

    #[test]
    fn four_in_each_direction() {
        let line = |cells: [(usize, usize); 4]| {
            cells
                .iter()
                .fold(Bitboard::EMPTY, |b, &(c, r)| b | G::cell(c, r))
        };
        assert!(G::has_four(line([(0, 0), (0, 1), (0, 2), (0, 3)])));
        assert!(G::has_four(line([(3, 5), (4, 5), (5, 5), (6, 5)])));
        assert!(G::has_four(line([(0, 5), (1, 4), (2, 3), (3, 2)])));
        assert!(G::has_four(line([(3, 0), (4, 1), (5, 2), (6, 3)])));
        // Three plus one that wraps into the next column is not four.
        assert!(!G::has_four(line([(0, 3), (0, 4), (0, 5), (1, 0)])));
        assert!(!G::has_four(line([(4, 0), (5, 0), (6, 0), (0, 1)])));
    }

    #[test]
    fn winning_cells_complete_lines() {
        let three = G::cell(1, 0) | G::cell(2, 0) | G::cell(3, 0);
        assert_eq!(G::winning_cells(three), G::cell(0, 0) | G::cell(4, 0));
        let gap = G::cell(1, 1) | G::cell(2, 2) | G::cell(4, 4);
        assert_eq!(G::winning_cells(gap), G::cell(3, 3));
        let column = G::cell(5, 2) | G::cell(5, 3) | G::cell(5, 4);
        assert_eq!(G::winning_cells(column), G::cell(5, 5));
        // Three at the top of a column cannot be completed.
        let top = G::cell(5, 3) | G::cell(5, 4) | G::cell(5, 5);
        assert_eq!(G::winning_cells(top), Bitboard::EMPTY);
    }

    #[test]
    fn mirror_reverses_columns() {
        let b = G::cell(0, 0) | G::cell(1, 3) | G::cell(3, 5);
        assert_eq!(G::mirror(b), G::cell(6, 0) | G::cell(5, 3) | G::cell(3, 5));
        assert_eq!(G::mirror(G::mirror(b)), b);
        assert_eq!(G::mirror(G::BOARD), G::BOARD);
    }
}
