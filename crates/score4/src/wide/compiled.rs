//! The sizes past 64 bits whose search is compiled: the boards solved
//! here over tens of core-hours, where the search of sizes as data would
//! spend its time shifting `u128`s by amounts read from a [`Shape`].
//!
//! A shift of a `u128` by a constant is two instructions; by an amount
//! known only at run time it is a branch-free sequence of several, as
//! the amount may cross the word boundary. Every line of four is found
//! by such shifts, so a size compiled here has its masks and strides as
//! constants ([`Geometry128`]), as the sizes up to 64 bits have theirs
//! ([`Geometry`](crate::bitboard::Geometry)), over the same `u128` table
//! and the same search: the same positions, keys and journal lines.

use crate::book::Book;
use crate::layout::{self, CellSet, Discs, Layout};
use crate::position::Ending;
use crate::solver::Node;

use super::position::Position;
use super::shape::{Shape, MAX_LAYOUT_BITS, MAX_WIDTH};

/// Calls `f::<W, H>(args...)` on the sizes past 64 bits whose search is
/// compiled, and evaluates `otherwise` on every other size: the one list
/// of them.
///
/// As for the compiled sizes up to 64 bits (`with_compiled_size!`), the
/// library's unit tests and the browser's WebAssembly compile none: the
/// integration tests check each against the search of sizes as data.
macro_rules! with_compiled_wide_size {
    ($dims:expr, $f:ident ($($arg:expr),*), $otherwise:expr) => {{
        let dims: (usize, usize) = $dims;
        match dims {
            #[cfg(not(any(test, target_family = "wasm")))]
            (7, 9) => $f::<7, 9>($($arg),*),
            #[cfg(not(any(test, target_family = "wasm")))]
            (6, 11) => $f::<6, 11>($($arg),*),
            #[cfg(not(any(test, target_family = "wasm")))]
            (6, 12) => $f::<6, 12>($($arg),*),
            #[cfg(not(any(test, target_family = "wasm")))]
            (4, 19) => $f::<4, 19>($($arg),*),
            _ => $otherwise,
        }
    }};
}
pub(crate) use with_compiled_wide_size;

/// The masks of the `W` x `H` board, a layout past 64 bits, as
/// constants in a `u128`: what [`Shape`] holds as data, derived the same
/// way.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Geometry128<const W: usize, const H: usize>;

impl<const W: usize, const H: usize> Geometry128<W, H> {
    /// Rejects at compile time the sizes a [`Shape`] does not take, and
    /// those whose diagonal shifts would pass the word.
    const VALID: () = assert!(
        W >= 1
            && W <= MAX_WIDTH
            && H >= 1
            && W * (H + 1) <= MAX_LAYOUT_BITS
            && 3 * (H + 2) < MAX_LAYOUT_BITS,
        "board does not fit the 128-bit Fhourstones layout"
    );
    const STRIDE: u32 = (H + 1) as u32;
    const CENTRE_FIRST: [usize; W] = crate::bitboard::centre_first::<W>();
    const BOTTOM: u128 = {
        let () = Self::VALID;
        let mut bits = 0u128;
        let mut col = 0;
        while col < W {
            bits |= 1 << (col * (H + 1));
            col += 1;
        }
        bits
    };
    const BOARD: u128 = Self::BOTTOM * ((1u128 << H) - 1);
    const ROW_PARITY: [u128; 2] = {
        let mut rows = [0u128; 2];
        let mut row = 0;
        while row <= H {
            rows[row % 2] |= Self::BOTTOM << row;
            row += 1;
        }
        rows
    };
    const BELOW_TOP_THREE: u128 = Self::BOTTOM * ((1u128 << H.saturating_sub(3)) - 1);
}

impl<const W: usize, const H: usize> Layout for Geometry128<W, H> {
    type Cells = u128;
    type PerColumn<T: Copy> = [T; W];
    // As on every `u128` layout (see `Layout::BATCH_THREATS`).
    const BATCH_THREATS: bool = false;
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
        (W * H) as u32
    }
    #[inline(always)]
    fn stride(&self) -> u32 {
        Self::STRIDE
    }
    #[inline(always)]
    fn bottom(&self) -> u128 {
        Self::BOTTOM
    }
    #[inline(always)]
    fn board(&self) -> u128 {
        Self::BOARD
    }
    #[inline(always)]
    fn sentinels(&self) -> u128 {
        Self::BOTTOM << H
    }
    #[inline(always)]
    fn row_parity(&self, parity: usize) -> u128 {
        Self::ROW_PARITY[parity]
    }
    #[inline(always)]
    fn below_top_three(&self) -> u128 {
        Self::BELOW_TOP_THREE
    }
    #[inline(always)]
    fn column(&self, col: usize) -> u128 {
        ((1u128 << H) - 1) << (col as u32 * Self::STRIDE)
    }
    #[inline(always)]
    fn column_of(&self, cell: u128) -> usize {
        (cell.trailing_zeros() / Self::STRIDE) as usize
    }
}

/// A position of the compiled `W` x `H` board past 64 bits: the node of
/// [`Placed`](super::search::Placed) with constant masks. The shape is
/// kept for what the engine asks once a call (the ending, the book).
#[derive(Clone, Copy)]
pub(crate) struct PlacedWide<'s, const W: usize, const H: usize> {
    shape: &'s Shape,
    current: u128,
    mask: u128,
    moves: u32,
}

impl<'s, const W: usize, const H: usize> PlacedWide<'s, W, H> {
    /// `p` on `shape`, which is `W` x `H`.
    pub(crate) fn new(shape: &'s Shape, p: Position) -> Self {
        debug_assert!(shape.width() == W && shape.height() == H, "{shape}");
        let (current, mask, moves) = p.to_parts();
        PlacedWide {
            shape,
            current,
            mask,
            moves,
        }
    }

    #[inline(always)]
    fn playable(&self) -> u128 {
        Geometry128::<W, H>.playable(self.mask)
    }

    /// The same position as every other size keeps it.
    fn wide(&self) -> Position {
        Position::from_parts((self.current, self.mask, self.moves))
    }
}

impl<'s, const W: usize, const H: usize> Node for PlacedWide<'s, W, H> {
    type Layout = Geometry128<W, H>;
    type Key = u128;

    #[inline(always)]
    fn layout(&self) -> Geometry128<W, H> {
        Geometry128
    }

    #[inline(always)]
    fn moves_played(&self) -> u32 {
        self.moves
    }

    #[inline(always)]
    fn discs(&self) -> Discs<u128> {
        Discs {
            current: self.current,
            mask: self.mask,
            moves: self.moves,
        }
    }

    #[inline(always)]
    fn winning_cells(&self) -> u128 {
        Geometry128::<W, H>.winning_cells(self.current) & !self.mask
    }

    #[inline(always)]
    fn opponent_winning_cells(&self) -> u128 {
        Geometry128::<W, H>.winning_cells(self.current ^ self.mask) & !self.mask
    }

    #[inline(always)]
    fn non_losing_moves_against(&self, threats: u128) -> u128 {
        layout::non_losing_among(self.playable(), threats)
    }

    #[inline(always)]
    fn play_cell(&mut self, cell: u128) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    #[inline(always)]
    fn key(&self) -> u128 {
        self.current + self.mask
    }

    #[inline(always)]
    fn canonical_key(&self) -> u128 {
        let key = self.key();
        key.min(layout::mirror(key, W, Geometry128::<W, H>::STRIDE))
    }

    fn can_win_next(&self) -> bool {
        (self.winning_cells() & self.playable()).any()
    }

    fn is_game_over(&self) -> bool {
        self.ending().is_some()
    }

    // Once a call, not on the search's path: the rules of every size.
    fn ending(&self) -> Option<Ending> {
        self.wide().ending(self.shape)
    }

    fn book_score(&self, book: &Book) -> Option<i32> {
        book.score_as_data(self.shape, &self.wide())
    }
}
