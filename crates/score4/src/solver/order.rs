//! Move ordering: which of a position's moves to search first.
//!
//! Alpha-beta prunes most when the best move comes first. The table's
//! best move from an earlier search is tried first; the rest are ranked by
//! the winning cells ("threats") they create, ties broken centre first,
//! where most lines pass; on some boards the killer move (the cell whose
//! move last cut off at the same depth) goes ahead of the moves it ties
//! with.

use super::tuning::FAST_WIN;
use crate::layout::{non_losing_among, CellSet, Discs, Layout};

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
#[allow(clippy::type_complexity)]
// The ranking loop runs by index (see there): an iterator over `order`
// kept the compiled sizes' loop from unrolling.
#[allow(clippy::needless_range_loop)]
pub(crate) fn ordered_moves<L: Layout>(
    l: &L,
    p: &Discs<L::Cells>,
    opponent_threats: L::Cells,
    candidates: L::Cells,
    hint: Option<usize>,
    alpha: i32,
) -> (
    L::PerColumn<(L::Cells, u32)>,
    L::Cells,
    L::PerColumn<L::Cells>,
) {
    let order = l.centre_first();
    let empty = L::Cells::EMPTY;
    let mut moves = l.per_column((empty, 0u32));
    let mut len = 0;
    // A threat directly above an opponent's threat is nearly worthless:
    // whoever fills the cell below, the opponent wins there or blocks the
    // threat next. Leaving such threats out of the count orders moves
    // better.
    let dead = opponent_threats << 1;
    let playable = l.playable(p.mask);
    let mut winning = empty;
    let mut child_threats = l.per_column(empty);
    // Every candidate's threats in one pass over plain arrays, where the
    // compiler turns that into vector instructions (`BATCH_THREATS`).
    let mut cells = l.per_column(empty);
    for (cell, &col) in cells.as_mut().iter_mut().zip(order.iter()) {
        *cell = candidates & l.column(col);
    }
    let mut all_threats = l.per_column(empty);
    let width = l.width();
    if L::BATCH_THREATS {
        for (threats, &cell) in all_threats.as_mut()[..width]
            .iter_mut()
            .zip(&cells.as_ref()[..width])
        {
            *threats = l.winning_cells(p.current | cell);
        }
    }
    let moves_out = moves.as_mut();
    // By index up to the width: a compiled size's loop unrolls, with
    // every index a constant.
    for k in 0..width {
        let col = order[k];
        let cell = cells.as_ref()[k];
        if cell.is_empty() {
            continue;
        }
        let occupied = p.mask | cell;
        let made = if L::BATCH_THREATS {
            all_threats.as_ref()[k]
        } else {
            l.winning_cells(p.current | cell)
        };
        let threats = made & !occupied;
        child_threats.as_mut()[col] = threats;
        let next = l.playable_after(playable, cell);
        let forced = next & threats;
        if non_losing_among(next, threats).is_empty() {
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
        while i > 0 && moves_out[i - 1].1 < rank {
            moves_out[i] = moves_out[i - 1];
            i -= 1;
        }
        moves_out[i] = (cell, rank);
        len += 1;
    }
    (moves, winning, child_threats)
}

/// Moves the `killer` cell, if it is among the ranked `moves` (as
/// [`ordered_moves`] gives them), ahead of the moves of its rank: after
/// every better ranked move, before those it ties with, whose order is
/// kept.
#[inline(always)]
pub(crate) fn put_killer_first<C: CellSet>(moves: &mut [(C, u32)], killer: C) {
    let Some(mut i) = moves
        .iter()
        .position(|&(cell, _)| cell.any() && cell == killer)
    else {
        return;
    };
    while i > 0 && moves[i - 1].1 == moves[i].1 {
        moves.swap(i - 1, i);
        i -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::Bitboard;

    fn cells(moves: &[(u32, u32)]) -> Vec<(Bitboard, u32)> {
        moves
            .iter()
            .map(|&(bit, rank)| (Bitboard(1 << bit), rank))
            .collect()
    }

    #[test]
    fn the_killer_goes_ahead_of_its_ties_only() {
        let ranked = [(3, 9), (2, 5), (4, 5), (1, 5), (5, 2)];
        let cases: [(u32, [(u32, u32); 5]); 6] = [
            // Tied with two before it: ahead of both, the rest in order.
            (1, [(3, 9), (1, 5), (2, 5), (4, 5), (5, 2)]),
            (4, [(3, 9), (4, 5), (2, 5), (1, 5), (5, 2)]),
            // Ranked lower than a tie: it stays below the better ranks.
            (5, ranked),
            // First already, or first of its rank.
            (3, ranked),
            (2, ranked),
            // Not among the moves.
            (6, ranked),
        ];
        for (killer, expected) in cases {
            let mut moves = cells(&ranked);
            put_killer_first(&mut moves, Bitboard(1 << killer));
            assert_eq!(moves, cells(&expected), "killer {killer}");
        }
        // No killer yet: nothing moves, not even an empty slot's.
        let mut moves = cells(&ranked);
        moves.push((Bitboard(0), 0));
        let before = moves.clone();
        put_killer_first(&mut moves, Bitboard(0));
        assert_eq!(moves, before);
    }
}
