//! Scratch directories for tests that write files.

use std::ops::Deref;
use std::path::Path;

/// A fresh, empty directory for one test, removed with everything in it
/// when dropped, also when the test fails: test runs leave nothing behind.
/// Derefs to its path, so `dir.join(name)` names a file in it.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A new directory whose name starts with `score4-{name}-`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("score4-{name}-"))
            .tempdir()
            .expect("a scratch directory in the temporary directory");
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_is_fresh_and_gone_when_dropped() {
        let dir = Scratch::new("scratch-test");
        assert!(dir.is_dir());
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
        std::fs::write(dir.join("file"), b"x").unwrap();
        let path = dir.to_path_buf();
        drop(dir);
        assert!(!path.exists());
    }
}
