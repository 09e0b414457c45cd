//! The classic engine's command line: the request read from its
//! arguments. What it prints is [`super::answer`](mod@super::answer).

use super::search::MAX_LEVEL;
use crate::board::Board;
use crate::error::ParseError;

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
pub(crate) fn parse_level(token: &str) -> Result<u32, ParseError> {
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
}
