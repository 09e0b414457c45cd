//! The sizes past 64 bits whose search is compiled: the boards solved
//! here over tens of core-hours, where the search of sizes as data would
//! spend its time shifting `u128`s by amounts read from a [`Shape`].
//!
//! A shift of a `u128` by a constant is two instructions; by an amount
//! known only at run time it is a branch-free sequence of several, as
//! the amount may cross the word boundary. Every line of four is found
//! by such shifts, so a size compiled here has its masks and strides as
//! constants ([`Geometry128`]), as the sizes up to 64 bits have theirs
//! ([`Geometry`](crate::bitboard::Geometry)), over the same `u128` table,
//! node and search: the same positions, keys and journal lines.

use crate::layout::Layout;

use super::shape::{Shape, MAX_LAYOUT_BITS};

/// Calls `f::<W, H>(args...)` on the sizes past 64 bits whose search is
/// compiled, and evaluates `otherwise` on every other size: the one list
/// of them (those up to 64 bits are `with_compiled_size!`'s).
///
/// The library's unit tests and the browser's WebAssembly compile none of
/// them, for the reasons they compile only the standard size of
/// `with_compiled_size!`; the integration tests hold each to the search
/// of sizes as data.
macro_rules! with_compiled_wide_size {
    ($dims:expr, $f:ident ($($arg:expr),*), $otherwise:expr) => {{
        let dims: (usize, usize) = $dims;
        match dims {
            #[cfg(any(test, target_family = "wasm"))]
            _ => $otherwise,
            #[cfg(not(any(test, target_family = "wasm")))]
            rest => match rest {
                (7, 9) => $f::<7, 9>($($arg),*),
                (6, 11) => $f::<6, 11>($($arg),*),
                (6, 12) => $f::<6, 12>($($arg),*),
                (4, 19) => $f::<4, 19>($($arg),*),
                _ => $otherwise,
            },
        }
    }};
}
pub(crate) use with_compiled_wide_size;

/// The masks of the `W` x `H` board, a layout past 64 bits, as
/// constants in `u128`s: those of its [`Shape`], computed when the
/// program is compiled.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Geometry128<const W: usize, const H: usize>;

impl<const W: usize, const H: usize> Geometry128<W, H> {
    /// Rejects at compile time the sizes that fit 64 bits (their compiled
    /// search is on `u64`s) and those whose diagonal shifts would pass
    /// the word.
    const VALID: () = assert!(
        W * (H + 1) > 64 && 3 * (H + 2) < MAX_LAYOUT_BITS,
        "not a board past 64 bits whose lines fit the 128-bit layout"
    );
    const SHAPE: Shape = {
        let () = Self::VALID;
        Shape::any(W, H)
    };
    const CENTRE_FIRST: [usize; W] = crate::bitboard::centre_first::<W>();
    const ROW_PARITY: [u128; 2] = [Self::SHAPE.row_parity(0), Self::SHAPE.row_parity(1)];
    /// Each column's cells, read rather than shifted into place: a `u128`
    /// shifted by an amount known only at run time takes several
    /// instructions, and the search asks for a column at every move it ranks.
    const COLUMNS: [u128; W] = {
        let mut columns = [0; W];
        let mut col = 0;
        while col < W {
            columns[col] = Self::SHAPE.column(col);
            col += 1;
        }
        columns
    };
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
        Self::SHAPE.stride()
    }
    #[inline(always)]
    fn bottom(&self) -> u128 {
        const { Self::SHAPE.bottom() }
    }
    #[inline(always)]
    fn board(&self) -> u128 {
        const { Self::SHAPE.board() }
    }
    #[inline(always)]
    fn sentinels(&self) -> u128 {
        const { Self::SHAPE.sentinels() }
    }
    #[inline(always)]
    fn row_parity(&self, parity: usize) -> u128 {
        Self::ROW_PARITY[parity]
    }
    #[inline(always)]
    fn below_top_three(&self) -> u128 {
        const { Self::SHAPE.below_top_three() }
    }
    #[inline(always)]
    fn column(&self, col: usize) -> u128 {
        Self::COLUMNS[col]
    }
    #[inline(always)]
    fn column_of(&self, cell: u128) -> usize {
        Self::SHAPE.column_of(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mask of a compiled size past 64 bits is its shape's, the
    /// search of sizes as data's.
    #[test]
    fn masks_are_the_shapes() {
        fn check<const W: usize, const H: usize>() {
            let g = Geometry128::<W, H>;
            let shape = Shape::any(W, H);
            assert_eq!(g.centre_first(), shape.centre_first());
            assert_eq!((g.width(), g.height()), (shape.width(), shape.height()));
            assert_eq!(
                (g.cells(), g.stride()),
                (Layout::cells(&shape), shape.stride())
            );
            assert_eq!(g.bottom(), shape.bottom());
            assert_eq!(g.board(), shape.board());
            assert_eq!(g.sentinels(), shape.sentinels());
            assert_eq!(g.row_parity(0), shape.row_parity(0));
            assert_eq!(g.row_parity(1), shape.row_parity(1));
            assert_eq!(g.below_top_three(), shape.below_top_three());
            for col in 0..W {
                assert_eq!(g.column(col), shape.column(col));
                for row in 0..=H {
                    let cell = shape.cell(col, row);
                    assert_eq!(g.column_of(cell), col, "{shape} {col} {row}");
                }
            }
        }
        check::<7, 9>();
        check::<6, 11>();
        check::<6, 12>();
        check::<4, 19>();
        check::<16, 7>();
    }
}
