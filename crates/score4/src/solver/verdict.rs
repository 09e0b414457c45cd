//! A score read back: who wins, and with which of its discs.

use std::fmt;

use crate::position::Position;
use crate::score;

/// One of the two players, named by when they move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// The player who moves first (on the empty board).
    First,
    /// The other one.
    Second,
}

impl Player {
    /// The player to move after `moves` moves.
    pub fn after_moves(moves: u32) -> Player {
        if moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The opponent.
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::First => "first",
            Player::Second => "second",
        })
    }
}

/// What a position's score says: who moves, who wins with best play and
/// with which of its discs: the [`score`] convention read backwards.
///
/// ```
/// use score4::solver::{Player, Verdict};
/// use score4::Position;
/// // 4453 scores -2: the side to move (the first player) loses to the
/// // second player's 20th disc, 22 - 20 discs before the end.
/// let p: Position = "4453".parse().unwrap();
/// let v = Verdict::of(&p, -2).unwrap();
/// assert_eq!(v.win, Some((Player::Second, 20)));
/// assert_eq!(v.to_string(), "the first player (to move) loses to the second player's 20th disc");
/// assert_eq!(Verdict::of(&p, 0).unwrap().to_string(), "the first player (to move) draws");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The player to move.
    pub to_move: Player,
    /// The winner, and the number of the disc (counting its own discs
    /// from 1, those on the board included) that completes its four;
    /// `None` for a draw.
    pub win: Option<(Player, u32)>,
}

impl Verdict {
    /// The verdict of `score` for `p`, a game that goes on; `None` if no
    /// game from `p` ends with that score.
    pub fn of<const W: usize, const H: usize>(p: &Position<W, H>, score: i32) -> Option<Verdict> {
        Self::after(W * H, p.moves_played(), score)
    }

    /// The verdict of `score` on a board of `cells` cells after `n` moves
    /// (see [`of`](Self::of)), for boards whose size is data.
    pub fn after(cells: usize, n: u32, score: i32) -> Option<Verdict> {
        let to_move = Player::after_moves(n);
        if score == 0 {
            return Some(Verdict { to_move, win: None });
        }
        // The winner's first chance is the next move, or the one after.
        let (winner, disc) = if score > 0 {
            (to_move, score::own_winning_disc(cells, n, score)?)
        } else {
            (
                to_move.other(),
                score::own_winning_disc(cells, n + 1, -score)?,
            )
        };
        Some(Verdict {
            to_move,
            win: Some((winner, disc)),
        })
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mover = self.to_move;
        write!(f, "the {mover} player (to move) ")?;
        match self.win {
            None => f.write_str("draws"),
            Some((winner, disc)) if winner == mover => {
                write!(f, "wins with its {} disc", Ordinal(disc))
            }
            Some((winner, disc)) => {
                write!(f, "loses to the {winner} player's {} disc", Ordinal(disc))
            }
        }
    }
}

/// A number as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
struct Ordinal(u32);

impl fmt::Display for Ordinal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        let suffix = match (n % 10, n % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        write!(f, "{n}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 32, 111]
            .iter()
            .map(|&n| Ordinal(n).to_string())
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "32nd",
                "111th"
            ]
        );
    }

    /// The convention told as a user reads it: a win scores one point
    /// more than the discs the winner has left after its winning disc,
    /// the first player having the odd disc of an odd board.
    fn model_score(cells: u32, to_move: Player, winner: Player, disc: u32) -> i32 {
        let discs = match winner {
            Player::First => cells.div_ceil(2),
            Player::Second => cells / 2,
        };
        let score = (discs + 1 - disc) as i32;
        if winner == to_move {
            score
        } else {
            -score
        }
    }

    /// Every score a position of `moves` moves can have reads back to a
    /// win the model scores the same, and nothing else does.
    fn round_trip<const W: usize, const H: usize>() {
        let cells = (W * H) as u32;
        let mut p = Position::<W, H>::new();
        // A game filling columns in turn, stopped before anyone has four:
        // only the count of moves matters here.
        for moves in 0..cells.min(6) {
            let range = p.score_range();
            for score in -30..=30 {
                let v = Verdict::of(&p, score);
                assert_eq!(v.is_some(), range.contains(&score), "{moves} {score}");
                let Some(v) = v else { continue };
                assert_eq!(v.to_move, Player::after_moves(moves));
                match v.win {
                    None => assert_eq!(score, 0),
                    Some((winner, disc)) => {
                        assert_eq!(model_score(cells, v.to_move, winner, disc), score);
                    }
                }
            }
            p.play(moves as usize % W);
        }
    }

    #[test]
    fn every_score_reads_back_on_even_and_odd_boards() {
        round_trip::<7, 6>();
        round_trip::<5, 5>();
        round_trip::<7, 5>();
        round_trip::<4, 4>();
        round_trip::<9, 5>();
    }

    #[test]
    fn the_words() {
        let p = Position::<7, 6>::parse("445566").unwrap();
        let v = Verdict::of(&p, 18).unwrap();
        assert_eq!(v.win, Some((Player::First, 4)));
        assert_eq!(
            v.to_string(),
            "the first player (to move) wins with its 4th disc"
        );
        let p = Position::<7, 6>::parse("4").unwrap();
        assert_eq!(
            Verdict::of(&p, -1).unwrap().to_string(),
            "the second player (to move) loses to the first player's 21st disc"
        );
        assert_eq!(Verdict::of(&p, 22), None);
    }
}
