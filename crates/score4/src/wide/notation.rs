//! The move notation on boards of every width: one character per move,
//! columns `1` to `9` as digits, then `a` (10) to `g` (16).
//!
//! Boards up to nine columns keep their digits, so every position written
//! before wider boards existed reads the same. Letters are read in either
//! case and written in lower case.

/// A board a move sequence is played on, as [`replay`] needs it: columns
/// from 0.
pub(crate) trait Board {
    /// Number of columns.
    fn width(&self) -> usize;
    /// Whether column `col`, on the board, has room.
    fn can_play(&self, col: usize) -> bool;
    /// Whether a disc in column `col`, which has room, makes four.
    fn is_winning_move(&self, col: usize) -> bool;
    /// Drops the side to move's disc into column `col`, which has room.
    fn play(&mut self, col: usize);
}

/// Plays `moves`, in this notation, on `board`: the one reader of move
/// sequences, for the compiled sizes and the sizes as data.
pub(crate) fn replay(board: &mut impl Board, moves: &str) -> Result<(), crate::ParseError> {
    use crate::ParseError;
    let mut won_at = None;
    for (i, ch) in moves.chars().enumerate() {
        let index = i + 1;
        if let Some(won_at) = won_at {
            return Err(ParseError::AfterGameOver { index, won_at });
        }
        let column = self::column(ch).ok_or(ParseError::UnknownCharacter { index, ch })?;
        if column > board.width() {
            return Err(ParseError::ColumnOutOfRange {
                index,
                column,
                width: board.width(),
            });
        }
        if !board.can_play(column - 1) {
            return Err(ParseError::ColumnFull { index, column });
        }
        if board.is_winning_move(column - 1) {
            won_at = Some(index);
        }
        board.play(column - 1);
    }
    Ok(())
}

/// The column (from 1) a move character names, if it names one.
///
/// ```
/// use score4::wide::notation::column;
/// assert_eq!(column('4'), Some(4));
/// assert_eq!(column('a'), Some(10));
/// assert_eq!(column('G'), Some(16));
/// assert_eq!(column('0'), None);
/// assert_eq!(column('h'), None);
/// ```
pub const fn column(ch: char) -> Option<usize> {
    match ch {
        '1'..='9' => Some(ch as usize - '0' as usize),
        'a'..='g' => Some(ch as usize - 'a' as usize + 10),
        'A'..='G' => Some(ch as usize - 'A' as usize + 10),
        _ => None,
    }
}

/// The character of column `column` (from 1), `None` past the widest board.
///
/// ```
/// use score4::wide::notation::{character, column};
/// assert_eq!(character(10), Some('a'));
/// for c in 1..=16 {
///     assert_eq!(character(c).and_then(column), Some(c));
/// }
/// assert_eq!(character(17), None);
/// ```
pub const fn character(column: usize) -> Option<char> {
    match column {
        1..=9 => Some((b'0' + column as u8) as char),
        10..=16 => Some((b'a' + (column - 10) as u8) as char),
        _ => None,
    }
}

/// Moves written as 0-based digits, as c4's published test sets write
/// them (columns `0` to `9`, boards up to ten wide), in this notation.
///
/// ```
/// use score4::wide::notation::from_base_zero;
/// assert_eq!(from_base_zero("3342"), Ok("4453".to_string()));
/// assert_eq!(from_base_zero("9"), Ok("a".to_string()));
/// assert!(from_base_zero("3a").is_err());
/// ```
pub fn from_base_zero(moves: &str) -> Result<String, crate::ParseError> {
    moves
        .chars()
        .enumerate()
        .map(|(i, ch)| {
            ch.to_digit(10)
                .and_then(|d| character(d as usize + 1))
                .ok_or(crate::ParseError::UnknownCharacter { index: i + 1, ch })
        })
        .collect()
}

/// How move sequences are written: in the notation (columns from 1), or
/// as 0-based digits, as c4's published test sets write them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// Columns `1` to `9`, then `a` to `g`.
    #[default]
    One,
    /// Columns `0` to `9` (boards up to ten wide).
    Zero,
}

impl Base {
    /// `moves`, written in this base, in the notation.
    ///
    /// ```
    /// use score4::wide::notation::Base;
    /// assert_eq!(Base::Zero.to_notation("39").unwrap(), "4a");
    /// assert_eq!(Base::One.to_notation("4a").unwrap(), "4a");
    /// ```
    pub fn to_notation(self, moves: &str) -> Result<std::borrow::Cow<'_, str>, crate::ParseError> {
        match self {
            Base::One => Ok(moves.into()),
            Base::Zero => from_base_zero(moves).map(Into::into),
        }
    }
}
