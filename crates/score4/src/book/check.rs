//! Checking a book against its plan and against search: every position
//! it should hold is there, none it should not, and a seeded sample of
//! them re-solved by search agrees with it.

use std::time::Duration;

use crate::clock::Instant;

use thiserror::Error;

use super::plan::{leaves_of_share, share_limit, Plan, PlanError, MAX_POSITIONS};
use super::{Book, Kind};
use crate::rng::Rng;
use crate::wide::{Position, Solver};
use crate::TableError;

/// Table size of the solver that re-solves the sample, in MiB.
const CHECK_TABLE_MB: usize = 64;

/// Why a book could not be checked at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CheckError {
    /// A whole book whose plan lists more positions than it holds.
    #[error("incomplete: a book of depth {depth} holds more than its {len} positions")]
    Incomplete {
        /// The book's depth.
        depth: u32,
        /// Its record count.
        len: usize,
    },
    /// A share whose plan lists far more positions than its records
    /// can belong to: not a share of a book of its board and depth.
    #[error("share {index}/{count} of depth {depth} belongs to a book of more than {limit} positions, too many for its {len} records")]
    ShareTooLarge {
        /// The share.
        index: u16,
        /// The number of shares.
        count: u16,
        /// The depth.
        depth: u32,
        /// Its record count.
        len: usize,
        /// The limit listed to.
        limit: usize,
    },
    /// The plan could not be listed.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// No memory for the solver's table.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// A position whose stored score search does not confirm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Its number of moves.
    pub moves: u32,
    /// Its canonical key.
    pub key: u128,
    /// What the book says (`None`: missing).
    pub stored: Option<i32>,
    /// What search says.
    pub searched: i32,
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Positions the book holds.
    pub positions: usize,
    /// Positions of its plan (or share) it lacks.
    pub missing: usize,
    /// Positions it holds beyond its plan.
    pub extra: usize,
    /// Positions re-solved by search.
    pub sampled: usize,
    /// Those on which book and search differ.
    pub disagreements: Vec<Disagreement>,
    /// Time the re-solving took.
    pub solving: Duration,
}

impl CheckReport {
    /// Whether the book passed: nothing missing, extra or wrong.
    pub fn passed(&self) -> bool {
        self.missing + self.extra + self.disagreements.len() == 0
    }
}

/// Checks `book`: lists its positions (a whole book's, or its share's
/// leaves), counts those missing and extra, and re-solves `sample` of
/// them chosen by a generator seeded with `seed` (the same seed, the
/// same choice). Listing is bounded by what the book holds, so a forged
/// header cannot make it list a deep book.
pub fn check(book: &Book, sample: usize, seed: u64) -> Result<CheckReport, CheckError> {
    let shape = book.shape();
    // A book holds every position of its plan, a share a 1/count run of
    // its leaves: listing more than that proves it wrong without listing
    // them all.
    let limit = match book.kind() {
        Kind::Book => book.len().min(MAX_POSITIONS),
        Kind::Share { count, .. } => share_limit(leaves_of_share(book.len(), usize::from(count))),
    };
    let plan = Plan::try_new(shape, book.depth(), limit).map_err(|e| match (e, book.kind()) {
        (PlanError::TooLarge { .. }, Kind::Book) => CheckError::Incomplete {
            depth: book.depth(),
            len: book.len(),
        },
        (PlanError::TooLarge { limit, .. }, Kind::Share { index, count }) => {
            CheckError::ShareTooLarge {
                index,
                count,
                depth: book.depth(),
                len: book.len(),
                limit,
            }
        }
        (e, _) => e.into(),
    })?;
    let memory = || {
        CheckError::Plan(PlanError::Memory {
            depth: book.depth(),
        })
    };
    let mut expected: Vec<&Position> = Vec::new();
    match book.kind() {
        Kind::Book => {
            expected
                .try_reserve_exact(plan.len())
                .map_err(|_| memory())?;
            expected.extend(plan.positions());
        }
        Kind::Share { index, count } => {
            let share = plan.share(usize::from(index), usize::from(count));
            expected
                .try_reserve_exact(share.len())
                .map_err(|_| memory())?;
            expected.extend(share);
        }
    }
    let stored = |p: &Position| book.score_as_data(shape, p);
    let missing = expected.iter().filter(|p| stored(p).is_none()).count();
    let extra = book.len().saturating_sub(expected.len() - missing);
    let mut solver = Solver::new(*shape, CHECK_TABLE_MB)?;
    solver.drop_book();
    let mut rng = Rng::new(seed);
    let sampled = sample.min(expected.len());
    let mut disagreements = Vec::new();
    let start = Instant::now();
    for _ in 0..sampled {
        let p = expected[rng.below(expected.len() as u64) as usize];
        let (stored, searched) = (stored(p), super::build::exact(&mut solver, p));
        if stored != Some(searched) {
            disagreements.push(Disagreement {
                moves: p.moves_played(),
                key: p.canonical_key(shape),
                stored,
                searched,
            });
        }
    }
    Ok(CheckReport {
        positions: book.len(),
        missing,
        extra,
        sampled,
        disagreements,
        solving: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::Shape;

    #[test]
    fn a_true_book_passes_and_a_wrong_score_is_found() {
        let plan = Plan::new(&Shape::any(4, 4), 16);
        let book = plan.complete(|_| None).unwrap();
        let report = check(&book, 20, 3).unwrap();
        assert!(report.passed(), "{report:?}");
        assert_eq!(report.sampled, 20);
        // Every score changed: each sampled position disagrees.
        let liar = Book::from_entries(
            *book.shape(),
            book.depth(),
            Kind::Book,
            book.entries().map(|(k, s)| (k, (s + 1) as i8)).collect(),
        );
        let report = check(&liar, 5, 3).unwrap();
        assert_eq!(report.disagreements.len(), 5);
        assert!(!report.passed());
    }

    #[test]
    fn forged_headers_are_refused_without_listing_the_book() {
        let seven = Shape::standard();
        // Too deep to list at all: refused before listing, book or share.
        for kind in [Kind::Book, Kind::Share { index: 1, count: 1 }] {
            let deep = Book::from_entries(seven, 42, kind, vec![]);
            assert!(matches!(
                check(&deep, 1, 1),
                Err(CheckError::Plan(PlanError::TooDeep { .. }))
            ));
        }
        // Deep enough to list, but not with so few positions: refused
        // after listing as many as the header could hold.
        let whole = Book::from_entries(seven, 12, Kind::Book, vec![]);
        assert!(matches!(
            check(&whole, 1, 1),
            Err(CheckError::Incomplete { .. })
        ));
        let share = Book::from_entries(seven, 12, Kind::Share { index: 1, count: 1 }, vec![]);
        assert!(matches!(
            check(&share, 1, 1),
            Err(CheckError::ShareTooLarge { .. })
        ));
    }
}
