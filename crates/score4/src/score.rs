//! The score convention, in one place: every score in score4 (the
//! solver's, the book's, the fixtures') means this.
//!
//! A score is from the side to move and assumes both sides play
//! perfectly: 0 is a draw; a positive score is a win, larger the sooner it
//! comes; a negative score a loss, the negation of the opponent's win. A
//! win completed by the `m`-th disc of the game (counting both players'
//! discs, from 1) on a board of `cells` cells scores `1 + (cells - m) / 2`:
//! on 7x6, a win with one's own `k`-th disc scores `22 - k`, so the
//! fastest possible win (the fourth disc) scores 18 and a win with the
//! last disc 1.
//!
//! ```
//! use score4::score;
//! // On 7x6, a win by the 7th disc of the game (the first player's 4th).
//! assert_eq!(score::win_by_disc(42, 7), 18);
//! // After 8 moves the side to move scores at most 17 (a win with its
//! // next disc, the 9th) and at least -17 (a loss to the 10th).
//! assert_eq!(score::range(42, 8), -17..=17);
//! // With 3 moves played, a score of 16 is a win with the mover's 4th disc.
//! assert_eq!(score::own_winning_disc(42, 3, 16), Some(4));
//! ```

use std::ops::RangeInclusive;

/// The score of a win completed by the `disc`-th disc of the game (from 1)
/// on a board of `cells` cells: `1 + (cells - disc) / 2`, one point per
/// disc the winner has not had to play, plus one.
#[inline(always)]
pub const fn win_by_disc(cells: usize, disc: u32) -> i32 {
    1 + (cells as i32 - disc as i32) / 2
}

/// The score of a win by the side to move with its next disc, `moves`
/// moves into the game: the win by disc `moves + 1`.
#[inline(always)]
pub const fn win(cells: usize, moves: u32) -> i32 {
    (cells as i32 + 1 - moves as i32) / 2
}

/// The most any position can score: a win with the first disc (a bound,
/// not a game: no real win comes before the seventh disc).
#[inline(always)]
pub const fn best(cells: usize) -> i32 {
    win(cells, 0)
}

/// Every score the side to move can have `moves` moves into the game:
/// from losing to the opponent's next disc up to winning with its own.
pub const fn range(cells: usize, moves: u32) -> RangeInclusive<i32> {
    -win(cells, moves + 1)..=win(cells, moves)
}

/// Which of its own discs (counting from 1) the side to move wins with,
/// `moves` moves into the game, when it scores `score`; `None` unless the
/// score is a win in [`range`].
pub const fn own_winning_disc(cells: usize, moves: u32, score: i32) -> Option<u32> {
    let soonest = win(cells, moves);
    if score <= 0 || score > soonest {
        return None;
    }
    // Each later own disc of the mover costs one point; it has played
    // `moves / 2` discs so far.
    Some(moves / 2 + 1 + (soonest - score) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win_with_the_next_disc_is_a_win_by_that_disc() {
        for cells in [16, 20, 25, 42, 56] {
            for moves in 0..cells as u32 {
                assert_eq!(win(cells, moves), win_by_disc(cells, moves + 1));
            }
        }
    }

    #[test]
    fn on_7x6_the_kth_own_disc_scores_22_minus_k() {
        for disc in 1..=42u32 {
            let k = disc.div_ceil(2);
            assert_eq!(win_by_disc(42, disc), 22 - k as i32, "disc {disc}");
        }
        assert_eq!(best(42), 21);
        assert_eq!(range(42, 0), -21..=21);
        assert_eq!(range(42, 7), -17..=18);
        assert_eq!(range(42, 41), 0..=1);
    }

    #[test]
    fn the_winning_disc_is_found_from_the_score() {
        for cells in [16, 20, 25, 42] {
            for moves in 0..cells as u32 {
                // Every later disc of the mover: its own count and the game's.
                let mut own = moves / 2 + 1;
                let mut disc = moves + 1;
                while disc <= cells as u32 {
                    let s = win_by_disc(cells, disc);
                    assert!(range(cells, moves).contains(&s));
                    assert_eq!(own_winning_disc(cells, moves, s), Some(own));
                    own += 1;
                    disc += 2;
                }
                assert_eq!(own_winning_disc(cells, moves, 0), None);
                assert_eq!(own_winning_disc(cells, moves, -1), None);
                assert_eq!(own_winning_disc(cells, moves, win(cells, moves) + 1), None);
            }
        }
    }

    #[test]
    fn a_loss_to_the_next_opponent_disc_is_the_least() {
        for cells in [16, 25, 42] {
            for moves in 0..cells as u32 - 1 {
                assert_eq!(*range(cells, moves).start(), -win(cells, moves + 1));
            }
        }
    }
}
