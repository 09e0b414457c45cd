//! The book file: a small header, then fixed-size records sorted by key.
//!
//! ```text
//! offset  bytes  field (integers little-endian)
//!      0      8  magic "score4bk"
//!      8      2  format version (1)
//!     10      1  board width
//!     11      1  board height
//!     12      1  depth: every position with at most this many moves
//!     13      1  kind: 0 a whole book, 1 a share being built
//!     14      2  share index, from 1 (1 for a whole book)
//!     16      2  share count (1 for a whole book)
//!     18      8  number of records
//!     26      8  checksum: FNV-1a (64-bit) of bytes 0..26 and every record
//!     34         records: the key in ceil(width * (height + 1) / 8) bytes
//!                (at most 16),
//!                then the score as a signed byte; keys strictly increasing
//! ```
//!
//! A whole book holds every position with at most `depth` moves; a share
//! holds the positions with exactly `depth` moves that its builder solved,
//! which `book merge` joins and completes. Nothing in a file is trusted:
//! a wrong magic, version, board, length, checksum, order or score is
//! refused with the reason.

use std::borrow::Cow;

use thiserror::Error;

use super::plan::MAX_POSITIONS;
use super::{key_bytes, key_from, Book};
use crate::wide::Shape;

const MAGIC: &[u8; 8] = b"score4bk";
/// The version this code writes and reads.
pub const VERSION: u16 = 1;
/// Bytes of the header, before the records.
pub const HEADER_BYTES: usize = 34;
/// Where the checksum sits: it covers the bytes before it and the records.
const CHECKSUM_AT: usize = 26;

/// A whole book or one share of one being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every position with at most the depth's moves.
    Book,
    /// Share `index` (from 1) of `count`: the deepest positions it solved.
    Share {
        /// Which share, from 1.
        index: u16,
        /// How many shares the work is cut into.
        count: u16,
    },
}

/// Why bytes are not a book that can be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BookError {
    /// Not a score4 book at all.
    #[error("not a score4 book (no 'score4bk' header)")]
    NotABook,
    /// A book of a format this build does not read.
    #[error("book format version {found}, but this score4 reads version {VERSION}")]
    Version {
        /// The version in the file.
        found: u16,
    },
    /// The header names a board score4 does not support.
    #[error("book for an unsupported board {width}x{height}")]
    Board {
        /// Width in the header.
        width: u8,
        /// Height in the header.
        height: u8,
    },
    /// The header is inconsistent (kind, share, depth).
    #[error("corrupt book header: {0}")]
    Header(&'static str),
    /// Fewer or more bytes than the header announces.
    #[error("book has {found} bytes where its header announces {expected}: truncated or corrupt")]
    Length {
        /// Bytes announced.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The records do not match the checksum.
    #[error("book checksum mismatch: corrupt file")]
    Checksum,
    /// Keys out of order, or a score no position can have.
    #[error("corrupt book: record {0} is out of order or out of range")]
    Record(usize),
    /// A book for another board than the one asked for.
    #[error("book is for {}x{}, not {}x{}", .found.0, .found.1, .wanted.0, .wanted.1)]
    WrongBoard {
        /// The book's board, width and height.
        found: (usize, usize),
        /// The board in use, width and height.
        wanted: (usize, usize),
    },
}

impl Book {
    /// A book from the records of its positions, in any order; a key
    /// given twice keeps its first score.
    ///
    /// # Panics
    ///
    /// If memory for the records runs out; see
    /// [`try_from_entries`](Self::try_from_entries).
    pub fn from_entries(shape: Shape, depth: u32, kind: Kind, entries: Vec<(u128, i8)>) -> Book {
        Self::try_from_entries(shape, depth, kind, entries).expect("memory for the book's records")
    }

    /// [`from_entries`](Self::from_entries), or `None` if the system
    /// refuses memory for the records.
    pub fn try_from_entries(
        shape: Shape,
        depth: u32,
        kind: Kind,
        mut entries: Vec<(u128, i8)>,
    ) -> Option<Book> {
        entries.sort_by_key(|&(key, _)| key);
        entries.dedup_by_key(|&mut (key, _)| key);
        let key_bytes = key_bytes(&shape);
        let mut records = Vec::new();
        records
            .try_reserve_exact(entries.len() * (key_bytes + 1))
            .ok()?;
        for (key, score) in entries {
            records.extend_from_slice(&key.to_le_bytes()[..key_bytes]);
            records.push(score as u8);
        }
        Some(Book {
            shape,
            depth,
            kind,
            key_bytes,
            records: Cow::Owned(records),
        })
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (index, count) = match self.kind {
            Kind::Book => (1, 1),
            Kind::Share { index, count } => (index, count),
        };
        let mut out = Vec::with_capacity(HEADER_BYTES + self.records.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(self.shape.width() as u8);
        out.push(self.shape.height() as u8);
        out.push(self.depth as u8);
        out.push(u8::from(matches!(self.kind, Kind::Share { .. })));
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        let sum = checksum(&out, &self.records);
        out.extend_from_slice(&sum.to_le_bytes());
        out.extend_from_slice(&self.records);
        out
    }

    /// Reads a book file's bytes, checking everything.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Book, BookError> {
        let (mut book, start) = Self::check(&bytes)?;
        let mut records = bytes;
        records.drain(..start);
        book.records = Cow::Owned(records);
        Ok(book)
    }

    /// Reads a book that lives as long as the program (one built in).
    pub fn from_static(bytes: &'static [u8]) -> Result<Book, BookError> {
        let (mut book, start) = Self::check(bytes)?;
        book.records = Cow::Borrowed(&bytes[start..]);
        Ok(book)
    }

    /// The length in bytes of the book whose file starts with `head`,
    /// after checking everything its header says: what a reader needs to
    /// know before reading the rest, so that a file of any other length
    /// (an endless device, a forged header) is refused unread.
    pub fn file_len(head: &[u8]) -> Result<u64, BookError> {
        Self::header(head).map(|(_, len)| len)
    }

    /// The book's description from its header (with no records yet) and
    /// the length its file must have.
    fn header(bytes: &[u8]) -> Result<(Book, u64), BookError> {
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err(BookError::NotABook);
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let version = u16_at(8);
        if version != VERSION {
            return Err(BookError::Version { found: version });
        }
        let (width, height) = (bytes[10], bytes[11]);
        let shape = Shape::new(usize::from(width), usize::from(height))
            .map_err(|_| BookError::Board { width, height })?;
        let depth = u32::from(bytes[12]);
        if depth as usize > shape.cells() {
            return Err(BookError::Header("depth beyond the board's cells"));
        }
        let (index, count) = (u16_at(14), u16_at(16));
        let kind = match bytes[13] {
            0 if (index, count) == (1, 1) => Kind::Book,
            1 if (1..=count).contains(&index) => Kind::Share { index, count },
            _ => return Err(BookError::Header("bad kind or share")),
        };
        let key_bytes = key_bytes(&shape);
        let entries = u64_at(bytes, 18);
        if entries > MAX_POSITIONS as u64 {
            return Err(BookError::Header("more records than any book holds"));
        }
        let len = entries * (key_bytes as u64 + 1) + HEADER_BYTES as u64;
        let described = Book {
            shape,
            depth,
            kind,
            key_bytes,
            records: Cow::Borrowed(&[]),
        };
        Ok((described, len))
    }

    /// Checks `bytes` whole and returns the book's description (with no
    /// records yet) and where its records start.
    fn check(bytes: &[u8]) -> Result<(Book, usize), BookError> {
        let (described, expected) = Self::header(bytes)?;
        if expected != bytes.len() as u64 {
            return Err(BookError::Length {
                expected,
                found: bytes.len() as u64,
            });
        }
        let (cells, key_bytes) = (described.shape.cells(), described.key_bytes);
        let records = &bytes[HEADER_BYTES..];
        if checksum(&bytes[..CHECKSUM_AT], records) != u64_at(bytes, CHECKSUM_AT) {
            return Err(BookError::Checksum);
        }
        // The best score any position can have: a win with the first disc.
        let best = crate::score::best(cells);
        let mut previous = None;
        for (i, record) in records.chunks_exact(key_bytes + 1).enumerate() {
            let key = key_from(&record[..key_bytes]);
            let score = i32::from(record[key_bytes] as i8);
            if previous.is_some_and(|p| p >= key) || score.abs() > best {
                return Err(BookError::Record(i));
            }
            previous = Some(key);
        }
        Ok((described, HEADER_BYTES))
    }

    /// This book if it is for the board `shape`, else why not.
    pub fn check_board(&self, shape: &Shape) -> Result<(), BookError> {
        let wanted = (shape.width(), shape.height());
        if self.is_for(wanted.0, wanted.1) {
            Ok(())
        } else {
            Err(BookError::WrongBoard {
                found: (self.shape.width(), self.shape.height()),
                wanted,
            })
        }
    }
}

/// The little-endian `u64` at `at` of `bytes`.
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// FNV-1a over `head` then `records`: enough to catch a damaged or
/// edited file (this is not a defence against forgery).
fn checksum(head: &[u8], records: &[u8]) -> u64 {
    crate::checksum::fnv1a([head, records])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Book {
        let shape = Shape::new(5, 4).unwrap();
        Book::from_entries(shape, 3, Kind::Book, vec![(9, -2), (3, 1), (700, 0)])
    }

    #[test]
    fn round_trips_and_finds_every_key() {
        let book = sample();
        let again = Book::from_bytes(book.to_bytes()).unwrap();
        assert_eq!(again, book);
        assert_eq!(
            again.entries().collect::<Vec<_>>(),
            [(3, 1), (9, -2), (700, 0)]
        );
        assert_eq!((again.get(9), again.get(10)), (Some(-2), None));
    }

    #[test]
    fn keys_take_the_bytes_their_board_needs() {
        // 7x6: 56 bits, 7 bytes; 8x8: 72 bits, 9; 16x7: 128 bits, 16.
        for (shape, bytes) in [((7, 6), 7), ((8, 8), 9), ((16, 7), 16)] {
            let shape = Shape::new(shape.0, shape.1).unwrap();
            let top = u128::MAX >> (128 - shape.layout_bits());
            let keys = [0, 1, top >> 1, top - 1, top];
            let entries = keys.iter().map(|&k| (k, (k % 5) as i8 - 2)).collect();
            let book = Book::from_entries(shape, 4, Kind::Book, entries);
            let file = book.to_bytes();
            assert_eq!(file.len(), HEADER_BYTES + keys.len() * (bytes + 1));
            let again = Book::from_bytes(file).unwrap();
            for k in keys {
                assert_eq!(again.get(k), Some((k % 5) as i32 - 2), "{shape} key {k}");
            }
            assert_eq!(again.get(top - 2), None);
        }
    }

    #[test]
    fn every_damage_is_refused() {
        let bytes = sample().to_bytes();
        assert_eq!(Book::from_bytes(vec![]), Err(BookError::NotABook));
        assert_eq!(
            Book::from_bytes(bytes[..bytes.len() - 1].to_vec()),
            Err(BookError::Length {
                expected: bytes.len() as u64,
                found: bytes.len() as u64 - 1
            })
        );
        // Every single-bit flip anywhere is caught.
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut bad = bytes.clone();
                bad[at] ^= 1 << bit;
                assert!(Book::from_bytes(bad).is_err(), "byte {at} bit {bit}");
            }
        }
        // A score beyond a win with the first disc (21 on 7x6).
        let seven = Shape::standard();
        let too_good = Book::from_entries(seven, 2, Kind::Book, vec![(1, 22)]);
        assert_eq!(
            Book::from_bytes(too_good.to_bytes()),
            Err(BookError::Record(0))
        );
        let best = Book::from_entries(seven, 2, Kind::Book, vec![(1, 21), (2, -21)]);
        assert!(Book::from_bytes(best.to_bytes()).is_ok());
        let mut newer = bytes.clone();
        newer[8] = 2;
        assert_eq!(
            Book::from_bytes(newer),
            Err(BookError::Version { found: 2 })
        );
    }
}
