//! Books on disk: read with bounds, written whole or not at all, and an
//! output that one build or merge at a time may write.
//!
//! - [`Book::load`] reads the header first and refuses a file whose
//!   length (from its metadata, or as read from a device or pipe) is not
//!   the one the header announces, so that `/dev/zero` or a forged header
//!   is refused without reading gigabytes.
//! - [`Book::save`] writes a uniquely named temporary file created with
//!   `O_EXCL` beside the output (never through a symlink), syncs it and
//!   renames it over the output: readers see the old book or the new one.
//! - [`OutputLock`] is an advisory lock on `OUT.lock` that a build or
//!   merge holds from its first step to its last, so that a second one of
//!   the same output is refused at once instead of sharing its checkpoint
//!   or its file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::format::HEADER_BYTES;
use super::{Book, BookError, Kind};
use crate::input::quoted_path;
use crate::wide::Shape;

/// Why a book file could not be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("cannot read {name}: {source}")]
    Read {
        /// The file, quoted.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// The file was read but is not a usable book.
    #[error("{name}: {source}")]
    Book {
        /// The file, quoted.
        name: String,
        /// Why.
        source: BookError,
    },
    /// A share was given where a whole book is needed.
    #[error("{name} is one share of a book: merge the shares first")]
    Share {
        /// The file, quoted.
        name: String,
    },
    /// The book could not be written.
    #[error("cannot write {name}: {source}")]
    Write {
        /// The file, quoted.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// An output that exists and is not a regular file (a directory, a
    /// symlink, a device): never replaced.
    #[error("{name} exists and is not a regular file: choose another output")]
    NotAFile {
        /// The file, quoted.
        name: String,
    },
    /// Another build or merge holds the output.
    #[error("{name} is being written by another build or merge (its lock {lock} is held)")]
    Locked {
        /// The output, quoted.
        name: String,
        /// The lock file, quoted.
        lock: String,
    },
    /// The system refused memory for the book.
    #[error("{name}: not enough memory for a book of {bytes} bytes")]
    Memory {
        /// The file, quoted.
        name: String,
        /// Its length.
        bytes: u64,
    },
}

/// `path` with `suffix` appended to its file name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl Book {
    /// Reads and checks the book file at `path`, reading no more than its
    /// header announces.
    pub fn load(path: &Path) -> Result<Book, FileError> {
        let name = || quoted_path(path);
        let read = |source| FileError::Read {
            name: name(),
            source,
        };
        let bad = |source| FileError::Book {
            name: name(),
            source,
        };
        let file = File::open(path).map_err(read)?;
        let metadata = file.metadata().map_err(read)?;
        if metadata.is_dir() {
            return Err(read(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        let mut reader = io::BufReader::new(file);
        let mut head = Vec::with_capacity(HEADER_BYTES);
        (&mut reader)
            .take(HEADER_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(read)?;
        let expected = Book::file_len(&head).map_err(bad)?;
        let length = |found: u64| {
            bad(BookError::Length {
                expected,
                found: found.max(head.len() as u64),
            })
        };
        if metadata.is_file() && metadata.len() != expected {
            return Err(length(metadata.len()));
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(expected as usize + 1)
            .map_err(|_| FileError::Memory {
                name: name(),
                bytes: expected,
            })?;
        bytes.extend_from_slice(&head);
        // One byte more than announced tells a longer stream from a
        // whole one without reading the rest of it.
        (&mut reader)
            .take(expected + 1 - head.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        if bytes.len() as u64 != expected {
            return Err(length(bytes.len() as u64));
        }
        Book::from_bytes(bytes).map_err(bad)
    }

    /// Reads the whole book at `path` for a solver of the board `shape`:
    /// refused if it is a share or for another board.
    pub fn load_whole(path: &Path, shape: &Shape) -> Result<Book, FileError> {
        let book = Book::load(path)?;
        if book.kind() != Kind::Book {
            return Err(FileError::Share {
                name: quoted_path(path),
            });
        }
        book.check_board(shape).map_err(|source| FileError::Book {
            name: quoted_path(path),
            source,
        })?;
        Ok(book)
    }

    /// Writes the book to `path` whole or not at all: a new temporary
    /// file beside it, synced, then renamed over it. Refused if `path`
    /// exists and is not a regular file. Two saves to one path never mix
    /// their bytes: the last rename wins. (A build or merge also holds an
    /// [`OutputLock`], so that a second one is refused at once.)
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        check_output(path)?;
        let write = |source| FileError::Write {
            name: quoted_path(path),
            source,
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".score4-").suffix(".tmp");
        // The mode a plain create gives (the umask still applies), not the
        // temporary file's private one: the book is for others to read.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let mut temporary = builder.tempfile_in(dir).map_err(write)?;
        temporary
            .as_file_mut()
            .write_all(&self.to_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(write)?;
        // A dropped temporary file removes itself: a failed rename leaves
        // nothing behind.
        temporary.persist(path).map_err(|e| write(e.error))?;
        sync_dir(path);
        Ok(())
    }
}

/// The directory `path` is in.
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A new temporary file in the directory of `path`, with a unique name,
/// created with `O_EXCL` (never an existing file or a symlink's target),
/// removed if dropped before it is persisted over `path`.
pub(crate) fn temporary_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".score4-").suffix(".tmp");
    // The mode a plain create gives (the umask still applies), not the
    // temporary file's private one: the file is for others to read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(parent(path))
}

/// Makes a rename to `path` durable where the system allows it; a
/// failure here loses nothing a reader can see, so it is not reported.
pub(crate) fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(parent(path)) {
        let _ = d.sync_all();
    }
}

/// Refuses an output that exists and is not a regular file: a symlink
/// (which a rename would replace, or a write follow), a directory, a
/// device. Called before any work, and again before the save.
pub fn check_output(path: &Path) -> Result<(), FileError> {
    // An empty name would put the lock and the checkpoint, `.lock` and
    // `.partial`, in the working directory.
    if path.as_os_str().is_empty() {
        return Err(FileError::Write {
            name: quoted_path(path),
            source: io::Error::new(io::ErrorKind::InvalidInput, "the name is empty"),
        });
    }
    match fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(FileError::NotAFile {
            name: quoted_path(path),
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(FileError::Write {
            name: quoted_path(path),
            source,
        }),
    }
}

/// Opens `path` as `options` says without following a symlink in its
/// last component, and refuses anything but a regular file.
pub(crate) fn open_regular(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    if let Ok(m) = fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Err(io::Error::other("exists and is not a regular file"));
        }
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("exists and is not a regular file"));
    }
    Ok(file)
}

/// An advisory lock on an output, held while a build or merge writes it:
/// an exclusive lock on the file `OUT.lock`, which the system releases
/// when the process ends, however it ends. A lock file left behind by a
/// killed run is harmless: its lock died with the run.
pub struct OutputLock {
    path: PathBuf,
    file: File,
}

impl OutputLock {
    /// Takes the lock of the output `out`, or says at once that another
    /// run holds it. `out` itself must be absent or a regular file.
    pub fn acquire(out: &Path) -> Result<Self, FileError> {
        check_output(out)?;
        let path = with_suffix(out, ".lock");
        let failed = |source| FileError::Write {
            name: quoted_path(&path),
            source,
        };
        loop {
            let file = open_regular(
                OpenOptions::new().read(true).write(true).create(true),
                &path,
            )
            .map_err(failed)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(FileError::Locked {
                        name: quoted_path(out),
                        lock: quoted_path(&path),
                    })
                }
                Err(fs::TryLockError::Error(e)) => return Err(failed(e)),
            }
            // The run that held the lock may have removed the file between
            // our open and our lock: the lock is ours only if the path
            // still names the file locked.
            if same_file(&file, &path) {
                return Ok(OutputLock { path, file });
            }
        }
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked, so that no run can lock the old
        // file after this one lets it go (see `acquire`).
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use score4_testkit::Scratch;

    fn scratch(name: &str) -> Scratch {
        Scratch::new(&format!("file-{name}"))
    }

    fn sample() -> Book {
        let shape = Shape::new(5, 4).unwrap();
        Book::from_entries(shape, 3, Kind::Book, vec![(9, -2), (3, 1), (700, 0)])
    }

    #[test]
    fn saves_and_loads_and_leaves_no_temporary_file() {
        let dir = scratch("round");
        let out = dir.join("a.book");
        sample().save(&out).unwrap();
        assert_eq!(Book::load(&out).unwrap(), sample());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn a_length_other_than_the_header_says_is_refused_unread() {
        let dir = scratch("length");
        let bytes = sample().to_bytes();
        for extra in [&b""[..], b"\0", b"more bytes"] {
            let file = dir.join("long.book");
            fs::write(&file, [&bytes[..], extra].concat()).unwrap();
            let r = Book::load(&file);
            if extra.is_empty() {
                assert!(r.is_ok());
            } else {
                assert!(
                    matches!(
                        r,
                        Err(FileError::Book {
                            source: BookError::Length { .. },
                            ..
                        })
                    ),
                    "{r:?}"
                );
            }
        }
        // A stream that never ends is read no further than its header.
        if Path::new("/dev/zero").exists() {
            let r = Book::load(Path::new("/dev/zero"));
            assert!(matches!(
                r,
                Err(FileError::Book {
                    source: BookError::NotABook,
                    ..
                })
            ));
        }
    }

    #[test]
    fn a_symlink_or_directory_output_is_refused() {
        let dir = scratch("special");
        assert!(matches!(
            sample().save(&dir),
            Err(FileError::NotAFile { .. })
        ));
        #[cfg(unix)]
        {
            let victim = dir.join("victim.txt");
            fs::write(&victim, "keep").unwrap();
            let link = dir.join("s.book");
            std::os::unix::fs::symlink(&victim, &link).unwrap();
            assert!(matches!(
                sample().save(&link),
                Err(FileError::NotAFile { .. })
            ));
            assert!(matches!(
                OutputLock::acquire(&link),
                Err(FileError::NotAFile { .. })
            ));
            assert_eq!(fs::read(&victim).unwrap(), b"keep");
        }
    }

    #[test]
    fn a_second_lock_of_one_output_is_refused_until_the_first_is_dropped() {
        let dir = scratch("lock");
        let out = dir.join("o.book");
        let first = OutputLock::acquire(&out).unwrap();
        assert!(matches!(
            OutputLock::acquire(&out),
            Err(FileError::Locked { .. })
        ));
        drop(first);
        assert!(!with_suffix(&out, ".lock").exists());
        let again = OutputLock::acquire(&out).unwrap();
        drop(again);
    }
}
