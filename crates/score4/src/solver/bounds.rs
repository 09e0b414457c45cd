//! Static bounds: what a position's score can be, read off the board
//! without searching.
//!
//! - A side with no line left open cannot win: at best a draw.
//! - "Claimeven": when every column has an even number of empty cells, the
//!   side that just moved can answer every move right on top of it, which
//!   decides exactly which cells each side gets. If the side to move cannot
//!   make four with its share, it cannot win; if the other side's share
//!   makes four, it loses. A move that makes every column even gives the
//!   mover the same strategy, and so a floor.

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
/// strategy, if it applies (`open` being the empty cells).
///
/// The opponent answering on top of every move leaves us exactly the
/// first, third, ... empty cell of each column and gives it the others.
/// If even all of ours cannot make four with our discs, we never win: at
/// best a draw, and a loss if the opponent's share makes four, at the
/// latest with the last disc.
#[inline(always)]
pub(super) fn claimeven_max<const W: usize, const H: usize>(
    p: &Position<W, H>,
    open: Bitboard,
) -> Option<i32> {
    // Every column's next cell (its sentinel when full) has the parity of
    // the top row's sentinel exactly when the number of empty cells under
    // it is even.
    let ours = Geometry::<W, H>::ROW_PARITY[H % 2];
    let next = p.occupied() + Geometry::<W, H>::BOTTOM;
    if (next & !ours).any() || Geometry::<W, H>::has_four(p.current() | (open & ours)) {
        return None;
    }
    if Geometry::<W, H>::has_four(p.opponent() | (open & !ours)) {
        Some(-Solver::<W, H>::win_score((W * H) as i32 - 1))
    } else {
        Some(0)
    }
}

/// A lower bound on the score of `p` from claiming even ourselves, if one
/// move makes every column's number of empty cells even: after it, the
/// opponent is where [`claimeven_max`] puts us.
#[inline(always)]
pub(super) fn claimeven_min<const W: usize, const H: usize>(
    p: &Position<W, H>,
    open: Bitboard,
) -> Option<i32> {
    let theirs = Geometry::<W, H>::ROW_PARITY[H % 2];
    let next = p.occupied() + Geometry::<W, H>::BOTTOM;
    let odd = next & !theirs;
    if odd.has_several() || odd.is_empty() {
        return None;
    }
    // `odd` is the next cell of the one column with an odd number of empty
    // cells; after we play it the opponent moves first into even columns,
    // and takes the cells of the top row's parity.
    let open = open & !odd;
    if Geometry::<W, H>::has_four(p.opponent() | (open & theirs)) {
        return None;
    }
    if Geometry::<W, H>::has_four(p.current() | odd | (open & !theirs)) {
        Some(Solver::<W, H>::win_score((W * H) as i32 - 1))
    } else {
        Some(0)
    }
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
