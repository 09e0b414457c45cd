//! Text from outside, read with care: lines of bounded length, and what is
//! echoed back in error messages quoted, escaped and shortened.
//!
//! Every reader of user text (stdin, fixture files, and later books and
//! requests) goes through [`Lines`] or [`check_line`], so that a line of
//! gigabytes is refused without being held in memory, and every message
//! that repeats user text shows it through [`Quoted`], so that a message
//! is always one line and never carries a terminal's escape sequences.
//!
//! ```
//! use score4::input::{Lines, LineError, Quoted};
//! let mut lines = Lines::new("4453 1\n12\u{1b}[31m\n".as_bytes());
//! let (number, text) = lines.next_line().unwrap().unwrap();
//! assert_eq!((number, text), (1, Ok("4453 1")));
//! let (_, text) = lines.next_line().unwrap().unwrap();
//! assert_eq!(Quoted::new(text.unwrap()).to_string(), r"'12\u{1b}[31m'");
//! assert!(lines.next_line().unwrap().is_none());
//! ```

use std::fmt;
use std::io::{self, BufRead};
use std::path::Path;

use thiserror::Error;

/// The longest line read, in bytes, not counting its line end. A position
/// has fewer than 64 moves (a board's cells, with a sentinel above each
/// column, fit in 64 bits: at most 60 cells, on 4x15), so a line of
/// moves, a score and a comment fits with room to spare; anything longer
/// is not a position.
pub const LINE_CAP: usize = 1024;

/// How many characters of a token a message shows before shortening it:
/// enough for a whole game on the largest boards (at most 60 cells).
pub const SHOWN_CHARS: usize = 64;

/// Why a line cannot be read as text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    /// The line is longer than the cap.
    #[error("longer than {cap} bytes")]
    TooLong {
        /// The cap it exceeds.
        cap: usize,
    },
    /// The line is not UTF-8.
    #[error("{}: not valid UTF-8", Quoted::new(.0))]
    NotUtf8(Vec<u8>),
}

/// `bytes` as text, or why it is not a line: longer than `cap`, or not
/// UTF-8. For input that is already in memory, such as a command-line
/// argument.
pub fn check_line(bytes: &[u8], cap: usize) -> Result<&str, LineError> {
    if bytes.len() > cap {
        return Err(LineError::TooLong { cap });
    }
    std::str::from_utf8(bytes).map_err(|_| LineError::NotUtf8(bytes.to_vec()))
}

/// Reads numbered lines of at most a capped length. A longer line is
/// reported and skipped without being stored; a line that is not UTF-8
/// is reported and the next one read, so one bad line never ends the
/// input. Line ends are `\n` or `\r\n`.
pub struct Lines<R> {
    reader: R,
    cap: usize,
    buf: Vec<u8>,
    number: usize,
    /// Whether a line over the cap ends the reading at once instead of
    /// being read to its end and skipped.
    stop_long: bool,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, capped at [`LINE_CAP`] bytes.
    pub fn new(reader: R) -> Self {
        Self::with_cap(reader, LINE_CAP)
    }

    /// Lines of `reader`, capped at `cap` bytes.
    pub fn with_cap(reader: R, cap: usize) -> Self {
        Lines {
            reader,
            cap,
            buf: Vec::new(),
            number: 0,
            stop_long: false,
        }
    }

    /// These lines, but a line over the cap is reported as soon as the cap
    /// is passed, without reading to its end: for input whose first bad
    /// line ends the reading (a fixture file), so that an endless line
    /// (`/dev/zero`) ends it too. Read no further after that error: the
    /// next line would be the rest of the long one.
    pub fn stopping_at_long_lines(mut self) -> Self {
        self.stop_long = true;
        self
    }

    /// Whether the first line of a file of records, its header, is
    /// `expected`. A first line over the cap ends the reading there (an
    /// endless one, `/dev/zero`, is no header), where a long line after it
    /// is skipped as one damaged record (a block zeroed by a crash).
    pub fn header_is(&mut self, expected: &str) -> io::Result<bool> {
        self.stop_long = true;
        let is = matches!(self.next_line()?, Some((_, Ok(header))) if header == expected);
        self.stop_long = false;
        Ok(is)
    }

    /// The next line's number (from 1) and its text or what is wrong with
    /// it; `None` at the end of the input. An error here is the reader's
    /// own (a file that cannot be read), after which the input is over.
    #[allow(clippy::type_complexity)]
    pub fn next_line(&mut self) -> io::Result<Option<(usize, Result<&str, LineError>)>> {
        self.buf.clear();
        // Room for the longest line the cap allows and its "\r\n"; a line
        // that fills it is too long whatever follows, and its rest is
        // consumed without being kept.
        let room = self.cap.saturating_add(2);
        let mut overflowed = false;
        let mut read_any = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let (used, ended) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !overflowed {
                let keep = used.min(room - self.buf.len());
                self.buf.extend_from_slice(&chunk[..keep]);
                overflowed = keep < used || (!ended && self.buf.len() == room);
            }
            self.reader.consume(used);
            if ended || (overflowed && self.stop_long) {
                break;
            }
        }
        self.number += 1;
        let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = if overflowed {
            Err(LineError::TooLong { cap: self.cap })
        } else {
            check_line(line, self.cap)
        };
        Ok(Some((self.number, text)))
    }
}

/// User text as a message shows it: in single quotes, every control or
/// invisible character escaped as Rust escapes it (`\n`, `\u{1b}`), bytes
/// that are not UTF-8 as `\xNN`, and cut after [`SHOWN_CHARS`]
/// characters with the full length in bytes given.
///
/// ```
/// use score4::input::Quoted;
/// assert_eq!(Quoted::new("o5\n3").to_string(), r"'o5\n3'");
/// assert_eq!(Quoted::new(b"12\xff").to_string(), r"'12\xff'");
/// let long = "1".repeat(1000);
/// assert_eq!(Quoted::new(&long).to_string(), format!("'{}'... (1000 bytes)", "1".repeat(64)));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(&'a [u8]);

impl<'a> Quoted<'a> {
    /// Quotes `text`, which need not be UTF-8.
    pub fn new<T: AsRef<[u8]> + ?Sized>(text: &'a T) -> Self {
        Quoted(text.as_ref())
    }
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("'")?;
        let mut shown = 0;
        let mut cut = false;
        'chunks: for chunk in self.0.utf8_chunks() {
            for c in chunk.valid().chars() {
                if shown == SHOWN_CHARS {
                    cut = true;
                    break 'chunks;
                }
                shown += 1;
                match c {
                    // Quotes of the other kind need no escape here.
                    '"' => f.write_str("\"")?,
                    _ => write!(f, "{}", c.escape_debug())?,
                }
            }
            for byte in chunk.invalid() {
                if shown == SHOWN_CHARS {
                    cut = true;
                    break 'chunks;
                }
                shown += 1;
                write!(f, "\\x{byte:02x}")?;
            }
        }
        f.write_str("'")?;
        if cut {
            write!(f, "... ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

/// `message` on one line with nothing a terminal would act on: control
/// and invisible characters escaped as in [`Quoted`]. For messages built
/// by others (an argument parser's) that may repeat user text.
pub fn one_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if c == '"' || c == '\'' || c == '\\' {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// `path` as messages show it: through [`Quoted`], as any user text.
pub fn quoted_path(path: &Path) -> String {
    Quoted::new(path.as_os_str().as_encoded_bytes()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(input: &[u8], cap: usize) -> Vec<Result<String, LineError>> {
        let mut lines = Lines::with_cap(input, cap);
        let mut out = Vec::new();
        let mut expected = 1;
        while let Some((number, text)) = lines.next_line().unwrap() {
            assert_eq!(number, expected);
            expected += 1;
            out.push(text.map(str::to_string));
        }
        out
    }

    #[test]
    fn splits_lines_like_the_standard_library_within_the_cap() {
        for input in ["", "a", "a\n", "a\r\nb", "\n\n", "ab\r\n\r\nc\n", "a\rb\n"] {
            let ours: Vec<_> = all_lines(input.as_bytes(), 10)
                .into_iter()
                .map(Result::unwrap)
                .collect();
            let std: Vec<_> = input.lines().map(str::to_string).collect();
            // A line end is "\n" or "\r\n" for both (a lone final "\r",
            // which `str::lines` keeps, is dropped here, as Windows
            // editors leave it).
            assert_eq!(ours, std, "{input:?}");
        }
    }

    #[test]
    fn refuses_long_lines_and_goes_on() {
        let tight = "abcd\nabcde\nabc\r\nabcdef\r\nx".as_bytes();
        let got = all_lines(tight, 4);
        let too_long = Err(LineError::TooLong { cap: 4 });
        assert_eq!(
            got,
            vec![
                Ok("abcd".into()),
                too_long.clone(),
                Ok("abc".into()),
                too_long,
                Ok("x".into())
            ]
        );
    }

    #[test]
    fn a_long_line_is_not_stored() {
        // 8 MiB of 0xff in small reads: refused, and the buffer never
        // grows past the cap.
        let big = vec![0xffu8; 8 << 20];
        let reader = io::BufReader::with_capacity(64, &big[..]);
        let mut lines = Lines::with_cap(reader, 16);
        let (_, text) = lines.next_line().unwrap().unwrap();
        assert_eq!(text, Err(LineError::TooLong { cap: 16 }));
        assert!(lines.buf.capacity() < 1024, "{}", lines.buf.capacity());
        assert!(lines.next_line().unwrap().is_none());
    }

    #[test]
    fn a_bad_line_is_one_line() {
        let got = all_lines(b"12\xff\n34\n", 10);
        assert_eq!(got[0], Err(LineError::NotUtf8(b"12\xff".to_vec())));
        assert_eq!(got[1], Ok("34".into()));
    }

    #[test]
    fn quoted_text_is_one_short_line() {
        for text in [
            "\u{1b}[31m".as_bytes(),
            b"a\nb\rc",
            b"\xff\xfe",
            "\u{202e}x".as_bytes(),
            &[b'\n'; 5000],
        ] {
            let shown = Quoted::new(text).to_string();
            assert!(
                shown.chars().all(|c| !c.is_control() && c != '\u{202e}'),
                "{shown}"
            );
            assert!(shown.len() < 16 * SHOWN_CHARS, "{shown}");
        }
    }

    #[test]
    fn one_line_escapes_only_what_must_be() {
        assert_eq!(one_line("it's \"x\" a\\b"), "it's \"x\" a\\b");
        assert_eq!(one_line("a\nb\u{1b}"), r"a\nb\u{1b}");
    }
}
