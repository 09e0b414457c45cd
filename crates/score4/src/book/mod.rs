//! The opening book: the exact score of every position with at most
//! `depth` moves, so that the solver answers the opening at once.
//!
//! - this module: [`Book`], a sorted table of (position, score) read from
//!   its file, and its look-up;
//! - [`format`](mod@format): the file, its header and its checks;
//! - [`file`](mod@file): reading a book with bounds, saving one whole or not at
//!   all, and the lock a build or merge holds on its output;
//! - [`plan`]: what a book holds: every position enumerated, those with
//!   exactly `depth` moves (the leaves) cut into shares among machines if
//!   need be, and the shallower ones backed up by minimax;
//! - `bound`: how many positions a depth can hold at most, so that a plan
//!   too deep to list is refused before listing;
//! - [`build`]: the whole build, from options to the file: leaves solved
//!   by search on worker threads, progress, resumption, merging shares;
//! - [`checkpoint`]: the work of a build so far, kept on disk so that a
//!   killed build goes on where it stopped;
//! - [`check`](mod@check): a book checked against its plan and a sample
//!   re-solved by search.
//!
//! A position and its mirror image have the same score, so only the one
//! with the smaller key is stored.
//!
//! Books are for boards of every size up to 128 bits: positions are listed
//! and solved as [`wide`] positions, whose keys are those of
//! the compiled sizes on the boards both take. A record's key takes the
//! bytes its board's layout needs, so a 7x6 book stays 7x6's.
//!
//! ```
//! use score4::book::Book;
//! use score4::Position;
//! let book = Book::standard();
//! assert_eq!(book.shape(), &score4::wide::Shape::standard());
//! // The empty board: the first player wins with their last disc.
//! assert_eq!(book.score(&Position::<7, 6>::new()), Some(1));
//! ```

mod bound;
pub mod build;
pub mod check;
pub mod checkpoint;
pub mod file;
pub mod format;
pub mod plan;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

pub use check::{check, CheckError, CheckReport};
pub use file::FileError;
pub use format::{BookError, Kind};

use crate::position::Position;
use crate::wide::{self, Shape};

/// The 7x6 book built into the library (see docs/book.md for its depth and
/// how it was made).
const STANDARD: &[u8] = include_bytes!("7x6.book");

/// Exact scores of positions, keyed by the smaller of a position's key and
/// its mirror's. Read-only; cheap to share between solvers (`Arc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    shape: Shape,
    depth: u32,
    kind: Kind,
    /// Bytes of each record's key (the board's key width, rounded up).
    key_bytes: usize,
    /// The records, sorted by key: `key_bytes` little-endian key bytes,
    /// then the score as an `i8`.
    records: Cow<'static, [u8]>,
}

impl Book {
    /// The book built into the library for the standard 7x6 board.
    pub fn standard() -> Arc<Book> {
        static BOOK: OnceLock<Arc<Book>> = OnceLock::new();
        BOOK.get_or_init(|| {
            Arc::new(Book::from_static(STANDARD).expect("the built-in book is valid"))
        })
        .clone()
    }

    /// The board the book is for.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Positions with at most this many moves are in the book.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// A whole book, or a share of one being built.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Number of positions stored (mirror images once).
    pub fn len(&self) -> usize {
        self.records.len() / self.record_bytes()
    }

    /// Whether no position is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the book is for the `W` x `H` board.
    pub fn fits<const W: usize, const H: usize>(&self) -> bool {
        self.is_for(W, H)
    }

    /// Whether the book is for the `width` x `height` board.
    pub fn is_for(&self, width: usize, height: usize) -> bool {
        (self.shape.width(), self.shape.height()) == (width, height)
    }

    /// The exact score of `p` from the side to move, if the book holds it:
    /// a book of this board, `p` within its depth, and the game not over.
    pub fn score<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Option<i32> {
        if !self.fits::<W, H>() || p.moves_played() > self.depth {
            return None;
        }
        self.get(u128::from(p.canonical_key()))
    }

    /// [`score`](Self::score) of a position whose board is given as data.
    pub fn score_as_data(&self, shape: &Shape, p: &wide::Position) -> Option<i32> {
        if !self.is_for(shape.width(), shape.height()) || p.moves_played() > self.depth {
            return None;
        }
        self.get(p.canonical_key(shape))
    }

    /// The score stored for a canonical key.
    pub fn get(&self, key: u128) -> Option<i32> {
        let n = self.len();
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.key_at(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.score_at(mid)),
            }
        }
        None
    }

    /// Every (canonical key, score), in key order.
    pub fn entries(&self) -> impl Iterator<Item = (u128, i32)> + '_ {
        (0..self.len()).map(|i| (self.key_at(i), self.score_at(i)))
    }

    fn record_bytes(&self) -> usize {
        self.key_bytes + 1
    }

    fn key_at(&self, i: usize) -> u128 {
        let start = i * self.record_bytes();
        key_from(&self.records[start..start + self.key_bytes])
    }

    fn score_at(&self, i: usize) -> i32 {
        let at = i * self.record_bytes() + self.key_bytes;
        i32::from(self.records[at] as i8)
    }
}

/// Bytes of a record's key on a board: its layout's bits rounded up.
fn key_bytes(shape: &Shape) -> usize {
    (shape.layout_bits() as usize).div_ceil(8)
}

/// The key written in the little-endian `bytes` (at most 16).
fn key_from(bytes: &[u8]) -> u128 {
    let mut key = [0u8; 16];
    key[..bytes.len()].copy_from_slice(bytes);
    u128::from_le_bytes(key)
}
