//! The work of a book build so far, kept on disk as it comes, so that a
//! killed build goes on where it stopped.
//!
//! The file is a header naming the build, then one record per solved
//! position, appended as each is solved:
//!
//! ```text
//! header (16 bytes)                               record (9 bytes)
//! +----------+---------+---+---+-------+-----+-----+   +-------------+-------+
//! | score4ck | version | W | H | depth | I   | N   |   | key (u64 LE)| score |
//! +----------+---------+---+---+-------+-----+-----+   +-------------+-------+
//!   8 bytes    1         1   1   1       u16   u16       8 bytes       i8
//! ```
//!
//! `I`/`N` is the share being built, `0/0` for a whole book. A killed
//! build loses at most the record it was writing: reading keeps the
//! records up to the first that is not a score of one of the build's
//! positions (a torn write, or blocks a crash left zeroed) and cuts the
//! file there, so that the next records line up.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::canonical_key;
use crate::position::Position;
use crate::size::BoardSize;

const MAGIC: &[u8; 8] = b"score4ck";
/// The format, after the magic.
const VERSION: u8 = 1;
/// Bytes of a header.
const HEADER: usize = MAGIC.len() + 8;
/// Bytes of a record: the key, then the score.
const RECORD: usize = 9;

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
}

fn failed(action: &'static str) -> impl FnOnce(io::Error) -> CheckpointError {
    move |source| CheckpointError::Io { action, source }
}

/// Which build a checkpoint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildId {
    /// The board.
    pub size: BoardSize,
    /// The book's depth.
    pub depth: u32,
    /// The share being built (from 1) and the number of shares, or `None`
    /// for the whole book.
    pub share: Option<(u16, u16)>,
}

impl BuildId {
    fn header(&self) -> [u8; HEADER] {
        let (index, count) = self.share.unwrap_or((0, 0));
        let mut h = [0u8; HEADER];
        h[..MAGIC.len()].copy_from_slice(MAGIC);
        let fields = [
            VERSION,
            self.size.width() as u8,
            self.size.height() as u8,
            self.depth as u8,
        ];
        h[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&fields);
        h[MAGIC.len() + 4..MAGIC.len() + 6].copy_from_slice(&index.to_le_bytes());
        h[MAGIC.len() + 6..].copy_from_slice(&count.to_le_bytes());
        h
    }
}

/// The scores a build has found so far, by canonical key, and the file
/// that keeps them.
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    done: HashMap<u64, i8>,
}

impl Checkpoint {
    /// Opens the checkpoint at `path` of the build `id`, which solves
    /// `positions`, reading what it holds, or starts one. A checkpoint of
    /// another build is refused rather than mixed in.
    pub fn open<const W: usize, const H: usize>(
        path: &Path,
        id: BuildId,
        positions: &[Position<W, H>],
    ) -> Result<Self, CheckpointError> {
        let header = id.header();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(failed("open"))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(failed("read"))?;
        let mut done = HashMap::new();
        if bytes.is_empty() {
            file.write_all(&header).map_err(failed("write"))?;
        } else {
            if !bytes.starts_with(&header) {
                return Err(CheckpointError::OtherBuild);
            }
            let positions: HashMap<u64, &Position<W, H>> =
                positions.iter().map(|p| (canonical_key(p), p)).collect();
            let mut whole = HEADER;
            for record in bytes[HEADER..].chunks_exact(RECORD) {
                let mut key = [0u8; 8];
                key.copy_from_slice(&record[..8]);
                let key = u64::from_le_bytes(key);
                let score = record[8] as i8;
                let valid = positions
                    .get(&key)
                    .is_some_and(|p| p.score_range().contains(&i32::from(score)));
                if !valid {
                    break;
                }
                done.insert(key, score);
                whole += RECORD;
            }
            if whole < bytes.len() {
                file.set_len(whole as u64)
                    .and_then(|()| file.seek(io::SeekFrom::End(0)).map(drop))
                    .map_err(failed("repair"))?;
            }
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            done,
        })
    }

    /// Keeps the score of the position with canonical key `key`.
    pub fn record(&mut self, key: u64, score: i8) -> Result<(), CheckpointError> {
        let mut record = [0u8; RECORD];
        record[..8].copy_from_slice(&key.to_le_bytes());
        record[8] = score as u8;
        self.file.write_all(&record).map_err(failed("write"))?;
        self.done.insert(key, score);
        Ok(())
    }

    /// The score found for the position with canonical key `key`.
    pub fn score(&self, key: u64) -> Option<i8> {
        self.done.get(&key).copied()
    }

    /// Whether the position with canonical key `key` is solved.
    pub fn contains(&self, key: u64) -> bool {
        self.done.contains_key(&key)
    }

    /// Deletes the file: the build is saved elsewhere.
    pub fn remove(self) -> io::Result<()> {
        drop(self.file);
        fs::remove_file(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::build::Plan;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("score4-ck-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let _ = fs::remove_file(&path);
        path
    }

    #[test]
    fn records_survive_a_reopen_and_a_torn_tail_is_cut() {
        let plan = Plan::<5, 4>::new(4);
        let leaves = plan.leaves();
        let id = BuildId {
            size: BoardSize::of::<5, 4>(),
            depth: 4,
            share: None,
        };
        let path = scratch("torn.partial");
        let mut ck = Checkpoint::open(&path, id, leaves).unwrap();
        for (i, p) in leaves.iter().take(5).enumerate() {
            ck.record(canonical_key(p), i as i8 - 2).unwrap();
        }
        drop(ck);
        let whole = fs::metadata(&path).unwrap().len();
        assert_eq!(whole as usize, HEADER + 5 * RECORD);
        // A torn record: half of one more.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[7; RECORD / 2]).unwrap();
        drop(f);
        let mut ck = Checkpoint::open(&path, id, leaves).unwrap();
        for (i, p) in leaves.iter().take(5).enumerate() {
            assert_eq!(ck.score(canonical_key(p)), Some(i as i8 - 2));
        }
        assert!(!ck.contains(canonical_key(&leaves[5])));
        assert_eq!(fs::metadata(&path).unwrap().len(), whole);
        // The next record lines up after the cut.
        ck.record(canonical_key(&leaves[5]), 0).unwrap();
        drop(ck);
        let ck = Checkpoint::open(&path, id, leaves).unwrap();
        assert_eq!(ck.score(canonical_key(&leaves[5])), Some(0));
        ck.remove().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn another_build_is_refused() {
        let plan = Plan::<5, 4>::new(3);
        let id = BuildId {
            size: BoardSize::of::<5, 4>(),
            depth: 3,
            share: Some((1, 2)),
        };
        let path = scratch("other.partial");
        drop(Checkpoint::open(&path, id, plan.leaves()).unwrap());
        for other in [
            BuildId { depth: 4, ..id },
            BuildId { share: None, ..id },
            BuildId {
                share: Some((2, 2)),
                ..id
            },
            BuildId {
                size: BoardSize::of::<4, 5>(),
                ..id
            },
        ] {
            assert!(matches!(
                Checkpoint::open(&path, other, plan.leaves()),
                Err(CheckpointError::OtherBuild)
            ));
        }
        let _ = fs::remove_file(&path);
    }
}
