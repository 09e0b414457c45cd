//! Static bounds: what a position's score can be, read off the board
//! without searching.
//!
//! - A side with no line left open cannot win: at best a draw.
//! - "Claimeven": when the number of empty cells is even, the side that
//!   just moved can answer every move right on top of it (a move into a
//!   column with an odd number of empty cells it answers in another such
//!   column), which bounds the cells each side gets. If the side to move
//!   cannot make four with the most it can get, it cannot win; if the
//!   other side's least makes four, it loses. With an odd number, a move
//!   gives the mover the same strategy, and so a floor.

use super::Solver;
use crate::bitboard::{Bitboard, Geometry};
use crate::position::Position;

/// The least and the most `p` can score for the side to move, given that
/// it cannot win at once and has a move after which the opponent cannot
/// either (the search checks both first): so each side needs at least two
/// more discs to win.
///
/// A bound that cannot narrow `alpha..beta` may come out looser: that a
/// side with no line left open can at most draw narrows nothing when the
/// window lies on that side of zero already, so that test (a pass over
/// the whole board) is made only when it could.
#[inline(always)]
pub(super) fn static_bounds<const W: usize, const H: usize>(
    p: &Position<W, H>,
    alpha: i32,
    beta: i32,
) -> (i32, i32) {
    let n = p.moves_played() as i32;
    let open = Geometry::<W, H>::BOARD & !p.occupied();
    let min = if alpha < 0 && !Geometry::<W, H>::has_four(p.opponent() | open) {
        0
    } else {
        claimeven_min(p, open).unwrap_or(-Solver::<W, H>::win_score(n + 2))
    };
    let max = if beta > 0 && !Geometry::<W, H>::has_four(p.current() | open) {
        0
    } else {
        claimeven_max(p, open).unwrap_or(Solver::<W, H>::win_score(n + 2))
    };
    (min, max)
}

/// An upper bound on the score of `p` from the opponent's claimeven
/// strategy, if it applies (`open` being the empty cells): when the number
/// of empty cells is even.
///
/// The opponent answers a move on top of it, except a move into the next
/// cell of a column with an odd number of empty cells: that one it answers
/// with the next cell of another such column (there is always one, since
/// their number is even), which leaves both columns even. So we get at
/// most the first, third, ... empty cell of each column and the next cell
/// of each odd column, and the opponent all the rest. If even all of ours
/// cannot make four with our discs, we never win: at best a draw, and a
/// loss if the opponent's share makes four, at the latest with the last
/// disc.
#[inline(always)]
pub(super) fn claimeven_max<const W: usize, const H: usize>(
    p: &Position<W, H>,
    open: Bitboard,
) -> Option<i32> {
    if !(Geometry::<W, H>::CELLS - p.moves_played()).is_multiple_of(2) {
        return None;
    }
    // The first, third, ... empty cell of a column has the parity of the
    // top row's sentinel exactly when the column has an even number of
    // empty cells.
    let ours = open & (Geometry::<W, H>::ROW_PARITY[H % 2] | p.playable());
    if Geometry::<W, H>::has_four(p.current() | ours) {
        return None;
    }
    if Geometry::<W, H>::has_four(p.opponent() | (open & !ours)) {
        Some(-Solver::<W, H>::win_score((W * H) as i32 - 1))
    } else {
        Some(0)
    }
}

/// A lower bound on the score of `p` from claiming even ourselves, if the
/// number of empty cells is odd: after any move, the opponent is where
/// [`claimeven_max`] puts us. The best bound over our moves.
#[inline(always)]
pub(super) fn claimeven_min<const W: usize, const H: usize>(
    p: &Position<W, H>,
    open: Bitboard,
) -> Option<i32> {
    if (Geometry::<W, H>::CELLS - p.moves_played()).is_multiple_of(2) {
        return None;
    }
    let parity = Geometry::<W, H>::ROW_PARITY[H % 2];
    let next = p.playable();
    let mut best = None;
    for cell in next.iter() {
        let open = open & !cell;
        let next = (next ^ cell) | ((cell << 1) & Geometry::<W, H>::BOARD);
        let theirs = open & (parity | next);
        if Geometry::<W, H>::has_four(p.opponent() | theirs) {
            continue;
        }
        if Geometry::<W, H>::has_four(p.current() | cell | (open & !theirs)) {
            return Some(Solver::<W, H>::win_score((W * H) as i32 - 1));
        }
        best = Some(0);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::plain::plain_negamax;

    /// Checks every bound on every position reachable on a small board
    /// against exact scores; returns how often each claimeven bound applied.
    fn check_bounds<const W: usize, const H: usize>() -> (usize, usize) {
        let mut memo = std::collections::HashMap::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![Position::<W, H>::new()];
        let (mut uppers, mut lowers) = (0, 0);
        while let Some(p) = stack.pop() {
            if !seen.insert(p.key()) {
                continue;
            }
            let score = plain_negamax(&p, &mut memo);
            let open = Geometry::<W, H>::BOARD & !p.occupied();
            if let Some(max) = claimeven_max(&p, open) {
                assert!(score <= max, "{score} > {max}\n{p}");
                uppers += 1;
            }
            if let Some(min) = claimeven_min(&p, open) {
                assert!(score >= min, "{score} < {min}\n{p}");
                lowers += 1;
            }
            if !p.is_game_over() && !p.can_win_next() && p.non_losing_moves().any() {
                // A wide window, and null windows on both sides of zero.
                for (alpha, beta) in [(-100, 100), (0, 1), (-1, 0), (3, 4), (-4, -3)] {
                    let (min, max) = static_bounds(&p, alpha, beta);
                    assert!(min <= score && score <= max, "{min} {score} {max}\n{p}");
                }
            }
            for col in p.playable_columns() {
                let child = p.after(col);
                if !child.is_game_over() {
                    stack.push(child);
                }
            }
        }
        (uppers, lowers)
    }

    #[test]
    fn bounds_hold_on_every_small_board_position() {
        // An even and an odd number of rows: the shares swap parity.
        for (uppers, lowers) in [check_bounds::<4, 4>(), check_bounds::<4, 3>()] {
            assert!(uppers > 100 && lowers > 100, "{uppers} {lowers}");
        }
    }

    #[test]
    fn row_parity_covers_the_layout() {
        let [even, odd] = Geometry::<7, 6>::ROW_PARITY;
        assert_eq!((even & odd), Bitboard::EMPTY);
        assert_eq!((even | odd).count(), 49);
        assert!(even.contains(Geometry::<7, 6>::cell(3, 0)));
        assert!(odd.contains(Geometry::<7, 6>::cell(3, 5)));
    }
}
