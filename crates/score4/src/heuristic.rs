//! The classic Score4 engine's static evaluation, on bitboards.
//!
//! The original scores a board by summing each of the 69 four-cell windows
//! (+1 per orange disc, -1 per yellow disc) and weighting the sums: a sum of
//! `k` counts `k`, except that `±3` counts `±5` and any `±4` decides the game.
//! Looping over windows is slow, so this module splits that sum in two parts
//! that bitboards compute directly:
//!
//! * Summing the raw window sums counts every disc once per window through
//!   its cell, so it equals the *material*: each cell's window count times
//!   (+1 orange, -1 yellow). Cell weights are split into binary digit planes
//!   so the material is four masked popcounts per side.
//! * The `±3` windows add the extra `±2` each. With four cells of values in
//!   {-1, 0, +1}, a sum of 3 can only be three own discs and one empty cell,
//!   so the correction is `2 * (open_threes(orange) - open_threes(yellow))`,
//!   where an "open three" is such a window. They are found per direction
//!   with shifts and ANDs; the always-empty sentinel bits (and the bits above
//!   the board) are neither discs nor empty cells, so a window that would
//!   wrap off the board never matches.
//!
//! The evaluation is antisymmetric (swapping the colours negates it), so the
//! search can score from the side to move's point of view with
//! [`evaluate`]`(mine, theirs)`.

use crate::bitboard::{Bitboard, Standard};

type G = Standard;

/// The score of a board where orange has four in a row (yellow's is the
/// negation). The search compares against this exact value to spot
/// immediate wins, as the original does.
pub const WIN: i32 = 1_000_000;

/// The layout bit of cell `(col, row)`, row 0 at the bottom.
const fn cell_bit(col: usize, row: usize) -> usize {
    G::cell(col, row).bits().trailing_zeros() as usize
}

/// How many of the 69 windows pass through each bit of the layout (zero for
/// sentinels and bits above the board).
const WINDOW_COUNTS: [u8; 64] = {
    let (width, height) = (G::WIDTH as isize, G::HEIGHT as isize);
    let mut counts = [0u8; 64];
    // (dcol, drow) for horizontal, vertical and both diagonals.
    let dirs: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
    let mut d = 0;
    while d < 4 {
        let (dc, dr) = dirs[d];
        let mut col = 0isize;
        while col < width {
            let mut row = 0isize;
            while row < height {
                let (end_c, end_r) = (col + 3 * dc, row + 3 * dr);
                if end_c >= 0 && end_c < width && end_r >= 0 && end_r < height {
                    let mut i = 0;
                    while i < 4 {
                        let bit = cell_bit((col + i * dc) as usize, (row + i * dr) as usize);
                        counts[bit] += 1;
                        i += 1;
                    }
                }
                row += 1;
            }
            col += 1;
        }
        d += 1;
    }
    counts
};

/// How many binary digits a window count needs: the material is one masked
/// popcount per digit.
const PLANE_COUNT: usize = 4;

const _: () = {
    let mut bit = 0;
    while bit < 64 {
        assert!(
            WINDOW_COUNTS[bit] >> PLANE_COUNT == 0,
            "a window count needs more planes"
        );
        bit += 1;
    }
};

/// Bit `k` of every cell's window count, as masks: the material of a set of
/// discs is then `sum(popcount(discs & PLANE[k]) << k)`.
const PLANES: [u64; PLANE_COUNT] = {
    let mut planes = [0u64; PLANE_COUNT];
    let mut bit = 0;
    while bit < 64 {
        let mut k = 0;
        while k < PLANE_COUNT {
            if (WINDOW_COUNTS[bit] >> k) & 1 == 1 {
                planes[k] |= 1 << bit;
            }
            k += 1;
        }
        bit += 1;
    }
    planes
};

/// How many windows pass through a single cell: the material a disc there
/// is worth. Lets the search update the material incrementally.
#[inline(always)]
pub fn cell_weight(cell: Bitboard) -> i32 {
    WINDOW_COUNTS[cell.bits().trailing_zeros() as usize & 63] as i32
}

/// The number of windows through each cell of `discs`, summed.
#[inline(always)]
pub fn material(discs: Bitboard) -> i32 {
    let b = discs.bits();
    let mut total = 0;
    for (k, plane) in PLANES.iter().enumerate() {
        total += (b & plane).count_ones() << k;
    }
    total as i32
}

/// The windows holding three of `discs` and one cell of `empty`, which must
/// contain only board cells (never sentinels).
#[inline(always)]
pub fn open_threes(discs: Bitboard, empty: Bitboard) -> u32 {
    let (m, e) = (discs.bits(), empty.bits());
    let mut total = 0;
    // Vertical, horizontal, down-right and up-right strides of the layout.
    for s in [1, G::STRIDE, G::STRIDE - 1, G::STRIDE + 1] {
        let (m1, m2, m3) = (m >> s, m >> (2 * s), m >> (3 * s));
        let (e1, e2, e3) = (e >> s, e >> (2 * s), e >> (3 * s));
        let inner = m1 & m2;
        let outer = m & m3;
        // The four cases (which cell is the empty one) exclude each other.
        let hits = (e & inner & m3) | (outer & e1 & m2) | (outer & m1 & e2) | (m & inner & e3);
        total += hits.count_ones();
    }
    total
}

/// The heuristic score of a board where neither side has four in a row,
/// from the point of view of the side owning `mine`.
#[inline(always)]
pub fn evaluate(mine: Bitboard, theirs: Bitboard) -> i32 {
    let empty = G::BOARD & !(mine | theirs);
    material(mine) - material(theirs)
        + 2 * (open_threes(mine, empty) as i32 - open_threes(theirs, empty) as i32)
}

/// The original's `ScoreBoard` from orange's point of view: `-WIN` if yellow
/// has four in a row (checked first), `WIN` if orange has, else the
/// heuristic.
pub fn score(orange: Bitboard, yellow: Bitboard) -> i32 {
    if G::has_four(yellow) {
        -WIN
    } else if G::has_four(orange) {
        WIN
    } else {
        evaluate(orange, yellow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_counts_match_the_known_table() {
        // Top row first, as the board is usually drawn.
        let table = [
            [3, 4, 5, 7, 5, 4, 3],
            [4, 6, 8, 10, 8, 6, 4],
            [5, 8, 11, 13, 11, 8, 5],
            [5, 8, 11, 13, 11, 8, 5],
            [4, 6, 8, 10, 8, 6, 4],
            [3, 4, 5, 7, 5, 4, 3],
        ];
        for (i, line) in table.iter().enumerate() {
            for (col, &n) in line.iter().enumerate() {
                let cell = G::cell(col, 5 - i);
                assert_eq!(cell_weight(cell), n, "col {col} row {}", 5 - i);
                assert_eq!(material(cell), n);
            }
        }
        assert_eq!(material(G::BOARD), 69 * 4);
        assert_eq!(material(!G::BOARD), 0);
    }

    #[test]
    fn open_threes_need_three_discs_and_an_empty_cell() {
        let three = G::cell(0, 0) | G::cell(1, 0) | G::cell(2, 0);
        let empty = G::BOARD & !three;
        // (0..3, row 0) with (3,0) empty; vertical and diagonal windows
        // need more discs.
        assert_eq!(open_threes(three, empty), 1);
        assert_eq!(open_threes(three, empty & !G::cell(3, 0)), 0);
        // Three at the top of a column: the cell above is a sentinel.
        let top = G::cell(4, 3) | G::cell(4, 4) | G::cell(4, 5);
        assert_eq!(open_threes(top, G::BOARD & !top), 1, "(4,2) below is empty");
        assert_eq!(open_threes(top, G::BOARD & !top & !G::cell(4, 2)), 0);
        // Three that wrap from one column's top into the next column's
        // bottom are not a window.
        let wrap = G::cell(0, 4) | G::cell(0, 5) | G::cell(1, 0);
        assert_eq!(open_threes(wrap, G::BOARD & !wrap), 0);
    }

    #[test]
    fn score_checks_yellow_first() {
        let four = G::cell(0, 0) | G::cell(1, 0) | G::cell(2, 0) | G::cell(3, 0);
        let other = G::cell(0, 1) | G::cell(1, 1) | G::cell(2, 1) | G::cell(3, 1);
        assert_eq!(score(four, other), -WIN);
        assert_eq!(score(other, four), -WIN);
        assert_eq!(score(four, G::cell(6, 0)), WIN);
        let single = G::cell(3, 0);
        assert_eq!(score(single, Bitboard::EMPTY), 7);
        assert_eq!(score(Bitboard::EMPTY, single), -7);
    }
}
