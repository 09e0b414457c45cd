//! The work of a book build so far, kept on disk as it comes, so that a
//! killed build goes on where it stopped.
//!
//! The file is a header naming the build, then one record per solved
//! position, appended as each is solved:
//!
//! ```text
//! header (16 bytes)                               record (13 or 21 bytes)
//! +----------+---------+---+---+-------+-----+-----+   +-------------+-------+-------+
//! | score4ck | version | W | H | depth | I   | N   |   | key (LE)    | score | CRC32 |
//! +----------+---------+---+---+-------+-----+-----+   +-------------+-------+-------+
//!   8 bytes    1 (2)     1   1   1       u16   u16       8 or 16       i8      u32 LE
//! ```
//!
//! The key takes 8 bytes on a board of at most 64 bits, 16 on a larger one.
//! `I`/`N` is the share being built, `0/0` for a whole book. Each
//! record's CRC-32 covers the header and the record's key and score, so
//! that a torn write, blocks a crash left zeroed, flipped bits or a
//! record of another build fail it. Reading keeps exactly the records
//! whose CRC passes and which score one of the build's positions within
//! its range; if anything else was found, the file is rewritten with
//! those records only (atomically), so that the next records line up.
//!
//! Each record is written to the system at once (a killed process loses
//! nothing it wrote), and the file is synced every few seconds and at the
//! end (a power cut loses at most the last seconds). Format 1 had no
//! checks: its files are refused, with a message saying to remove them.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::clock::Instant;

use super::file::{open_regular, sync_dir, temporary_beside};
use crate::checksum::{crc32, crc32_update};
use crate::wide::{Position, Shape};

const MAGIC: &[u8; 8] = b"score4ck";
/// The format, after the magic.
const VERSION: u8 = 2;
/// Bytes of a header.
const HEADER: usize = MAGIC.len() + 8;
/// Bytes of a record besides its key: the score and the CRC.
const RECORD_TAIL: usize = 5;
/// Bytes of the longest record: a 16-byte key.
const MAX_RECORD: usize = 16 + RECORD_TAIL;
/// Longest time records stay unsynced.
const SYNC_EVERY: Duration = Duration::from_secs(5);

/// Why a checkpoint could not be opened or kept.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading, writing or repairing the file failed.
    #[error("cannot {action}: {source}")]
    Io {
        /// What was being done: "open", "read", "write" or "repair".
        action: &'static str,
        /// Why it failed.
        source: io::Error,
    },
    /// The file is the checkpoint of a build with other options.
    #[error("holds the work of another build (board, depth or share): remove it, or build with its options")]
    OtherBuild,
    /// The file is a checkpoint of an older format.
    #[error("is a checkpoint of format {found}, which this score4 (format {VERSION}) does not trust: remove it to build again")]
    OldFormat {
        /// The format found.
        found: u8,
    },
    /// The file is no checkpoint at all.
    #[error("is not a score4 checkpoint: remove it, or choose another output")]
    NotACheckpoint,
    /// The system refused memory for the scores.
    #[error("not enough memory to hold the scores it lists")]
    Memory,
}

fn failed(action: &'static str) -> impl FnOnce(io::Error) -> CheckpointError {
    move |source| CheckpointError::Io { action, source }
}

/// Which build a checkpoint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildId {
    /// The board.
    pub shape: Shape,
    /// The book's depth.
    pub depth: u32,
    /// The share being built (from 1) and the number of shares, or `None`
    /// for the whole book.
    pub share: Option<(u16, u16)>,
}

impl BuildId {
    /// The header of this build's checkpoint.
    pub fn header(&self) -> [u8; HEADER] {
        let (index, count) = self.share.unwrap_or((0, 0));
        let mut h = [0u8; HEADER];
        h[..MAGIC.len()].copy_from_slice(MAGIC);
        let fields = [
            VERSION,
            self.shape.width() as u8,
            self.shape.height() as u8,
            self.depth as u8,
        ];
        h[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&fields);
        h[MAGIC.len() + 4..MAGIC.len() + 6].copy_from_slice(&index.to_le_bytes());
        h[MAGIC.len() + 6..].copy_from_slice(&count.to_le_bytes());
        h
    }

    /// Bytes of a key in this build's records: a `u64`'s on the boards
    /// that fit one, as before there were larger boards.
    fn key_bytes(&self) -> usize {
        if self.shape.layout_bits() <= 64 {
            8
        } else {
            16
        }
    }

    /// Bytes of each record of this build's checkpoint.
    pub fn record_bytes(&self) -> usize {
        self.key_bytes() + RECORD_TAIL
    }

    /// The record of `key`'s `score` in this build's checkpoint.
    pub fn record(&self, key: u128, score: i8) -> Vec<u8> {
        let k = self.key_bytes();
        let mut r = Vec::with_capacity(self.record_bytes());
        r.extend_from_slice(&key.to_le_bytes()[..k]);
        r.push(score as u8);
        let crc = crc32(crc32_update(crc32_update(!0, &self.header()), &r));
        r.extend_from_slice(&crc.to_le_bytes());
        r
    }
}

/// The scores a build has found so far, by canonical key, and the file
/// that keeps them.
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    id: BuildId,
    done: HashMap<u128, i8>,
    synced: Instant,
}

impl Checkpoint {
    /// Opens the checkpoint at `path` of the build `id`, which solves
    /// `positions`, reading what it holds, or starts one. A checkpoint of
    /// another build or format is refused rather than mixed in; damaged
    /// records are dropped.
    pub fn open(path: &Path, id: BuildId, positions: &[Position]) -> Result<Self, CheckpointError> {
        let header = id.header();
        let mut file = open_regular(
            OpenOptions::new().read(true).append(true).create(true),
            path,
        )
        .map_err(failed("open"))?;
        let mut done = HashMap::new();
        let mut reader = BufReader::with_capacity(1 << 16, &mut file);
        let mut head = Vec::with_capacity(HEADER);
        (&mut reader)
            .take(HEADER as u64)
            .read_to_end(&mut head)
            .map_err(failed("read"))?;
        let mut damaged = false;
        if head.len() < HEADER && header.starts_with(&head) {
            // Empty, or killed while writing its header: nothing was done.
            damaged = !head.is_empty();
        } else if !head.starts_with(MAGIC) {
            return Err(CheckpointError::NotACheckpoint);
        } else if head[MAGIC.len()] != VERSION {
            return Err(CheckpointError::OldFormat {
                found: head[MAGIC.len()],
            });
        } else if head[..] != header {
            return Err(CheckpointError::OtherBuild);
        } else {
            let shape = &id.shape;
            let mut range: HashMap<u128, std::ops::RangeInclusive<i32>> = HashMap::new();
            range
                .try_reserve(positions.len())
                .map_err(|_| CheckpointError::Memory)?;
            range.extend(positions.iter().map(|p| {
                let scores = crate::score::range(shape.cells(), p.moves_played());
                (p.canonical_key(shape), scores)
            }));
            let (key_bytes, record_bytes) = (id.key_bytes(), id.record_bytes());
            let mut buffer = [0u8; MAX_RECORD];
            let record = &mut buffer[..record_bytes];
            loop {
                let got = read_full(&mut reader, record).map_err(failed("read"))?;
                if got < record_bytes {
                    damaged |= got > 0;
                    break;
                }
                let key = super::key_from(&record[..key_bytes]);
                let score = record[key_bytes] as i8;
                let valid = id.record(key, score) == *record
                    && range
                        .get(&key)
                        .is_some_and(|r| r.contains(&i32::from(score)))
                    && !done.contains_key(&key);
                if valid {
                    done.try_reserve(1).map_err(|_| CheckpointError::Memory)?;
                    done.insert(key, score);
                } else {
                    damaged = true;
                }
            }
        }
        drop(reader);
        if damaged || head.len() < HEADER {
            file = rewrite(path, &id, &done).map_err(failed("repair"))?;
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            id,
            done,
            synced: Instant::now(),
        })
    }

    /// Keeps the score of the position with canonical key `key`.
    pub fn record(&mut self, key: u128, score: i8) -> Result<(), CheckpointError> {
        self.file
            .write_all(&self.id.record(key, score))
            .map_err(failed("write"))?;
        if self.synced.elapsed() >= SYNC_EVERY {
            self.file.sync_data().map_err(failed("write"))?;
            self.synced = Instant::now();
        }
        self.done
            .try_reserve(1)
            .map_err(|_| CheckpointError::Memory)?;
        self.done.insert(key, score);
        Ok(())
    }

    /// Syncs every record to the disk.
    pub fn sync(&mut self) -> Result<(), CheckpointError> {
        self.file.sync_data().map_err(failed("write"))?;
        self.synced = Instant::now();
        Ok(())
    }

    /// The score found for the position with canonical key `key`.
    pub fn score(&self, key: u128) -> Option<i8> {
        self.done.get(&key).copied()
    }

    /// Whether the position with canonical key `key` is solved.
    pub fn contains(&self, key: u128) -> bool {
        self.done.contains_key(&key)
    }

    /// How many positions are solved.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// Whether no position is solved yet.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// Deletes the file: the build is saved elsewhere.
    pub fn remove(self) -> io::Result<()> {
        // Closed before it is deleted (a file of the browser's std, which
        // has no files, has nothing to close).
        #[cfg_attr(target_family = "wasm", allow(clippy::drop_non_drop))]
        drop(self.file);
        fs::remove_file(&self.path)
    }
}

/// Reads into `buf` until it is full or the input ends; how many bytes.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Replaces the checkpoint at `path` by its header and the records of
/// `done` (a new file renamed into place, so that a crash now leaves the
/// old file or the new one), and opens it for appending.
fn rewrite(path: &Path, id: &BuildId, done: &HashMap<u128, i8>) -> io::Result<File> {
    let mut temporary = temporary_beside(path)?;
    {
        let mut out = io::BufWriter::new(temporary.as_file_mut());
        out.write_all(&id.header())?;
        for (&key, &score) in done {
            out.write_all(&id.record(key, score))?;
        }
        out.flush()?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|e| e.error)?;
    sync_dir(path);
    open_regular(OpenOptions::new().read(true).append(true), path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::plan::Plan;
    use score4_testkit::Scratch;

    /// A path for the file `name` in a fresh directory, which goes when
    /// the first value is dropped.
    fn scratch(name: &str) -> (Scratch, PathBuf) {
        let dir = Scratch::new("checkpoint");
        let path = dir.join(name);
        (dir, path)
    }

    /// A board whose keys take 8 bytes in a record, and one whose take 16.
    fn boards() -> [Shape; 2] {
        [Shape::any(5, 4), Shape::any(13, 4)]
    }

    #[test]
    fn records_survive_a_reopen_and_a_torn_tail_is_cut() {
        for shape in boards() {
            torn_tail_is_cut(&shape);
        }
    }

    fn torn_tail_is_cut(shape: &Shape) {
        let plan = Plan::new(shape, 4);
        let leaves = plan.leaves();
        let id = BuildId {
            shape: *shape,
            depth: 4,
            share: None,
        };
        let record = id.record_bytes();
        let (_dir, path) = scratch("torn.partial");
        let mut ck = Checkpoint::open(&path, id, leaves).unwrap();
        for (i, p) in leaves.iter().take(5).enumerate() {
            ck.record(p.canonical_key(shape), i as i8 - 2).unwrap();
        }
        drop(ck);
        let whole = fs::metadata(&path).unwrap().len();
        assert_eq!(whole as usize, HEADER + 5 * record);
        // A torn record: half of one more.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&id.record(leaves[5].canonical_key(shape), 1)[..record / 2])
            .unwrap();
        drop(f);
        let mut ck = Checkpoint::open(&path, id, leaves).unwrap();
        for (i, p) in leaves.iter().take(5).enumerate() {
            assert_eq!(ck.score(p.canonical_key(shape)), Some(i as i8 - 2));
        }
        assert!(!ck.contains(leaves[5].canonical_key(shape)));
        assert_eq!(fs::metadata(&path).unwrap().len(), whole);
        // The next record lines up after the cut.
        ck.record(leaves[5].canonical_key(shape), 0).unwrap();
        drop(ck);
        let ck = Checkpoint::open(&path, id, leaves).unwrap();
        assert_eq!(ck.score(leaves[5].canonical_key(shape)), Some(0));
        ck.remove().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_zeroed_or_flipped_record_is_dropped_and_the_others_kept() {
        for shape in boards() {
            damaged_records_are_dropped(&shape);
        }
    }

    fn damaged_records_are_dropped(shape: &Shape) {
        let plan = Plan::new(shape, 4);
        let leaves = plan.leaves();
        let id = BuildId {
            shape: *shape,
            depth: 4,
            share: None,
        };
        let (record, score_at) = (id.record_bytes(), id.key_bytes());
        let (_dir, path) = scratch("flip.partial");
        let mut ck = Checkpoint::open(&path, id, leaves).unwrap();
        for p in leaves.iter().take(6) {
            ck.record(p.canonical_key(shape), 0).unwrap();
        }
        drop(ck);
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER + score_at] ^= 0x01; // record 0's score: 0 becomes 1
        bytes[HEADER + 2 * record..HEADER + 3 * record].fill(0); // record 2
        fs::write(&path, &bytes).unwrap();
        let ck = Checkpoint::open(&path, id, leaves).unwrap();
        let kept: Vec<bool> = leaves[..6]
            .iter()
            .map(|p| ck.contains(p.canonical_key(shape)))
            .collect();
        assert_eq!(kept, [false, true, false, true, true, true]);
        assert_eq!(ck.len(), 4);
        assert_eq!(
            fs::metadata(&path).unwrap().len() as usize,
            HEADER + 4 * record
        );
        ck.remove().unwrap();
    }

    #[test]
    fn another_build_or_format_is_refused() {
        let plan = Plan::new(&Shape::any(5, 4), 3);
        let id = BuildId {
            shape: Shape::any(5, 4),
            depth: 3,
            share: Some((1, 2)),
        };
        let (_dir, path) = scratch("other.partial");
        drop(Checkpoint::open(&path, id, plan.leaves()).unwrap());
        for other in [
            BuildId { depth: 4, ..id },
            BuildId { share: None, ..id },
            BuildId {
                share: Some((2, 2)),
                ..id
            },
            BuildId {
                shape: Shape::any(4, 5),
                ..id
            },
        ] {
            assert!(matches!(
                Checkpoint::open(&path, other, plan.leaves()),
                Err(CheckpointError::OtherBuild)
            ));
        }
        let mut old = id.header().to_vec();
        old[MAGIC.len()] = 1;
        fs::write(&path, &old).unwrap();
        assert!(matches!(
            Checkpoint::open(&path, id, plan.leaves()),
            Err(CheckpointError::OldFormat { found: 1 })
        ));
        fs::write(&path, b"4453 1\n").unwrap();
        assert!(matches!(
            Checkpoint::open(&path, id, plan.leaves()),
            Err(CheckpointError::NotACheckpoint)
        ));
        let _ = fs::remove_file(&path);
    }
}
