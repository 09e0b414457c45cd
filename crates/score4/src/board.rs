//! A Score4 board: orange and yellow discs in any counts, read from the
//! engine protocol's cell tokens.
//!
//! A token is `o<row><col>` or `y<row><col>` with one digit each, **row 0 at
//! the top**; `o53` is an orange disc at the bottom of the middle column.

use std::fmt;

use crate::bitboard::{Bitboard, Standard};
use crate::error::ParseError;
use crate::position::Position;
use crate::render::render;

/// The two colours of the Score4 engine. Orange is the engine's own side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Colour {
    /// The engine's side, the maximiser.
    Orange,
    /// The human's side, the minimiser.
    Yellow,
}

/// A 7x6 Score4 board. Piece counts are not checked: the engine answers
/// for every gravity-consistent board, as the original does.
///
/// ```
/// use score4::Board;
/// let board = Board::from_cells(["o53", "y43"]).unwrap();
/// assert_eq!(board.orange().count(), 1);
/// assert!(Board::from_cells(["o43"]).is_err()); // floats above an empty cell
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Board {
    orange: Bitboard,
    yellow: Bitboard,
}

type G = Standard;

impl Board {
    /// Rows of the board.
    pub const HEIGHT: usize = G::HEIGHT;
    /// Columns of the board.
    pub const WIDTH: usize = G::WIDTH;

    /// Reads one cell token: its colour and its cell.
    pub fn parse_cell(token: &str) -> Result<(Colour, Bitboard), ParseError> {
        let bytes = token.as_bytes();
        let colour = match bytes.first() {
            Some(b'o') => Colour::Orange,
            Some(b'y') => Colour::Yellow,
            _ => return Err(ParseError::MalformedCell(token.to_string())),
        };
        if bytes.len() != 3 || !bytes[1].is_ascii_digit() || !bytes[2].is_ascii_digit() {
            return Err(ParseError::MalformedCell(token.to_string()));
        }
        let (row, col) = ((bytes[1] - b'0') as usize, (bytes[2] - b'0') as usize);
        if row >= Self::HEIGHT || col >= Self::WIDTH {
            return Err(ParseError::CellOutOfRange(token.to_string()));
        }
        Ok((colour, G::cell(col, Self::HEIGHT - 1 - row)))
    }

    /// Builds a board from cell tokens, in any order. Fails on the first
    /// malformed token, on a cell given twice, and on a disc that does not
    /// rest on the bottom row or on another disc (naming the first such
    /// token given), so every `Board` obeys gravity.
    pub fn from_cells<I, S>(tokens: I) -> Result<Self, ParseError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut board = Board::default();
        let mut named: Vec<(Bitboard, S)> = Vec::new();
        for token in tokens {
            let (colour, cell) = Self::parse_cell(token.as_ref())?;
            if board.occupied().contains(cell) {
                return Err(ParseError::DuplicateCell(token.as_ref().to_string()));
            }
            match colour {
                Colour::Orange => board.orange |= cell,
                Colour::Yellow => board.yellow |= cell,
            }
            named.push((cell, token));
        }
        let floating = G::floating(board.occupied());
        match named.iter().find(|(cell, _)| floating.contains(*cell)) {
            Some((_, token)) => Err(ParseError::FloatingDisc(token.as_ref().to_string())),
            None => Ok(board),
        }
    }

    /// The orange discs.
    pub const fn orange(&self) -> Bitboard {
        self.orange
    }

    /// The yellow discs.
    pub const fn yellow(&self) -> Bitboard {
        self.yellow
    }

    /// All discs.
    pub fn occupied(&self) -> Bitboard {
        self.orange | self.yellow
    }

    /// Whether `colour` has four in a row.
    pub fn has_four(&self, colour: Colour) -> bool {
        G::has_four(match colour {
            Colour::Orange => self.orange,
            Colour::Yellow => self.yellow,
        })
    }

    /// The board as a position with orange to move.
    pub fn position(&self) -> Position {
        Position::from_sides(self.orange, self.yellow)
            .expect("a Board is gravity-consistent by construction")
    }

    /// The engine's board for `p`: the side to move's discs orange, the
    /// other's yellow; the inverse of [`position`](Self::position).
    pub fn from_position(p: &Position) -> Self {
        Board {
            orange: p.current(),
            yellow: p.opponent(),
        }
    }
}

/// Orange as `X`, yellow as `O`, columns numbered 0..6 as in the protocol.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render::<{ G::WIDTH }, { G::HEIGHT }>(f, self.orange, self.yellow, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_count_rows_from_the_top() {
        assert_eq!(
            Board::parse_cell("o53"),
            Ok((Colour::Orange, G::cell(3, 0)))
        );
        assert_eq!(
            Board::parse_cell("y06"),
            Ok((Colour::Yellow, G::cell(6, 5)))
        );
    }

    #[test]
    fn bad_cells_are_named() {
        let err = |tokens: &[&str]| Board::from_cells(tokens.iter()).unwrap_err();
        assert_eq!(err(&["x53"]), ParseError::MalformedCell("x53".into()));
        assert_eq!(err(&["o5"]), ParseError::MalformedCell("o5".into()));
        assert_eq!(err(&["o533"]), ParseError::MalformedCell("o533".into()));
        assert_eq!(err(&["o5a"]), ParseError::MalformedCell("o5a".into()));
        assert_eq!(err(&["o63"]), ParseError::CellOutOfRange("o63".into()));
        assert_eq!(err(&["o57"]), ParseError::CellOutOfRange("o57".into()));
        assert_eq!(
            err(&["o53", "y53"]),
            ParseError::DuplicateCell("y53".into())
        );
        assert_eq!(err(&["o53", "y33"]), ParseError::FloatingDisc("y33".into()));
        assert_eq!(
            err(&["y43", "o53", "o23"]),
            ParseError::FloatingDisc("o23".into())
        );
        assert!(err(&["o00"]).to_string().contains("o00"));
        // Only the disc over the gap floats; the one above it rests on it.
        assert_eq!(
            err(&["o23", "o33", "o53"]),
            ParseError::FloatingDisc("o33".into())
        );
    }

    #[test]
    fn any_order_and_counts() {
        let a = Board::from_cells(["y43", "o53", "o52"]).unwrap();
        let b = Board::from_cells(["o52", "o53", "y43"]).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.position().moves_played(), 3);
        assert_eq!(a.position().current(), a.orange());
    }

    #[test]
    fn display_matches_the_driver_layout() {
        let b = Board::from_cells(["o53", "y43"]).unwrap();
        let text = b.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[4], "[.  .  .  O  .  .  .]");
        assert_eq!(lines[5], "[.  .  .  X  .  .  .]");
        assert_eq!(lines[7], " 0  1  2  3  4  5  6 ");
    }
}
