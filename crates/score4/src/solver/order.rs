//! Move ordering: which of a position's moves to search first.
//!
//! Alpha-beta prunes most when the best move comes first. The table's
//! best move from an earlier search is tried first; the rest are ranked by
//! the winning cells ("threats") they create, ties broken centre first,
//! where most lines pass.

use super::tuning::FAST_WIN;
use crate::bitboard::{Bitboard, Geometry};
use crate::position::Position;

/// The candidate cells of `p` (the opponent's winning cells being
/// `opponent_threats`) in the order to search them: the table's
/// best move `hint`, then the others by how many winning cells they create
/// that are not dead (and, when the search must beat a high `alpha`, by
/// whether they force a reply), ties broken centre first. Unused slots at
/// the end are empty cells.
///
/// Also a cell (else none) after which the opponent has no move that does
/// not lose at once: the threats it takes to rank a move tell that too,
/// for nearly nothing. And, by column, the winning cells each ranked move
/// leaves the side to move (`opponent_threats` of the position after it,
/// where the child's search needs them again); columns not ranked are
/// left empty.
#[inline(always)]
pub(super) fn ordered_moves<const W: usize, const H: usize>(
    p: &Position<W, H>,
    opponent_threats: Bitboard,
    candidates: Bitboard,
    hint: Option<usize>,
    alpha: i32,
) -> ([(Bitboard, u32); W], Bitboard, [Bitboard; W]) {
    let order = Geometry::<W, H>::CENTRE_FIRST;
    let mut moves = [(Bitboard::EMPTY, 0u32); W];
    let mut len = 0;
    // A threat directly above an opponent's threat is nearly worthless:
    // whoever fills the cell below, the opponent wins there or blocks the
    // threat next. Leaving such threats out of the count orders moves
    // better.
    let dead = opponent_threats << 1;
    let playable = p.playable();
    let mut winning = Bitboard::EMPTY;
    let mut child_threats = [Bitboard::EMPTY; W];
    // Every candidate's threats in one pass over plain arrays, which the
    // compiler turns into vector instructions.
    let mut cells = [0u64; W];
    for (cell, &col) in cells.iter_mut().zip(order.iter()) {
        *cell = (candidates & Geometry::<W, H>::column(col)).bits();
    }
    let mut all_threats = [0u64; W];
    let current = p.current().bits();
    for (threats, &cell) in all_threats.iter_mut().zip(cells.iter()) {
        *threats = Geometry::<W, H>::winning_cells(Bitboard(current | cell)).bits();
    }
    for k in 0..W {
        let col = order[k];
        let cell = Bitboard(cells[k]);
        if cell.is_empty() {
            continue;
        }
        let occupied = p.occupied() | cell;
        let threats = Bitboard(all_threats[k]) & !occupied;
        child_threats[col] = threats;
        let next = Geometry::<W, H>::playable_after(playable, cell);
        let forced = next & threats;
        if Position::<W, H>::non_losing_among(next, threats).is_empty() {
            // The opponent loses whatever it plays; the caller searches
            // nothing more, so the order is moot.
            winning = cell;
            break;
        }
        let useful = threats & !dead;
        // Threats the opponent could soon be forced to face count half as
        // much again: one right above a cell the opponent can play.
        let rank = if hint == Some(col) {
            u32::MAX
        } else if alpha >= FAST_WIN {
            // Only a fast win will do, and fast wins come from moves that
            // the opponent must answer at once.
            2 * useful.count() + (useful & (next << 1)).count() + 4 * forced.count()
        } else {
            2 * useful.count() + (useful & (next << 1)).count()
        };
        // Insertion sort, stable so that equal ranks stay centre first.
        let mut i = len;
        while i > 0 && moves[i - 1].1 < rank {
            moves[i] = moves[i - 1];
            i -= 1;
        }
        moves[i] = (cell, rank);
        len += 1;
    }
    (moves, winning, child_threats)
}
