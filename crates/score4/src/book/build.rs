//! Computing a book, from options to the file: what `score4 book build`
//! and `score4 book merge` do, for any front end.
//!
//! [`build`] lists the book's positions ([`Plan`]), takes the scores an
//! earlier run of the same build left in its checkpoint (`OUT.partial`),
//! solves the rest of its leaves on worker threads ([`solve_all`]),
//! recording each score in the checkpoint as it comes and reporting
//! [`Progress`], backs the scores up (or keeps its share's), reads the
//! book back, saves it whole, and removes the checkpoint. [`merge`] joins
//! the parts of every share into the book.
//!
//! Both hold an [`OutputLock`] on the output from their first step to
//! their last: a second build or merge of the same output is refused at
//! once. An output that exists and is not a regular file is refused
//! before any work.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::clock::Instant;
use std::{io, thread};

use thiserror::Error;

use super::checkpoint::{BuildId, Checkpoint, CheckpointError};
use super::file::{with_suffix, FileError, OutputLock};
pub use super::plan::{check_shares, leaves_of_share, share_limit, Plan, PlanError, MAX_POSITIONS};
use super::{Book, BookError};
use crate::input::quoted_path;
use crate::wide::{Position, Shape, Solver};
use crate::TableError;

/// Fewest leaves handed to a worker at a time.
///
/// Workers take runs of consecutive leaves, so that each table serves
/// neighbours, which share most of their subtrees. Runs start long (a
/// share of what is left, at most [`MAX_RUN`]) and shrink towards the end
/// so that the workers finish together. With short runs throughout, each
/// worker's table would see only every other run of neighbours.
const MIN_RUN: usize = 16;
/// Most leaves handed to a worker at a time.
const MAX_RUN: usize = 4096;

/// Why a build or merge stopped. Each is one line naming its file.
#[derive(Debug, Error)]
pub enum BuildError {
    /// The positions could not be listed or the book completed.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A book or part could not be read, or the output written or locked.
    #[error(transparent)]
    File(#[from] FileError),
    /// The checkpoint could not be read or kept.
    #[error("{}", checkpoint_message(.name, .source))]
    Checkpoint {
        /// The checkpoint, quoted.
        name: String,
        /// Why.
        source: CheckpointError,
    },
    /// The solvers' tables could not be allocated.
    #[error("tables of {table_mb} MiB: {source}")]
    Table {
        /// The size asked for each.
        table_mb: usize,
        /// Why.
        source: TableError,
    },
    /// A worker thread could not be started.
    #[error("cannot start a solving thread: {0}")]
    Spawn(io::Error),
    /// The system refused memory for the list of positions to solve.
    #[error("not enough memory for the list of positions to solve")]
    Memory,
    /// A share that no cutting has.
    #[error("share {index}/{count} does not exist: expected 1 <= I <= N")]
    NoSuchShare {
        /// The share asked for.
        index: u16,
        /// The number of shares.
        count: u16,
    },
    /// The book does not read back (the checkpoint held bad scores).
    #[error("the finished book does not check ({0}); the checkpoint is kept")]
    Unchecked(BookError),
    /// The caller's progress callback asked to stop.
    #[error("stopped with {done} of {total} positions solved; {name} keeps them for the next run")]
    Stopped {
        /// The checkpoint, quoted.
        name: String,
        /// Positions solved and kept.
        done: usize,
        /// Positions of the build.
        total: usize,
    },
}

fn checkpoint_message(name: &str, e: &CheckpointError) -> String {
    match e {
        CheckpointError::Io { action, source } => format!("cannot {action} {name}: {source}"),
        other => format!("{name} {other}"),
    }
}

/// What to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The board.
    pub shape: Shape,
    /// Every position with at most this many moves.
    pub depth: u32,
    /// Only share `I` (from 1) of `N`, a part for [`merge`]; `None` for
    /// the whole book.
    pub share: Option<(u16, u16)>,
    /// Solving threads, each with its own table.
    pub threads: usize,
    /// Each thread's table in MiB.
    pub table_mb: usize,
    /// The book (or part) to write; `OUT.partial` keeps the work so far.
    pub out: PathBuf,
}

/// How far a build is: `done` of the `total` leaves it solves have a
/// score (those from the checkpoint included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Leaves with a score.
    pub done: usize,
    /// Leaves in all.
    pub total: usize,
}

/// What a finished build did.
#[derive(Debug)]
pub struct Built {
    /// The book or part written.
    pub book: Book,
    /// Leaves solved by search in this run (the others came from the
    /// checkpoint).
    pub searched: usize,
    /// The number of moves of the leaves.
    pub leaf_moves: u32,
    /// Time spent solving them.
    pub solving: Duration,
    /// Threads that solved them.
    pub threads: usize,
}

/// Builds the book `options` asks for and saves it, calling `progress`
/// once when the solving starts and after each leaf solved. Resumes from
/// the checkpoint a killed run of the same build left; the book written
/// is the same, byte for byte, as an uninterrupted build's.
pub fn build(options: &Options, mut progress: impl FnMut(Progress)) -> Result<Built, BuildError> {
    build_any(options, &mut |p| {
        progress(p);
        ControlFlow::Continue(())
    })
}

/// [`build`], stopped when `progress` says so: the positions solved by
/// then stay in the checkpoint, and the error is [`BuildError::Stopped`].
/// `progress` is called on the calling thread as each position is solved,
/// so a stop waits at most for the positions under way.
pub fn build_stoppable(
    options: &Options,
    mut progress: impl FnMut(Progress) -> ControlFlow<()>,
) -> Result<Built, BuildError> {
    build_any(options, &mut progress)
}

/// Not generic, so that the build is compiled once, here, rather than
/// again in each caller for each kind of callback.
fn build_any(
    options: &Options,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Built, BuildError> {
    if let Some((index, count)) = options.share {
        if !(1..=count).contains(&index) {
            return Err(BuildError::NoSuchShare { index, count });
        }
    }
    let lock = OutputLock::acquire(&options.out)?;
    let built = build_locked(options, progress)?;
    drop(lock);
    Ok(built)
}

fn build_locked(
    options: &Options,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Built, BuildError> {
    let shape = &options.shape;
    let plan = Plan::try_new(shape, options.depth, MAX_POSITIONS)?;
    let (index, count) = options.share.map_or((1, 1), |(i, n)| (i.into(), n.into()));
    let share = plan.share(index, count);
    let partial = with_suffix(&options.out, ".partial");
    let id = BuildId {
        shape: *shape,
        depth: options.depth,
        share: options.share,
    };
    let in_checkpoint = |source| BuildError::Checkpoint {
        name: quoted_path(&partial),
        source,
    };
    let mut checkpoint = Checkpoint::open(&partial, id, share).map_err(in_checkpoint)?;
    let mut todo = Vec::new();
    todo.try_reserve_exact(share.len() - checkpoint.len().min(share.len()))
        .map_err(|_| BuildError::Memory)?;
    todo.extend(
        share
            .iter()
            .filter(|p| !checkpoint.contains(p.canonical_key(shape)))
            .copied(),
    );
    let threads = options.threads.max(1);
    let solvers =
        solvers(shape, threads, options.table_mb).map_err(|source| BuildError::Table {
            table_mb: options.table_mb,
            source,
        })?;
    let mut done = share.len() - todo.len();
    let total = share.len();
    let mut stopped = progress(Progress { done, total }).is_break();
    let solving = Instant::now();
    let mut failure = None;
    if !stopped {
        solve_all(&todo, solvers, |key, score| {
            match checkpoint.record(key, score) {
                Ok(()) => {
                    done += 1;
                    stopped = progress(Progress { done, total }).is_break();
                    !stopped
                }
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
        .map_err(BuildError::Spawn)?;
    }
    if let Some(e) = failure {
        return Err(in_checkpoint(e));
    }
    checkpoint.sync().map_err(in_checkpoint)?;
    // Even with every position solved: the caller that asked to stop is
    // told so, and the next run only assembles the book.
    if stopped {
        return Err(BuildError::Stopped {
            name: quoted_path(&partial),
            done,
            total,
        });
    }
    let solving = solving.elapsed();
    let book = match options.share {
        None => plan.complete(|k| checkpoint.score(k)),
        Some(_) => plan.part(index, count, |k| checkpoint.score(k)),
    }?;
    // The scores came from a file: the book must read back before the
    // checkpoint holding them is removed.
    let book = Book::from_bytes(book.to_bytes()).map_err(BuildError::Unchecked)?;
    book.save(&options.out)?;
    // The book is saved: a checkpoint left behind only costs disk space.
    let _ = checkpoint.remove();
    Ok(Built {
        book,
        searched: todo.len(),
        leaf_moves: plan.depth(),
        solving,
        threads,
    })
}

/// Joins the parts at `parts` (one per share, any order) into the whole
/// book and saves it at `out`. The parts must be the shares of one
/// cutting of one book, every share there, agreeing where they meet.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<Book, BuildError> {
    let lock = OutputLock::acquire(out)?;
    let mut books = Vec::new();
    books
        .try_reserve_exact(parts.len())
        .map_err(|_| BuildError::Memory)?;
    for part in parts {
        books.push(Book::load(part)?);
    }
    let (shape, depth) = match books.first() {
        Some(b) => (*b.shape(), b.depth()),
        None => return Err(PlanError::Merge("no parts given".into()).into()),
    };
    check_shares(&books, &shape, depth)?;
    // Every share is there (checked): their records are the leaves, give
    // or take the duplicates of a share given twice.
    let records: usize = books.iter().map(Book::len).sum();
    let plan = Plan::try_new(&shape, depth, share_limit(records.saturating_add(1)))?;
    let book = plan.merge(&books)?;
    book.save(out)?;
    drop(lock);
    Ok(book)
}

/// Solves every position of `todo` exactly with `solvers.len()` threads,
/// one solver each, and hands each (canonical key, score) to `each` on
/// the calling thread as it comes. Workers take runs of consecutive
/// positions. `each` returning `false` stops the work early (the
/// positions under way are finished and their scores dropped). A thread
/// the system will not start stops the work and is the error.
///
/// # Panics
///
/// If a position of `todo` is not in play (a plan lists none such).
pub fn solve_all(
    todo: &[Position],
    solvers: Vec<Solver>,
    mut each: impl FnMut(u128, i8) -> bool,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let workers = solvers.len();
    let (send, receive) = mpsc::channel::<(u128, i8)>();
    thread::scope(|scope| {
        let mut refused = None;
        for mut solver in solvers {
            let send = send.clone();
            let (next, stop) = (&next, &stop);
            let work = move || {
                let shape = *solver.shape();
                while let Some(run) = take_run(next, todo.len(), workers) {
                    for p in &todo[run] {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let score = exact(&mut solver, p) as i8;
                        if send.send((p.canonical_key(&shape), score)).is_err() {
                            return;
                        }
                    }
                }
            };
            if let Err(e) = thread::Builder::new()
                .name("book-worker".into())
                .stack_size(crate::solver::SEARCH_STACK_BYTES)
                .spawn_scoped(scope, work)
            {
                stop.store(true, Ordering::Relaxed);
                refused = Some(e);
                break;
            }
        }
        drop(send);
        if let Some(e) = refused {
            // The workers that started see `stop` and end; the scope
            // waits for them.
            drop(receive);
            return Err(e);
        }
        for (key, score) in receive {
            if !each(key, score) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
        Ok(())
    })
}

/// The exact score of `p`, a position of a plan.
///
/// # Panics
///
/// If `p` is not in play: a plan lists none such.
pub(super) fn exact(solver: &mut Solver, p: &Position) -> i32 {
    match solver.solve(p) {
        Ok(score) => score,
        Err(e) => panic!("a plan lists positions in play only: {e}"),
    }
}

/// The next run of `len` leaves for one of `workers`, from the cursor
/// `next`: a quarter of each worker's share of what is left, within
/// [`MIN_RUN`]..=[`MAX_RUN`]; `None` once every leaf is taken.
fn take_run(next: &AtomicUsize, len: usize, workers: usize) -> Option<std::ops::Range<usize>> {
    let mut start = next.load(Ordering::Relaxed);
    loop {
        if start >= len {
            return None;
        }
        let size = ((len - start) / (4 * workers.max(1))).clamp(MIN_RUN, MAX_RUN);
        let end = (start + size).min(len);
        match next.compare_exchange_weak(start, end, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(start..end),
            Err(now) => start = now,
        }
    }
}

/// `count` solvers of the board `shape` with tables of `table_mb` each,
/// searching from scratch (a book of the board would not reach the
/// positions being built).
pub fn solvers(shape: &Shape, count: usize, table_mb: usize) -> Result<Vec<Solver>, TableError> {
    (0..count.max(1))
        .map(|_| {
            let mut solver = Solver::new(*shape, table_mb)?;
            solver.drop_book();
            Ok(solver)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::book::Kind;
    use crate::solver::plain::{compiled, plain_negamax, Memo};

    /// Builds the leaves of `plan` by search, as the command does.
    fn solve_leaves(shape: &Shape, leaves: &[Position], threads: usize) -> HashMap<u128, i8> {
        let mut scores = HashMap::new();
        solve_all(leaves, solvers(shape, threads, 1).unwrap(), |key, score| {
            scores.insert(key, score);
            true
        })
        .unwrap();
        assert_eq!(scores.len(), leaves.len());
        scores
    }

    #[test]
    fn runs_cover_every_leaf_once_and_shrink_towards_the_end() {
        for (len, workers) in [(0, 1), (5, 2), (100, 2), (91_295, 2), (1_000_000, 3)] {
            let next = AtomicUsize::new(0);
            let mut covered = 0;
            let mut last = usize::MAX;
            while let Some(run) = take_run(&next, len, workers) {
                assert_eq!(run.start, covered);
                let size = run.len();
                assert!(size <= MAX_RUN && (size >= MIN_RUN || run.end == len));
                assert!(size <= last, "runs never grow");
                (covered, last) = (run.end, size);
            }
            assert_eq!(covered, len);
        }
    }

    #[test]
    fn a_searched_book_agrees_with_plain_negamax_and_shares_merge_to_it() {
        // 5x4 to depth 9: 2 threads solve the leaves, backing up does the rest.
        let shape = Shape::any(5, 4);
        let plan = Plan::new(&shape, 9);
        let scores = solve_leaves(&shape, plan.leaves(), 2);
        let book = plan.complete(|k| scores.get(&k).copied()).unwrap();
        assert_eq!(book.len(), plan.len());
        let mut memo = Memo::default();
        for p in plan.positions() {
            let expected = plain_negamax(&compiled::<5, 4>(p), &mut memo);
            assert_eq!(book.score_as_data(&shape, p), Some(expected), "{p:?}");
        }
        // Three shares, each solved on its own, merge to the same bytes.
        let parts: Vec<Book> = (1..=3)
            .map(|i| {
                let mine = solve_leaves(&shape, plan.share(i, 3), 1);
                plan.part(i, 3, |k| mine.get(&k).copied()).unwrap()
            })
            .collect();
        let shares: usize = parts.iter().map(Book::len).sum();
        assert_eq!(shares, plan.leaves().len());
        let merged = plan.merge(&parts).unwrap();
        assert_eq!(merged.to_bytes(), book.to_bytes());
        // A share given twice is harmless; a missing one, a stranger or a
        // disagreement is refused.
        let twice = [parts.clone(), vec![parts[0].clone()]].concat();
        assert_eq!(plan.merge(&twice).unwrap().to_bytes(), book.to_bytes());
        assert!(plan.merge(&parts[..2]).is_err());
        assert!(Plan::new(&shape, 8).merge(&parts).is_err());
        assert!(plan
            .merge(&[parts.clone(), vec![book.clone()]].concat())
            .is_err());
        let (key, score) = parts[1].entries().next().unwrap();
        let liar = Book::from_entries(
            shape,
            9,
            Kind::Share { index: 2, count: 3 },
            vec![(key, -score as i8 + 1)],
        );
        assert!(plan.merge(&[parts.clone(), vec![liar]].concat()).is_err());
    }
}
