//! Computing a book: enumerate, solve the deepest positions, back up.
//!
//! 1. [`Plan::new`] lists every position with at most `depth` moves that
//!    is still in play, mirror images once, by depth, each depth in the
//!    order a depth-first walk from the empty board meets them (so that
//!    neighbours in the list share most of their subtrees).
//! 2. The positions with exactly `depth` moves, the leaves, are solved by
//!    search ([`solve_all`]): by far the most work. They can be cut into
//!    shares ([`Plan::share`]), contiguous runs of the leaf list, each
//!    solved on its own machine.
//! 3. [`Plan::complete`] backs the leaves' scores up to every shallower
//!    position by minimax over its moves: a winning move scores the win,
//!    any other the negated score of the position it leads to.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use thiserror::Error;

use super::{canonical_key, Book, Kind};
use crate::position::Position;
use crate::size::BoardSize;
use crate::solver::Solver;
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

/// Why a book could not be completed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    /// A leaf has no score.
    #[error("{missing} of {leaves} positions with {depth} moves have no score")]
    Missing {
        /// Leaves without a score.
        missing: usize,
        /// Leaves in all.
        leaves: usize,
        /// Their number of moves.
        depth: u32,
    },
    /// Scores given for positions that are not leaves.
    #[error("{0} scores are for positions that are not in the book's deepest level")]
    Strays(usize),
    /// Shares that cannot be joined.
    #[error("{0}")]
    Merge(String),
    /// More positions than one machine should list.
    #[error("a book of depth {depth} holds more than {limit} positions: too deep to list on one machine")]
    TooLarge {
        /// The depth asked for.
        depth: u32,
        /// The limit passed.
        limit: usize,
    },
}

/// The most positions [`Plan::new`] lists (about 4 GiB of memory): far
/// beyond a 7x6 book of depth 12 (9.2 million), and a bound on what a
/// mistyped depth or a forged book header can make the command allocate.
pub const MAX_POSITIONS: usize = 100_000_000;

/// Every position a book of `depth` holds, by number of moves.
pub struct Plan<const W: usize, const H: usize> {
    depth: u32,
    levels: Vec<Vec<Position<W, H>>>,
}

impl<const W: usize, const H: usize> Plan<W, H> {
    /// The positions of a book of `depth` (capped at the board's cells).
    ///
    /// # Panics
    ///
    /// If there are more than [`MAX_POSITIONS`]; see [`try_new`](Self::try_new).
    pub fn new(depth: u32) -> Self {
        match Self::try_new(depth, MAX_POSITIONS) {
            Ok(plan) => plan,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`new`](Self::new), or an error once more than `limit` positions
    /// are found.
    pub fn try_new(depth: u32, limit: usize) -> Result<Self, BuildError> {
        Self::with_hasher::<ahash::RandomState>(depth, limit)
    }

    /// [`try_new`](Self::try_new) with the set that finds repeated
    /// positions hashed by `S` (to compare hashers).
    pub fn with_hasher<S: BuildHasher + Default>(
        depth: u32,
        limit: usize,
    ) -> Result<Self, BuildError> {
        let depth = depth.min((W * H) as u32);
        let mut levels = vec![Vec::new(); depth as usize + 1];
        let mut seen: HashSet<u64, S> = HashSet::default();
        let mut stack = vec![Position::<W, H>::new()];
        while let Some(p) = stack.pop() {
            if !seen.insert(canonical_key(&p)) {
                continue;
            }
            if seen.len() > limit {
                return Err(BuildError::TooLarge { depth, limit });
            }
            let n = p.moves_played();
            levels[n as usize].push(p);
            if n == depth {
                continue;
            }
            // Pushed right to left, so the walk visits columns left to right.
            for col in (0..W).rev() {
                if p.can_play(col) && !p.is_winning_move(col) {
                    let child = p.after(col);
                    if !child.is_game_over() {
                        stack.push(child);
                    }
                }
            }
        }
        Ok(Plan { depth, levels })
    }

    /// The depth: positions with at most this many moves.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The positions with exactly `moves` moves.
    pub fn level(&self, moves: u32) -> &[Position<W, H>] {
        self.levels.get(moves as usize).map_or(&[], Vec::as_slice)
    }

    /// The positions solved by search: those with `depth` moves.
    pub fn leaves(&self) -> &[Position<W, H>] {
        self.level(self.depth)
    }

    /// Every position, shallowest first.
    pub fn positions(&self) -> impl Iterator<Item = &Position<W, H>> {
        self.levels.iter().flatten()
    }

    /// Number of positions in the book.
    pub fn len(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }

    /// Whether the book would be empty (never: the empty board is in it).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Share `index` (from 1) of `count`: a contiguous run of the leaves,
    /// the runs of all shares covering every leaf once.
    pub fn share(&self, index: usize, count: usize) -> &[Position<W, H>] {
        let leaves = self.leaves();
        let at = |i: usize| leaves.len() * i / count.max(1);
        &leaves[at(index - 1)..at(index)]
    }

    /// The whole book from the score of every leaf (`leaf` looks one up
    /// by canonical key), backed up to the shallower positions.
    pub fn complete(&self, leaf: impl Fn(u64) -> Option<i8>) -> Result<Book, BuildError> {
        let mut scores: ahash::AHashMap<u64, i8> = ahash::AHashMap::with_capacity(self.len());
        let mut missing = 0;
        for p in self.leaves() {
            let key = canonical_key(p);
            match leaf(key) {
                Some(score) => {
                    scores.insert(key, score);
                }
                None => missing += 1,
            }
        }
        if missing > 0 {
            return Err(BuildError::Missing {
                missing,
                leaves: self.leaves().len(),
                depth: self.depth,
            });
        }
        for moves in (0..self.depth).rev() {
            for p in self.level(moves) {
                let score = best_child(p, |child| scores.get(&canonical_key(child)).copied());
                scores.insert(canonical_key(p), score);
            }
        }
        let entries = scores.into_iter().collect();
        let size = BoardSize::of::<W, H>();
        Ok(Book::from_entries(size, self.depth, Kind::Book, entries))
    }

    /// A share's part: the scores of its leaves, from `leaf`.
    pub fn part(
        &self,
        index: usize,
        count: usize,
        leaf: impl Fn(u64) -> Option<i8>,
    ) -> Result<Book, BuildError> {
        let share = self.share(index, count);
        let entries: Vec<(u64, i8)> = share
            .iter()
            .filter_map(|p| leaf(canonical_key(p)).map(|s| (canonical_key(p), s)))
            .collect();
        if entries.len() < share.len() {
            return Err(BuildError::Missing {
                missing: share.len() - entries.len(),
                leaves: share.len(),
                depth: self.depth,
            });
        }
        let size = BoardSize::of::<W, H>();
        let kind = Kind::Part {
            index: index as u16,
            count: count as u16,
        };
        Ok(Book::from_entries(size, self.depth, kind, entries))
    }

    /// Joins the parts of every share into the whole book. Refused: parts
    /// of another board or depth, a missing share, shares of different
    /// cuttings, and a position two parts score differently.
    pub fn merge(&self, parts: &[Book]) -> Result<Book, BuildError> {
        let fail = |why: String| Err(BuildError::Merge(why));
        let size = BoardSize::of::<W, H>();
        let mut count = None;
        let mut have = Vec::new();
        let mut scores: ahash::AHashMap<u64, i8> = ahash::AHashMap::new();
        for part in parts {
            let Kind::Part { index, count: c } = part.kind() else {
                return fail("a whole book is not a share: merge the parts".into());
            };
            if part.size() != size || part.depth() != self.depth {
                return fail(format!(
                    "share {index}/{c} is for {} depth {}, not {size} depth {}",
                    part.size(),
                    part.depth(),
                    self.depth
                ));
            }
            if *count.get_or_insert(c) != c {
                return fail(format!(
                    "share {index}/{c} is from a cutting into {} shares",
                    count.unwrap_or(c)
                ));
            }
            have.push(index);
            for (key, score) in part.entries() {
                if let Some(old) = scores.insert(key, score as i8) {
                    if old != score as i8 {
                        return fail(format!(
                            "shares disagree on position key {key}: {old} and {score}"
                        ));
                    }
                }
            }
        }
        let count = count.unwrap_or(0);
        if let Some(gap) = (1..=count).find(|i| !have.contains(i)) {
            return fail(format!("share {gap}/{count} is missing"));
        }
        if count == 0 {
            return fail("no parts given".into());
        }
        let strays = scores.len().saturating_sub(self.leaves().len());
        let book = self.complete(|key| scores.get(&key).copied())?;
        if strays > 0 {
            return Err(BuildError::Strays(strays));
        }
        Ok(book)
    }
}

/// The score of `p` from its moves: a winning move scores the win, a move
/// that fills the board a draw, any other the negated score `child` gives
/// for the position it leads to.
fn best_child<const W: usize, const H: usize>(
    p: &Position<W, H>,
    child: impl Fn(&Position<W, H>) -> Option<i8>,
) -> i8 {
    let n = p.moves_played() as i32;
    let mut best = i32::MIN;
    for col in p.playable_columns() {
        let score = if p.is_winning_move(col) {
            Solver::<W, H>::win_score(n)
        } else {
            let next = p.after(col);
            if next.is_game_over() {
                0
            } else {
                -i32::from(child(&next).expect("every child in play is in the book"))
            }
        };
        best = best.max(score);
    }
    best as i8
}

/// Solves every position of `todo` exactly with `solvers.len()` threads,
/// one solver each, and hands each (canonical key, score) to `each` on
/// the calling thread as it comes. Workers take runs of consecutive
/// positions. `each` returning `false` stops the work early (the
/// positions under way are finished and their scores dropped).
pub fn solve_all<const W: usize, const H: usize>(
    todo: &[Position<W, H>],
    solvers: Vec<Solver<W, H>>,
    mut each: impl FnMut(u64, i8) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let workers = solvers.len();
    let (send, receive) = mpsc::channel::<(u64, i8)>();
    std::thread::scope(|scope| {
        for mut solver in solvers {
            let send = send.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while let Some(run) = take_run(next, todo.len(), workers) {
                    for p in &todo[run] {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let score = solver.solve(p) as i8;
                        if send.send((canonical_key(p), score)).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(send);
        for (key, score) in receive {
            if !each(key, score) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    });
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

/// `count` solvers with tables of `table_mb` each, searching from scratch
/// (a book of the board would not reach the positions being built).
pub fn solvers<const W: usize, const H: usize>(
    count: usize,
    table_mb: usize,
) -> Result<Vec<Solver<W, H>>, TableError> {
    (0..count.max(1))
        .map(|_| {
            let mut solver = Solver::<W, H>::try_with_table_mb(table_mb)?;
            solver.drop_book();
            Ok(solver)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::solver::plain::plain_negamax;

    /// Builds the leaves of `plan` by search, as the command does.
    fn solve_leaves<const W: usize, const H: usize>(
        leaves: &[Position<W, H>],
        threads: usize,
    ) -> HashMap<u64, i8> {
        let mut scores = HashMap::new();
        solve_all(leaves, solvers(threads, 1).unwrap(), |key, score| {
            scores.insert(key, score);
            true
        });
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
    fn a_complete_small_book_agrees_with_plain_negamax() {
        // 4x4 to the end: no position with 16 moves is in play, so every
        // score comes from backing up.
        let plan = Plan::<4, 4>::new(16);
        assert!(plan.leaves().is_empty());
        let book = plan.complete(|_| None).unwrap();
        assert_eq!(book.len(), plan.len());
        let mut memo = HashMap::new();
        for p in plan.positions() {
            let expected = plain_negamax(p, &mut memo);
            assert_eq!(book.score(p), Some(expected), "{p:?}");
            assert_eq!(book.score(&p.mirror()), Some(expected));
        }
    }

    #[test]
    fn a_searched_book_agrees_with_plain_negamax_and_shares_merge_to_it() {
        // 5x4 to depth 9: 2 threads solve the leaves, backing up does the rest.
        let plan = Plan::<5, 4>::new(9);
        let scores = solve_leaves(plan.leaves(), 2);
        let book = plan.complete(|k| scores.get(&k).copied()).unwrap();
        assert_eq!(book.len(), plan.len());
        let mut memo = HashMap::new();
        for p in plan.positions() {
            assert_eq!(book.score(p), Some(plain_negamax(p, &mut memo)), "{p:?}");
        }
        // Three shares, each solved on its own, merge to the same bytes.
        let parts: Vec<Book> = (1..=3)
            .map(|i| {
                let mine = solve_leaves(plan.share(i, 3), 1);
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
        assert!(Plan::<5, 4>::new(8).merge(&parts).is_err());
        assert!(plan
            .merge(&[parts.clone(), vec![book.clone()]].concat())
            .is_err());
        let (key, score) = parts[1].entries().next().unwrap();
        let liar = Book::from_entries(
            parts[1].size(),
            9,
            Kind::Part { index: 2, count: 3 },
            vec![(key, -score as i8 + 1)],
        );
        assert!(plan.merge(&[parts.clone(), vec![liar]].concat()).is_err());
    }
}
