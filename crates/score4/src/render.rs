//! The board printer shared by [`Position`](crate::Position) and
//! [`Board`](crate::Board): the layout of the Score4 console driver.

use std::fmt;

use crate::bitboard::{Bitboard, Geometry};

/// Draws a board as the Score4 console driver does: top row first, `X` and
/// `O` for the two sides, a rule, and the column numbers underneath counting
/// from `first_label`.
pub fn render<const W: usize, const H: usize>(
    f: &mut impl fmt::Write,
    x: Bitboard,
    o: Bitboard,
    first_label: usize,
) -> fmt::Result {
    let at = |col, row| {
        let cell = Geometry::<W, H>::cell(col, row);
        if x.contains(cell) {
            'X'
        } else if o.contains(cell) {
            'O'
        } else {
            '.'
        }
    };
    render_grid(f, W, H, at, |col| col + first_label)
}

/// [`render`] of a board of any size: `at(col, row)` is the character of a
/// cell (row 0 at the bottom), `label(col)` what is written under column
/// `col`, in two characters.
pub fn render_grid<L: fmt::Display>(
    f: &mut impl fmt::Write,
    width: usize,
    height: usize,
    at: impl Fn(usize, usize) -> char,
    label: impl Fn(usize) -> L,
) -> fmt::Result {
    for row in (0..height).rev() {
        f.write_char('[')?;
        for col in 0..width {
            if col > 0 {
                f.write_str("  ")?;
            }
            f.write_char(at(col, row))?;
        }
        f.write_str("]\n")?;
    }
    f.write_str(&"-".repeat(3 * width - 1))?;
    f.write_char('\n')?;
    for col in 0..width {
        write!(f, "{:>2} ", label(col))?;
    }
    f.write_char('\n')
}
