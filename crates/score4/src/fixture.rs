//! Labelled position sets: one `MOVES SCORE` pair per line.
//!
//! This is the format of every public Connect Four test set: the moves in
//! the standard notation, one space, the exact score from the side to move.
//! Lines starting with `#` and blank lines are skipped.
//!
//! ```
//! use score4::fixture;
//! let set = fixture::parse::<7, 6>("# a comment\n4453 1\n").unwrap();
//! assert_eq!(set[0].moves, "4453");
//! assert_eq!(set[0].score, 1);
//! assert_eq!(set[0].line, 2);
//! ```

use std::io::BufRead;

use thiserror::Error;

use crate::error::{ParseError, SolveError};
use crate::input::{LineError, Lines, Quoted};
use crate::position::Position;
use crate::wide::notation::Base;
use crate::wide::{self, Shape};

/// One labelled position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled<const W: usize = 7, const H: usize = 6> {
    /// 1-based line number in the file.
    pub line: usize,
    /// The moves as written.
    pub moves: String,
    /// The position they reach.
    pub position: Position<W, H>,
    /// The exact score from the side to move.
    pub score: i32,
}

/// Why a fixture line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FixtureError {
    /// Not two fields separated by a space.
    #[error("line {line}: expected `MOVES SCORE`, found {}", Quoted::new(.text))]
    Shape {
        /// 1-based line number.
        line: usize,
        /// The line as found.
        text: String,
    },
    /// The moves do not form a legal sequence.
    #[error("line {line}: {source}")]
    Moves {
        /// 1-based line number.
        line: usize,
        /// What is wrong with the moves.
        source: ParseError,
    },
    /// The game is over: there is nothing to solve.
    #[error("line {line}: {source}")]
    Finished {
        /// 1-based line number.
        line: usize,
        /// How it ended.
        source: SolveError,
    },
    /// The score is not an integer.
    #[error("line {line}: score {} is not an integer", Quoted::new(.text))]
    Score {
        /// 1-based line number.
        line: usize,
        /// The field as found.
        text: String,
    },
    /// The score is one no position with this many moves can have.
    #[error("line {line}: score {score} is outside {min}..={max}, the scores a position with {moves} moves can have")]
    ScoreRange {
        /// 1-based line number.
        line: usize,
        /// The score found.
        score: i32,
        /// The lowest possible score.
        min: i32,
        /// The highest possible score.
        max: i32,
        /// Moves played in the position.
        moves: u32,
    },
    /// The line is too long or not text.
    #[error("line {line}: {source}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        source: LineError,
    },
    /// The file could not be read.
    #[error("{0}")]
    Read(String),
}

/// Reads one line (numbered `line`, from 1): `None` for a blank line or a
/// `#` comment, else the labelled position. Refused: a line that is not
/// two fields, moves that are not a game, a finished game (nothing to
/// solve), and a score no position with that many moves can have.
pub fn parse_line<const W: usize, const H: usize>(
    line: usize,
    raw: &str,
) -> Result<Option<Labelled<W, H>>, FixtureError> {
    let read = |moves: &str| {
        let position = Position::<W, H>::parse(moves)?;
        Ok((
            position,
            SolveError::check(&position),
            position.moves_played(),
        ))
    };
    Ok(
        fields(line, raw, W * H, read)?.map(|(moves, position, score)| Labelled {
            line,
            moves,
            position,
            score,
        }),
    )
}

/// A labelled position of a board whose size is data
/// ([`crate::wide`]): [`Labelled`] of every size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The moves as written.
    pub moves: String,
    /// The position they reach.
    pub position: wide::Position,
    /// The exact score from the side to move.
    pub score: i32,
}

/// [`parse_line`] on the board of `shape`, the moves written in `base`.
pub fn parse_line_on(
    shape: &Shape,
    base: Base,
    line: usize,
    raw: &str,
) -> Result<Option<Entry>, FixtureError> {
    let read = |moves: &str| {
        let position = wide::Position::parse(shape, &base.to_notation(moves)?)?;
        Ok((
            position,
            position.check_in_play(shape),
            position.moves_played(),
        ))
    };
    Ok(
        fields(line, raw, shape.cells(), read)?.map(|(moves, position, score)| Entry {
            line,
            moves,
            position,
            score,
        }),
    )
}

/// A line's moves, position and score, the position read by `read`
/// (which also says whether the game goes on, and the moves played), on a
/// board of `cells` cells.
fn fields<P>(
    line: usize,
    raw: &str,
    cells: usize,
    read: impl FnOnce(&str) -> Result<(P, Result<(), SolveError>, u32), ParseError>,
) -> Result<Option<(String, P, i32)>, FixtureError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let mut fields = trimmed.split_whitespace();
    let (Some(moves), Some(score), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(FixtureError::Shape {
            line,
            text: raw.to_string(),
        });
    };
    let (position, in_play, moves_played) =
        read(moves).map_err(|source| FixtureError::Moves { line, source })?;
    in_play.map_err(|source| FixtureError::Finished { line, source })?;
    let score = score.parse().map_err(|_| FixtureError::Score {
        line,
        text: score.to_string(),
    })?;
    let range = crate::score::range(cells, moves_played);
    if !range.contains(&score) {
        return Err(FixtureError::ScoreRange {
            line,
            score,
            min: *range.start(),
            max: *range.end(),
            moves: moves_played,
        });
    }
    Ok(Some((moves.to_string(), position, score)))
}

/// Reads a whole fixture file's text.
pub fn parse<const W: usize, const H: usize>(
    text: &str,
) -> Result<Vec<Labelled<W, H>>, FixtureError> {
    read(text.as_bytes())
}

/// Reads a fixture file from `reader`, line by line with the length cap
/// of [`Lines`]: a file that is not a fixture (a binary, an endless
/// stream) is refused at its first line that is not one, a line over the
/// cap as soon as the cap is passed.
pub fn read<const W: usize, const H: usize>(
    reader: impl BufRead,
) -> Result<Vec<Labelled<W, H>>, FixtureError> {
    read_with(reader, parse_line)
}

/// [`read`] on the board of `shape`, the moves written in `base`.
pub fn read_on(
    shape: &Shape,
    base: Base,
    reader: impl BufRead,
) -> Result<Vec<Entry>, FixtureError> {
    read_with(reader, |line, text| parse_line_on(shape, base, line, text))
}

fn read_with<T>(
    reader: impl BufRead,
    mut parse: impl FnMut(usize, &str) -> Result<Option<T>, FixtureError>,
) -> Result<Vec<T>, FixtureError> {
    let mut set = Vec::new();
    let mut lines = Lines::new(reader).stopping_at_long_lines();
    while let Some((line, text)) = lines
        .next_line()
        .map_err(|e| FixtureError::Read(e.to_string()))?
    {
        let text = text.map_err(|source| FixtureError::Line { line, source })?;
        set.extend(parse(line, text)?);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_labels_and_skips_comments() {
        let set = parse::<7, 6>("# header\n\n12 3\n4453 -2\n").unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!((set[1].line, set[1].score), (4, -2));
        assert_eq!(set[1].position, Position::parse("4453").unwrap());
    }

    #[test]
    fn names_the_bad_line() {
        assert!(matches!(
            parse::<7, 6>("12\n"),
            Err(FixtureError::Shape { line: 1, .. })
        ));
        assert!(matches!(
            parse::<7, 6>("12 x\n"),
            Err(FixtureError::Score { line: 1, .. })
        ));
        assert!(matches!(
            parse::<7, 6>("ok 1\n19 1\n"),
            Err(FixtureError::Moves { line: 1, .. })
        ));
        let err = parse::<7, 6>("1 1\n19 1\n").unwrap_err();
        assert!(err.to_string().starts_with("line 2:"), "{err}");
    }

    /// The first game in column order that fills the board with no four.
    fn first_full_board(p: Position<4, 4>, moves: &mut String) -> Option<String> {
        if p.ending() == Some(crate::Ending::Draw) {
            return Some(moves.clone());
        }
        if p.is_game_over() {
            return None;
        }
        for col in p.playable_columns().collect::<Vec<_>>() {
            moves.push(char::from(b'1' + col as u8));
            if let Some(found) = first_full_board(p.after(col), moves) {
                return Some(found);
            }
            moves.pop();
        }
        None
    }

    #[test]
    fn refuses_what_cannot_be_a_label() {
        // Seven moves: the side to move scores -17..=18.
        assert!(parse::<7, 6>("4444443 18\n4444443 -17\n").is_ok());
        for bad in ["4444443 19", "4444443 -18", "12 99"] {
            assert!(
                matches!(parse::<7, 6>(bad), Err(FixtureError::ScoreRange { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            parse::<7, 6>("1212121 0"),
            Err(FixtureError::Finished { line: 1, .. })
        ));
        let full = first_full_board(Position::<4, 4>::new(), &mut String::new()).unwrap();
        assert!(matches!(
            parse::<4, 4>(&format!("{full} 0")),
            Err(FixtureError::Finished { line: 1, .. })
        ));
        let long = format!("{} 0", "4".repeat(5000));
        assert!(matches!(
            parse::<7, 6>(&long),
            Err(FixtureError::Line { line: 1, .. })
        ));
        assert!(matches!(
            read::<7, 6>(&b"12 0\n1\xff 0\n"[..]),
            Err(FixtureError::Line { line: 2, .. })
        ));
    }

    #[test]
    fn an_endless_line_ends_the_reading() {
        // An endless stream of one byte, as `/dev/zero` gives: refused as
        // soon as the first line passes the cap.
        let endless = std::io::BufReader::new(std::io::repeat(b'0'));
        assert!(matches!(
            read::<7, 6>(endless),
            Err(FixtureError::Line {
                line: 1,
                source: crate::input::LineError::TooLong { .. }
            })
        ));
    }
}
