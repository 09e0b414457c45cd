//! Board sizes chosen at run time: which ones a program built on this
//! library can offer, and how to reach the monomorphised code for each.
//!
//! Every type of the library takes its width and height as const generic
//! parameters, so each size gets code as fast as the standard one. A
//! program that lets its user pick the size (`--board 5x4`) parses a
//! [`BoardSize`] and calls its generic code through [`with_board_size!`](crate::with_board_size),
//! which expands to one call per supported size.
//!
//! ```
//! use score4::{with_board_size, BoardSize, Position, Solver};
//! fn empty_board<const W: usize, const H: usize>() -> i32 {
//!     Solver::<W, H>::new().solve(&Position::new())
//! }
//! let size: BoardSize = "4x4".parse().unwrap();
//! assert_eq!(with_board_size!(size, empty_board()), 0);
//! assert!("10x4".parse::<BoardSize>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Fewest columns supported: a line of four must fit across.
pub const MIN_WIDTH: usize = 4;
/// Most columns supported: moves are one digit each, `1..=9`.
pub const MAX_WIDTH: usize = 9;
/// Fewest rows supported: a line of four must fit upright.
pub const MIN_HEIGHT: usize = 4;
/// Most bits of the layout (each column's cells and its sentinel): one `u64`.
pub const MAX_LAYOUT_BITS: usize = 64;

/// A board size within the supported limits: `width` in
/// [`MIN_WIDTH`]`..=`[`MAX_WIDTH`], `height` at least [`MIN_HEIGHT`], and
/// `width * (height + 1)` at most [`MAX_LAYOUT_BITS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    width: usize,
    height: usize,
}

/// Why a board size is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SizeError {
    /// Not of the form `WxH`.
    #[error("{} is not a board size: expected WIDTHxHEIGHT, such as 7x6", crate::input::Quoted::new(.0))]
    Malformed(String),
    /// A width or height outside every supported limit.
    #[error("{width}x{height} is not supported: the width must be {MIN_WIDTH} to {}, the height at least {MIN_HEIGHT}, and width * (height + 1) at most {}", crate::wide::shape::MAX_WIDTH, crate::wide::shape::MAX_LAYOUT_BITS)]
    Unsupported {
        /// The width asked for.
        width: usize,
        /// The height asked for.
        height: usize,
    },
    /// A size past 64 bits or nine columns, which only the solver of
    /// [`wide`](crate::wide) boards takes so far.
    #[error("{width}x{height} is not supported: the width must be {MIN_WIDTH} to {MAX_WIDTH}, the height at least {MIN_HEIGHT}, and width * (height + 1) at most {MAX_LAYOUT_BITS}")]
    NotCompiled {
        /// The width asked for.
        width: usize,
        /// The height asked for.
        height: usize,
    },
}

impl BoardSize {
    /// The standard 7x6 board.
    pub const STANDARD: BoardSize = BoardSize {
        width: 7,
        height: 6,
    };

    /// The size `width` x `height`, if supported.
    pub const fn new(width: usize, height: usize) -> Result<BoardSize, SizeError> {
        if !Self::supports(width, height) {
            if crate::wide::Shape::supports(width, height) {
                return Err(SizeError::NotCompiled { width, height });
            }
            return Err(SizeError::Unsupported { width, height });
        }
        Ok(BoardSize { width, height })
    }

    /// Whether `width` x `height` is within the supported limits (see
    /// [`new`](Self::new)).
    pub const fn supports(width: usize, height: usize) -> bool {
        width >= MIN_WIDTH
            && width <= MAX_WIDTH
            && height >= MIN_HEIGHT
            && height <= MAX_LAYOUT_BITS
            && width * (height + 1) <= MAX_LAYOUT_BITS
    }

    /// The size of the board code compiled for `W` x `H` works on.
    ///
    /// # Panics
    ///
    /// If that size is not supported (see [`new`](Self::new)).
    pub fn of<const W: usize, const H: usize>() -> BoardSize {
        match Self::new(W, H) {
            Ok(size) => size,
            Err(e) => panic!("{e}"),
        }
    }

    /// Number of columns.
    pub const fn width(self) -> usize {
        self.width
    }

    /// Number of rows.
    pub const fn height(self) -> usize {
        self.height
    }

    /// Whether this size's search is compiled for it; the other sizes run
    /// the search of sizes as data (see [`wide`](crate::wide)), with the
    /// same answers.
    pub fn is_compiled(self) -> bool {
        crate::solver::engine::is_compiled(self.width(), self.height())
    }

    /// Every supported size, by width then height.
    pub fn all() -> impl Iterator<Item = BoardSize> {
        (MIN_WIDTH..=MAX_WIDTH).flat_map(|width| {
            (MIN_HEIGHT..=MAX_LAYOUT_BITS)
                .filter_map(move |height| BoardSize::new(width, height).ok())
        })
    }
}

impl Default for BoardSize {
    fn default() -> Self {
        BoardSize::STANDARD
    }
}

impl FromStr for BoardSize {
    type Err = SizeError;
    fn from_str(text: &str) -> Result<BoardSize, SizeError> {
        let (width, height) = parse_dimensions(text)?;
        BoardSize::new(width, height)
    }
}

/// The width and height of `WxH`, whatever their size: the one reader of
/// board sizes.
pub(crate) fn parse_dimensions(text: &str) -> Result<(usize, usize), SizeError> {
    let malformed = || SizeError::Malformed(text.escape_debug().take(40).collect());
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(malformed)?;
    let number = |s: &str| {
        // Plain decimal digits only: no sign, no spaces.
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        s.parse::<usize>().map_err(|_| malformed())
    };
    Ok((number(w)?, number(h)?))
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Calls the generic function `f::<W, H>(args...)` with the width and
/// height of a [`BoardSize`] as const parameters: one arm per supported
/// size, so each call runs code compiled for its size.
///
/// The function is named by a path without its generic arguments:
/// `with_board_size!(size, solve::run(args))` calls `solve::run::<W, H>(args)`.
#[macro_export]
macro_rules! with_board_size {
    ($size:expr, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {{
        let size: $crate::BoardSize = $size;
        match (size.width(), size.height()) {
            (4, 4) => $($f)::+::<4, 4>($($arg),*),
            (4, 5) => $($f)::+::<4, 5>($($arg),*),
            (4, 6) => $($f)::+::<4, 6>($($arg),*),
            (4, 7) => $($f)::+::<4, 7>($($arg),*),
            (4, 8) => $($f)::+::<4, 8>($($arg),*),
            (4, 9) => $($f)::+::<4, 9>($($arg),*),
            (4, 10) => $($f)::+::<4, 10>($($arg),*),
            (4, 11) => $($f)::+::<4, 11>($($arg),*),
            (4, 12) => $($f)::+::<4, 12>($($arg),*),
            (4, 13) => $($f)::+::<4, 13>($($arg),*),
            (4, 14) => $($f)::+::<4, 14>($($arg),*),
            (4, 15) => $($f)::+::<4, 15>($($arg),*),
            (5, 4) => $($f)::+::<5, 4>($($arg),*),
            (5, 5) => $($f)::+::<5, 5>($($arg),*),
            (5, 6) => $($f)::+::<5, 6>($($arg),*),
            (5, 7) => $($f)::+::<5, 7>($($arg),*),
            (5, 8) => $($f)::+::<5, 8>($($arg),*),
            (5, 9) => $($f)::+::<5, 9>($($arg),*),
            (5, 10) => $($f)::+::<5, 10>($($arg),*),
            (5, 11) => $($f)::+::<5, 11>($($arg),*),
            (6, 4) => $($f)::+::<6, 4>($($arg),*),
            (6, 5) => $($f)::+::<6, 5>($($arg),*),
            (6, 6) => $($f)::+::<6, 6>($($arg),*),
            (6, 7) => $($f)::+::<6, 7>($($arg),*),
            (6, 8) => $($f)::+::<6, 8>($($arg),*),
            (6, 9) => $($f)::+::<6, 9>($($arg),*),
            (7, 4) => $($f)::+::<7, 4>($($arg),*),
            (7, 5) => $($f)::+::<7, 5>($($arg),*),
            (7, 6) => $($f)::+::<7, 6>($($arg),*),
            (7, 7) => $($f)::+::<7, 7>($($arg),*),
            (7, 8) => $($f)::+::<7, 8>($($arg),*),
            (8, 4) => $($f)::+::<8, 4>($($arg),*),
            (8, 5) => $($f)::+::<8, 5>($($arg),*),
            (8, 6) => $($f)::+::<8, 6>($($arg),*),
            (8, 7) => $($f)::+::<8, 7>($($arg),*),
            (9, 4) => $($f)::+::<9, 4>($($arg),*),
            (9, 5) => $($f)::+::<9, 5>($($arg),*),
            (9, 6) => $($f)::+::<9, 6>($($arg),*),
            _ => unreachable!("BoardSize holds only supported sizes"),
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims<const W: usize, const H: usize>() -> (usize, usize) {
        (W, H)
    }

    #[test]
    fn every_supported_size_dispatches_to_its_own_code() {
        let all: Vec<BoardSize> = BoardSize::all().collect();
        assert_eq!(all.len(), 38);
        for size in all {
            assert_eq!(
                with_board_size!(size, dims()),
                (size.width(), size.height())
            );
        }
    }

    #[test]
    fn parses_and_refuses() {
        assert_eq!("7x6".parse(), Ok(BoardSize::STANDARD));
        assert_eq!(
            "4X15".parse::<BoardSize>().map(|s| s.to_string()),
            Ok("4x15".into())
        );
        for bad in [
            "",
            "7",
            "x6",
            "7x",
            "7x6x",
            "+7x6",
            "7 x6",
            "7x-6",
            "1000000x6",
            "7x6\n",
        ] {
            assert!(
                matches!(bad.parse::<BoardSize>(), Err(SizeError::Malformed(_))),
                "{bad}"
            );
        }
        for (w, h) in [(3, 6), (7, 3), (17, 4), (4, 32), (16, 8)] {
            assert_eq!(
                format!("{w}x{h}").parse::<BoardSize>(),
                Err(SizeError::Unsupported {
                    width: w,
                    height: h
                })
            );
        }
        // Past the compiled sizes, within 128 bits: the run-time sizes.
        for (w, h) in [(10, 4), (9, 7), (4, 16), (8, 8), (16, 7), (4, 31)] {
            assert_eq!(
                format!("{w}x{h}").parse::<BoardSize>(),
                Err(SizeError::NotCompiled {
                    width: w,
                    height: h
                })
            );
        }
        // The limits are inclusive.
        for (w, h) in [(4, 4), (9, 6), (4, 15), (8, 7), (5, 11)] {
            assert!(BoardSize::new(w, h).is_ok(), "{w}x{h}");
        }
    }
}
