//! Errors at the library boundary: every way user input can be wrong,
//! and why a position cannot be solved.

use thiserror::Error;

use crate::input::Quoted;

/// Why a move sequence or a Score4 board could not be read.
///
/// Move indices are 1-based positions in the move string, so a message can
/// point at the offending character.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// A move character that is not a digit.
    #[error("move {index}: '{}' is not a column", .ch.escape_debug())]
    UnknownCharacter {
        /// 1-based position in the move string.
        index: usize,
        /// The character found.
        ch: char,
    },
    /// A digit naming a column the board does not have.
    #[error("move {index}: column {column} is out of range 1..{width}")]
    ColumnOutOfRange {
        /// 1-based position in the move string.
        index: usize,
        /// The column as written (1-based).
        column: usize,
        /// The board's width.
        width: usize,
    },
    /// A move into a column that is already full.
    #[error("move {index}: column {column} is full")]
    ColumnFull {
        /// 1-based position in the move string.
        index: usize,
        /// The column as written (1-based).
        column: usize,
    },
    /// A move after one that already made four in a row.
    #[error("move {index}: the game was already won by move {won_at}")]
    AfterGameOver {
        /// 1-based position of the move that should not be there.
        index: usize,
        /// 1-based position of the winning move.
        won_at: usize,
    },
    /// A Score4 argument meant as a cell (it starts with `o` or `y`) that is
    /// not one: wrong length or a row or column that is not a digit.
    #[error("{} is not a cell: expected o or y, a row digit and a column digit", Quoted::new(.0))]
    MalformedCell(String),
    /// A Score4 cell whose row or column lies off the board.
    #[error("cell {} is off the board", Quoted::new(.0))]
    CellOutOfRange(String),
    /// A Score4 cell named twice.
    #[error("cell {} is given twice", Quoted::new(.0))]
    DuplicateCell(String),
    /// A disc with an empty cell below it.
    #[error("disc {} floats above an empty cell", Quoted::new(.0))]
    FloatingDisc(String),
    /// `-level` without a value, with a value that is not a number, or out of range.
    #[error("bad level {}: expected a search depth from 1 to {max}", Quoted::new(.token))]
    BadLevel {
        /// The offending token.
        token: String,
        /// The deepest level accepted.
        max: u32,
    },
}

/// Why a position cannot be solved: the game is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SolveError {
    /// Every cell is taken and nobody has four in a row.
    #[error("the board is full")]
    BoardFull,
    /// Someone has four in a row: the move with this number (from 1) won.
    #[error("the game is already over: move {0} won")]
    AlreadyWon(u32),
}
