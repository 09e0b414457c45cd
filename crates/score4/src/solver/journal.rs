//! The solver's journal: the bounds its costliest searches proved, kept on
//! disk as they are found, so that a solve killed after hours starts again
//! from close to where it stopped.
//!
//! A bound in the table is a fact about a position, whatever the window or
//! the root of the search that found it; the table can only forget it. So
//! every search whose subtree took at least `min_work` positions also
//! appends its bound to the journal, as does every question's root (a
//! solve's probe, a split job) whatever it took, and a solver that opens
//! the journal again puts every bound it holds back into its table before
//! it searches (and again after each clear). A killed search then redoes only the
//! subtrees it had not finished, each below `min_work` positions or on the
//! path it was on. Searches of one board share a journal whatever their
//! roots: the jobs of a split solve, the moves of a game.
//!
//! The file is a header `score4-journal VERSION WxH`, then one line per
//! bound: `KEY MOVES LOWER UPPER BEST WORK CHECK`, where KEY is the table
//! key of the position (see [`Position::key`](crate::Position::key)) in
//! hexadecimal, MOVES the moves played, BEST the column of the best move
//! seen from that key's side (or `-`), WORK the positions searched, and
//! CHECK the FNV-1a of the header and the line. Each line is written with
//! one call and not synced: a killed process loses nothing the system has
//! taken, and a crash of the machine at most the last lines. A lost line is
//! only work to do again; a line cut short or damaged fails its checksum
//! and is skipped, never trusted.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use thiserror::Error;

use crate::input::{quoted_path, Lines};
use crate::score;

/// First word of a journal's header.
const MAGIC: &str = "score4-journal";
/// Version of the format; a change of the key or of the score convention
/// must change it, so that no journal is read with another meaning.
const VERSION: u32 = 1;

/// Why a journal cannot be used.
#[derive(Debug, Error)]
pub enum JournalError {
    /// The file is the journal of another board, or not a journal.
    #[error("{path}: not a journal of the {width}x{height} board")]
    OtherBoard {
        /// The file, quoted.
        path: String,
        /// This solver's width.
        width: usize,
        /// This solver's height.
        height: usize,
    },
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file, quoted.
        path: String,
        /// What failed.
        source: io::Error,
    },
}

/// What opening a journal found in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JournalLoaded {
    /// Lines whose checksum held: bounds that are used.
    pub bounds: usize,
    /// Distinct positions among them.
    pub positions: usize,
    /// Lines that failed their checksum (or did not parse), skipped.
    pub damaged: usize,
}

/// One kept bound: the score of a position lies in `lower..=upper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kept {
    pub(super) moves: u32,
    pub(super) lower: i32,
    pub(super) upper: i32,
    pub(super) best: Option<usize>,
    pub(super) work: u64,
}

impl Kept {
    /// What both `self` and `other` (of the same position) prove.
    fn merged(self, other: Kept) -> Kept {
        Kept {
            moves: self.moves,
            lower: self.lower.max(other.lower),
            upper: self.upper.min(other.upper),
            best: if other.work >= self.work {
                other.best.or(self.best)
            } else {
                self.best.or(other.best)
            },
            work: self.work.max(other.work),
        }
    }
}

/// A journal open for appending, with every bound it holds.
pub(super) struct Journal {
    header: String,
    path: String,
    width: usize,
    cells: usize,
    /// Bits of the board's keys: a line whose key has more is damaged.
    key_bits: u32,
    /// Searches of at least this many positions are kept.
    pub(super) min_work: u64,
    state: Mutex<State>,
}

struct State {
    file: File,
    /// Every bound kept, by key, merged.
    bounds: HashMap<u128, Kept>,
    /// The first write that failed; nothing more is written after it.
    error: Option<io::Error>,
}

impl Journal {
    /// Opens (or creates) the journal at `path` for the `width` x
    /// `height` board, whose keys have `key_bits` bits, and reads what it
    /// holds.
    pub(super) fn open(
        path: &Path,
        width: usize,
        height: usize,
        key_bits: u32,
        min_work: u64,
    ) -> Result<(Journal, JournalLoaded), JournalError> {
        let quoted_path = quoted_path(path);
        let io = |source| JournalError::Io {
            path: quoted_path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        let journal = |file| Journal {
            header: format!("{MAGIC} {VERSION} {width}x{height}"),
            path: quoted_path.clone(),
            width,
            cells: width * height,
            key_bits,
            min_work,
            state: Mutex::new(State {
                file,
                bounds: HashMap::new(),
                error: None,
            }),
        };
        let len = file.metadata().map_err(io)?.len();
        if len == 0 {
            let journal = journal(file);
            let header = format!("{}\n", journal.header);
            journal.write(header.as_bytes()).map_err(io)?;
            return Ok((journal, JournalLoaded::default()));
        }
        // A line cut short by a crash is ended, so that the next bound
        // starts a line of its own.
        let mut last = [0u8];
        file.seek(SeekFrom::End(-1)).map_err(io)?;
        file.read_exact(&mut last).map_err(io)?;
        let journal = journal(file);
        let loaded = journal.load(path)?;
        if last[0] != b'\n' {
            journal.write(b"\n").map_err(io)?;
        }
        Ok((journal, loaded))
    }

    /// Reads every line of the file at `path` into the bounds.
    fn load(&self, path: &Path) -> Result<JournalLoaded, JournalError> {
        let io = |source| JournalError::Io {
            path: self.path.clone(),
            source,
        };
        let file = BufReader::new(File::open(path).map_err(io)?);
        let mut lines = Lines::new(file);
        if !lines.header_is(&self.header).map_err(io)? {
            return Err(JournalError::OtherBoard {
                path: self.path.clone(),
                width: self.width,
                height: self.cells / self.width,
            });
        }
        let mut loaded = JournalLoaded::default();
        let mut state = self.state();
        while let Some((_, line)) = lines.next_line().map_err(io)? {
            // A line too long or not UTF-8 is damage like any other.
            match line.ok().and_then(|line| self.read_line(line)) {
                Some((key, kept)) => {
                    merge(&mut state.bounds, key, kept);
                    loaded.bounds += 1;
                }
                None => loaded.damaged += 1,
            }
        }
        loaded.positions = state.bounds.len();
        Ok(loaded)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A thread that panicked while holding the lock left the map and
        // the file whole: every change to them is one call.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        self.state().file.write_all(bytes)
    }

    /// The checksum of a line's text.
    fn check(&self, text: &str) -> u64 {
        crate::checksum::fnv1a([self.header.as_bytes(), b"\n", text.as_bytes()])
    }

    /// A line's key and bound, if its checksum holds and its fields make
    /// sense on this board.
    fn read_line(&self, line: &str) -> Option<(u128, Kept)> {
        let (text, check) = line.rsplit_once(' ')?;
        if check.len() != 16 || u64::from_str_radix(check, 16).ok()? != self.check(text) {
            return None;
        }
        let mut fields = text.split(' ');
        let key = u128::from_str_radix(fields.next()?, 16)
            .ok()
            .filter(|key| key.checked_shr(self.key_bits).unwrap_or(0) == 0)?;
        let moves: u32 = fields.next()?.parse().ok()?;
        let lower: i32 = fields.next()?.parse().ok()?;
        let upper: i32 = fields.next()?.parse().ok()?;
        let best = match fields.next()? {
            "-" => None,
            col => Some(col.parse::<usize>().ok().filter(|&c| c < self.width)?),
        };
        let work: u64 = fields.next()?.parse().ok()?;
        let most = score::win(self.cells, 0);
        let sound = fields.next().is_none()
            && (moves as usize) < self.cells
            && -most <= lower
            && lower <= upper
            && upper <= most;
        sound.then_some((
            key,
            Kept {
                moves,
                lower,
                upper,
                best,
                work,
            },
        ))
    }

    /// Keeps a proven bound: in memory, and on disk unless a write has
    /// failed already.
    pub(super) fn keep(&self, key: u128, kept: Kept) {
        let best = kept.best.map_or("-".to_string(), |c| c.to_string());
        let text = format!(
            "{key:x} {} {} {} {best} {}",
            kept.moves, kept.lower, kept.upper, kept.work
        );
        let line = format!("{text} {:016x}\n", self.check(&text));
        let mut state = self.state();
        merge(&mut state.bounds, key, kept);
        if state.error.is_none() {
            if let Err(e) = state.file.write_all(line.as_bytes()) {
                state.error = Some(e);
            }
        }
    }

    /// Every bound kept, by key.
    pub(super) fn each(&self, mut f: impl FnMut(u128, Kept)) {
        for (&key, &kept) in &self.state().bounds {
            f(key, kept);
        }
    }

    /// The first write that failed, if any.
    pub(super) fn error(&self) -> Option<JournalError> {
        self.state().error.as_ref().map(|e| JournalError::Io {
            path: self.path.clone(),
            source: io::Error::new(e.kind(), e.to_string()),
        })
    }
}

fn merge(bounds: &mut HashMap<u128, Kept>, key: u128, kept: Kept) {
    bounds
        .entry(key)
        .and_modify(|old| *old = old.merged(kept))
        .or_insert(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key with a bit past the board's key bits is damage, whatever its
    /// checksum says: the table of a smaller board cannot hold it.
    #[test]
    fn keys_past_the_boards_bits_are_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal");
        let kept = Kept {
            moves: 3,
            lower: -2,
            upper: 2,
            best: Some(1),
            work: 5_000,
        };
        // 4x4, 8x7 and 6x10: keys of 20, 64 and 66 bits.
        for (width, height) in [(4, 4), (8, 7), (6, 10)] {
            let key_bits = (width * (height + 1)) as u32;
            std::fs::remove_file(&path).ok();
            let (journal, _) = Journal::open(&path, width, height, key_bits, 1_000).unwrap();
            journal.keep((1 << key_bits) - 1, kept);
            journal.keep(1 << key_bits, kept);
            drop(journal);
            let (again, loaded) = Journal::open(&path, width, height, key_bits, 1_000).unwrap();
            assert_eq!((loaded.bounds, loaded.damaged), (1, 1), "{key_bits} bits");
            let mut keys = Vec::new();
            again.each(|key, _| keys.push(key));
            assert_eq!(keys, [(1 << key_bits) - 1], "{key_bits} bits");
        }
    }
}
