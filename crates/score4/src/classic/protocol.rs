//! The classic engine's command line: the request read from its
//! arguments, and the answer printed as the original prints it, with its
//! exit status.

use std::fmt;

use super::search::MAX_LEVEL;
use crate::bitboard::Standard;
use crate::board::{Board, Colour};
use crate::error::ParseError;

type G = Standard;

const WIDTH: usize = G::WIDTH;

/// The search depth when no `-level` is given.
pub const DEFAULT_LEVEL: u32 = 7;

const DEBUG: &str = "-debug";
const LEVEL: &str = "-level";
const PERFECT: &str = "-perfect";

/// The flags the protocol reads: `-debug`, `-level` (followed by its value)
/// and `-perfect` (ours; the original has no such flag).
pub const FLAGS: [&str; 3] = [DEBUG, LEVEL, PERFECT];

/// What every cell token starts with: orange's and yellow's letters.
const CELL_PREFIXES: [char; 2] = ['o', 'y'];

/// Whether the protocol reads `token` (a flag, or a token meant as a cell)
/// rather than skipping it: a command with other grammars besides the
/// protocol can tell from its first argument that the protocol is meant.
///
/// ```
/// use score4::classic::is_protocol_token;
/// assert!(is_protocol_token("o53") && is_protocol_token("-level"));
/// assert!(!is_protocol_token("solve") && !is_protocol_token("-verbose"));
/// ```
pub fn is_protocol_token(token: &str) -> bool {
    token.starts_with(CELL_PREFIXES) || FLAGS.contains(&token)
}

/// One engine invocation, read from the protocol's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The board; the engine plays orange.
    pub board: Board,
    /// Search depth in plies, `1..=MAX_LEVEL`.
    pub level: u32,
    /// Whether to report each root column's value.
    pub debug: bool,
    /// Whether `-perfect` was given (play by exact solution instead of the
    /// classic search).
    pub perfect: bool,
}

impl Request {
    /// Reads the protocol's arguments: cell tokens in any order, `-debug`,
    /// `-perfect` and `-level N` anywhere (the last `-level` counts).
    ///
    /// Any other token is skipped, as the original skips it, unless it
    /// starts with `o` or `y`: those are meant as cells, so one that is not
    /// a cell on the board is an error rather than a disc silently lost.
    /// So are a floating disc, a cell given twice, and a `-level` without a
    /// value from 1 to [`MAX_LEVEL`]; the error names the offending token.
    ///
    /// ```
    /// use score4::classic::Request;
    /// let r = Request::parse(["o53", "-level", "3", "y43", "-debug"]).unwrap();
    /// assert_eq!((r.level, r.debug, r.perfect), (3, true, false));
    /// assert_eq!(Request::parse(["o53", "-verbose"]), Request::parse(["o53"]));
    /// assert!(Request::parse(["o53", "-level"]).is_err());
    /// assert!(Request::parse(["o5"]).is_err());
    /// ```
    pub fn parse<I, S>(args: I) -> Result<Self, ParseError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut level = DEFAULT_LEVEL;
        let (mut debug, mut perfect) = (false, false);
        let mut cells: Vec<S> = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_ref() {
                DEBUG => debug = true,
                PERFECT => perfect = true,
                LEVEL => {
                    let value = args.next().ok_or_else(|| bad_level(LEVEL))?;
                    level = parse_level(value.as_ref())?;
                }
                token if token.starts_with(CELL_PREFIXES) => cells.push(arg),
                _ => {}
            }
        }
        let board = Board::from_cells(cells)?;
        Ok(Request {
            board,
            level,
            debug,
            perfect,
        })
    }
}

/// A level is one or more decimal digits naming a depth in `1..=MAX_LEVEL`.
fn parse_level(token: &str) -> Result<u32, ParseError> {
    let bad = || bad_level(token);
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match token.parse::<u32>() {
        Ok(level) if (1..=MAX_LEVEL).contains(&level) => Ok(level),
        _ => Err(bad()),
    }
}

/// The error for a level token that is missing (`-level` last) or bad.
fn bad_level(token: &str) -> ParseError {
    ParseError::BadLevel {
        token: token.to_string(),
        max: MAX_LEVEL,
    }
}

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

    fn parse(args: &[&str]) -> Result<Request, ParseError> {
        Request::parse(args.iter())
    }

    #[test]
    fn flags_go_anywhere_and_the_last_level_counts() {
        let r = parse(&["-level", "3", "o53", "-debug", "y43", "-level", "12"]).unwrap();
        assert_eq!(r.level, 12);
        assert!(r.debug && !r.perfect);
        assert_eq!(r.board, Board::from_cells(["y43", "o53"]).unwrap());
        let r = parse(&[]).unwrap();
        assert_eq!((r.level, r.debug), (DEFAULT_LEVEL, false));
        assert_eq!(r.board, Board::default());
        assert!(parse(&["-perfect", "o53"]).unwrap().perfect);
        assert_eq!(parse(&["-level", "099"]).unwrap().level, 99);
        assert_eq!(parse(&["-level", "100"]).unwrap().level, 100);
        let max = MAX_LEVEL.to_string();
        assert_eq!(parse(&["-level", &max]).unwrap().level, MAX_LEVEL);
    }

    #[test]
    fn bad_tokens_are_named() {
        let bad = |args: &[&str]| parse(args).unwrap_err();
        assert_eq!(bad(&["o53", "-level"]), bad_level("-level"));
        let above = (MAX_LEVEL + 1).to_string();
        for level in ["0", &above, "abc", "", "-3", "+3", "7x", "99999999999"] {
            assert_eq!(bad(&["-level", level, "o53"]), bad_level(level));
        }
        assert_eq!(bad(&["o5"]), ParseError::MalformedCell("o5".into()));
        assert_eq!(bad(&["yes"]), ParseError::MalformedCell("yes".into()));
        assert_eq!(bad(&["o73"]), ParseError::CellOutOfRange("o73".into()));
        assert_eq!(bad(&["o43"]), ParseError::FloatingDisc("o43".into()));
        assert_eq!(
            bad(&["o53", "y53"]),
            ParseError::DuplicateCell("y53".into())
        );
    }

    #[test]
    fn unknown_tokens_are_skipped() {
        let plain = parse(&["o53", "-level", "3", "y43"]).unwrap();
        let noisy = [
            "x53", "-Debug", "--level", "-verbose", "12", "", "O53", "hello", "o53", "-level", "3",
            "y43",
        ];
        assert_eq!(parse(&noisy).unwrap(), plain);
        // `-level` takes the next token as its value, whatever it is.
        assert_eq!(
            parse(&["-level", "-verbose", "5"]).unwrap_err(),
            bad_level("-verbose")
        );
    }

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
