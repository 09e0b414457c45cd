//! What the classic engine prints: the answer, with the original's exact
//! stdout and exit status, and the game-over checks it makes before it
//! searches. Both the classic search and perfect play answer this way.

use std::fmt;

use crate::bitboard::Standard;
use crate::board::{Board, Colour};

type G = Standard;

const WIDTH: usize = G::WIDTH;

/// How an engine invocation ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Yellow already has four in a row (checked before orange).
    YouWin,
    /// Orange already has four in a row.
    IWin,
    /// The engine plays `column`; `wins` if that completes four for orange.
    Move {
        /// The column played, 0-based from the left.
        column: usize,
        /// Whether the move completes four orange discs in a row.
        wins: bool,
    },
    /// Every column is full.
    NoMove,
}

/// The engine's answer; its [`Display`](fmt::Display) is the original's
/// exact stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The level searched, printed on the debug lines.
    pub level: u32,
    /// The exact value of each root column that was fully searched, filled
    /// only for a debug request: the original prints one line per entry.
    pub columns: [Option<i32>; WIDTH],
    /// What to print after the debug lines.
    pub outcome: Outcome,
}

impl Answer {
    /// The original's exit status: 255 when the game is over on the board
    /// or with the engine's move, or when no move is possible; else 0.
    pub fn exit_status(&self) -> u8 {
        match self.outcome {
            Outcome::Move { wins: false, .. } => 0,
            _ => 255,
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (column, value) in self.columns.iter().enumerate() {
            if let Some(score) = value {
                writeln!(
                    f,
                    "Depth {}, placing on {column}, score:{score}",
                    self.level
                )?;
            }
        }
        match self.outcome {
            Outcome::YouWin => f.write_str("You win\n\n"),
            Outcome::IWin => f.write_str("I win\n\n"),
            Outcome::Move { column, wins } => {
                writeln!(f, "{column}")?;
                if wins {
                    f.write_str("I win\n\n")?;
                }
                Ok(())
            }
            Outcome::NoMove => f.write_str("No move possible\n"),
        }
    }
}

/// The outcome when the board itself ends the game, checked as the original
/// does before it searches: yellow's four first, then orange's, then a full
/// board.
pub(super) fn game_over(board: &Board) -> Option<Outcome> {
    if board.has_four(Colour::Yellow) {
        Some(Outcome::YouWin)
    } else if board.has_four(Colour::Orange) {
        Some(Outcome::IWin)
    } else if board.occupied() == G::BOARD {
        Some(Outcome::NoMove)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_print_as_the_original() {
        let mut a = Answer {
            level: 7,
            columns: [None; WIDTH],
            outcome: Outcome::Move {
                column: 4,
                wins: false,
            },
        };
        assert_eq!(a.to_string(), "4\n");
        assert_eq!(a.exit_status(), 0);
        a.columns[0] = Some(-1_000_007);
        a.columns[2] = Some(13);
        a.outcome = Outcome::Move {
            column: 2,
            wins: true,
        };
        assert_eq!(
            a.to_string(),
            "Depth 7, placing on 0, score:-1000007\nDepth 7, placing on 2, score:13\n2\nI win\n\n"
        );
        assert_eq!(a.exit_status(), 255);
        a.columns = [None; WIDTH];
        for (outcome, text) in [
            (Outcome::YouWin, "You win\n\n"),
            (Outcome::IWin, "I win\n\n"),
            (Outcome::NoMove, "No move possible\n"),
        ] {
            a.outcome = outcome;
            assert_eq!((a.to_string().as_str(), a.exit_status()), (text, 255));
        }
    }
}
