//! `--journal`: the option of every command that can run long searches.

use std::path::{Path, PathBuf};

use score4::solver::{JournalError, JournalLoaded, JOURNAL_MIN_WORK};
use score4::wide::Solver;

use crate::output;

/// Where a long solve keeps what it has proven, to go on after a stop.
#[derive(clap::Args)]
pub struct JournalArg {
    /// Keep the bound of every search of at least --journal-min-work
    /// positions in FILE as it is found, and start from every bound FILE
    /// holds already: killed and run again with the same FILE, a solve
    /// goes on from close to where it stopped. One FILE per board; any
    /// positions of that board may share it.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// The fewest positions a search must take to be kept in the journal:
    /// at least 1000, since a journal that keeps every small search grows
    /// by gigabytes a minute.
    #[arg(long, value_name = "N", default_value_t = JOURNAL_MIN_WORK, requires = "journal",
          allow_negative_numbers = true,
          value_parser = |s: &str| crate::whole::<u64>(s, 1000..=u64::MAX))]
    journal_min_work: u64,
}

impl JournalArg {
    /// Opens the journal for `solver`, saying on stderr what it held.
    pub fn apply(&self, solver: &mut Solver) -> Result<(), String> {
        self.open(|path, min_work| solver.keep_journal(path, min_work))
    }

    /// Opens the journal named, if one is, with `keep`.
    fn open(
        &self,
        keep: impl FnOnce(&Path, u64) -> Result<JournalLoaded, JournalError>,
    ) -> Result<(), String> {
        let Some(path) = &self.journal else {
            return Ok(());
        };
        let loaded = keep(path, self.journal_min_work).map_err(|e| format!("--journal {e}"))?;
        if loaded.bounds > 0 || loaded.damaged > 0 {
            output::note(format_args!(
                "journal: {}: {} bounds of {} positions read, {} damaged lines skipped",
                score4::input::quoted_path(path),
                loaded.bounds,
                loaded.positions,
                loaded.damaged
            ));
        }
        Ok(())
    }
}

/// The journal's first failed write, as an error line, if any.
pub fn failure(solver: &Solver) -> Option<String> {
    solver.journal_error().map(|e| format!("--journal {e}"))
}
