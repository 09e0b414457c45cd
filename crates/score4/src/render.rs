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
    for row in (0..H).rev() {
        f.write_char('[')?;
        for col in 0..W {
            let cell = Geometry::<W, H>::cell(col, row);
            let ch = if x.contains(cell) {
                'X'
            } else if o.contains(cell) {
                'O'
            } else {
                '.'
            };
            if col > 0 {
                f.write_str("  ")?;
            }
            f.write_char(ch)?;
        }
        f.write_str("]\n")?;
    }
    f.write_str(&"-".repeat(3 * W - 1))?;
    f.write_char('\n')?;
    for col in 0..W {
        write!(f, "{:>2} ", col + first_label)?;
    }
    f.write_char('\n')
}
