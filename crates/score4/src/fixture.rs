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

use thiserror::Error;

use crate::error::ParseError;
use crate::position::Position;

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
    #[error("line {line}: expected `MOVES SCORE`, found '{text}'")]
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
    /// The score is not an integer.
    #[error("line {line}: score '{text}' is not an integer")]
    Score {
        /// 1-based line number.
        line: usize,
        /// The field as found.
        text: String,
    },
}

/// Reads a whole fixture file's text.
pub fn parse<const W: usize, const H: usize>(
    text: &str,
) -> Result<Vec<Labelled<W, H>>, FixtureError> {
    let mut set = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut fields = trimmed.split_whitespace();
        let (Some(moves), Some(score), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(FixtureError::Shape {
                line,
                text: raw.to_string(),
            });
        };
        let position =
            Position::parse(moves).map_err(|source| FixtureError::Moves { line, source })?;
        let score = score.parse().map_err(|_| FixtureError::Score {
            line,
            text: score.to_string(),
        })?;
        set.push(Labelled {
            line,
            moves: moves.to_string(),
            position,
            score,
        });
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
}
