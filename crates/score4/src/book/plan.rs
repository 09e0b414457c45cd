//! What a book holds: every position with at most `depth` moves, and how
//! the scores of the deepest ones are backed up to the others.
//!
//! 1. [`Plan::try_new`] lists every position with at most `depth` moves
//!    that is still in play, mirror images once, by depth, each depth in
//!    the order a depth-first walk from the empty board meets them (so
//!    that neighbours in the list share most of their subtrees).
//! 2. The positions with exactly `depth` moves, the leaves, are solved by
//!    search (see [`build`](super::build)): by far the most work. They can
//!    be cut into shares ([`Plan::share`]), contiguous runs of the leaf
//!    list, each solved on its own machine.
//! 3. [`Plan::complete`] backs the leaves' scores up to every shallower
//!    position by minimax over its moves: a winning move scores the win,
//!    any other the negated score of the position it leads to.
//!
//! Listing is bounded twice: by a count of positions the caller gives
//! (a book's own record count, say), and by memory: an allocation the
//! system refuses is an error, never an abort.

use std::collections::HashSet;
use std::hash::BuildHasher;

use thiserror::Error;

use super::bound::positions_at_most;
use super::{Book, Kind};
use crate::score;
use crate::wide::{Position, Shape};

/// Why a book's positions could not be listed or completed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
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
    /// A leaf's score is one no position with its moves can have.
    #[error("position key {key} with {depth} moves has score {score}, out of the range of any such position")]
    Score {
        /// The leaf's canonical key.
        key: u128,
        /// The score given.
        score: i8,
        /// Its number of moves.
        depth: u32,
    },
    /// Scores given for positions that are not leaves.
    #[error("{0} scores are for positions that are not in the book's deepest level")]
    Strays(usize),
    /// Shares that cannot be joined.
    #[error("{0}")]
    Merge(String),
    /// More positions than the caller allows.
    #[error("a book of depth {depth} holds more than {limit} positions: too deep to list on one machine")]
    TooLarge {
        /// The depth asked for.
        depth: u32,
        /// The limit passed.
        limit: usize,
    },
    /// The bound on the positions of the depth is over [`MAX_POSITIONS`]:
    /// refused before any is listed.
    #[error("a book of depth {depth} of {width}x{height} may hold up to {most} positions, more than the {MAX_POSITIONS} one machine lists: too deep")]
    TooDeep {
        /// The depth asked for.
        depth: u32,
        /// The board's width.
        width: usize,
        /// The board's height.
        height: usize,
        /// The most positions the depth can hold.
        most: u128,
    },
    /// The system refused memory for the list.
    #[error("not enough memory to list the positions of a book of depth {depth}")]
    Memory {
        /// The depth asked for.
        depth: u32,
    },
}

/// The most positions a plan lists (about 7 GiB of memory): far beyond
/// the books score4 builds (`docs/book.md`), and a
/// bound on what a mistyped depth or a forged book header can make a
/// command allocate.
pub const MAX_POSITIONS: usize = 100_000_000;

/// Fewest positions a share's plan may list, whatever its record count:
/// room for every position of the small boards (a few seconds and tens
/// of MiB at most).
const SHARE_FLOOR: usize = 2_000_000;

/// Positions per leaf a share's plan may list. Up to the middle of the
/// game each level of a board holds more positions than all shallower
/// ones together, so a plan lists fewer than two positions per leaf;
/// five leaves room for depths well past that.
const SHARE_RATIO: usize = 5;

/// The most positions the plan of a book with about `leaves` leaves
/// may list, when only its shares are at hand: a share of `count` holds
/// a `1/count` run of the leaves (give or take one), so `count` times
/// its records bound them, and the plan is a small multiple of its
/// leaves. A forged share (a deep book with no records) is refused after
/// listing this many positions, not after [`MAX_POSITIONS`].
pub fn share_limit(leaves: usize) -> usize {
    leaves
        .saturating_mul(SHARE_RATIO)
        .saturating_add(SHARE_FLOOR)
        .min(MAX_POSITIONS)
}

/// The leaves of a book at most, from the records of one of its `count`
/// shares.
pub fn leaves_of_share(records: usize, count: usize) -> usize {
    records.saturating_add(1).saturating_mul(count)
}

/// Every position a book of `depth` holds on its board, by number of moves.
pub struct Plan {
    shape: Shape,
    depth: u32,
    levels: Vec<Vec<Position>>,
}

/// Pushes `x`, growing `v` by a fallible reservation.
fn push<T>(v: &mut Vec<T>, x: T, depth: u32) -> Result<(), PlanError> {
    if v.len() == v.capacity() {
        v.try_reserve(v.len().max(64))
            .map_err(|_| PlanError::Memory { depth })?;
    }
    v.push(x);
    Ok(())
}

impl Plan {
    /// The positions of a book of `depth` on the board `shape` (the depth
    /// capped at the board's cells).
    ///
    /// # Panics
    ///
    /// If there are more than [`MAX_POSITIONS`] or memory runs out; see
    /// [`try_new`](Self::try_new).
    pub fn new(shape: &Shape, depth: u32) -> Self {
        match Self::try_new(shape, depth, MAX_POSITIONS) {
            Ok(plan) => plan,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`new`](Self::new), or an error once more than `limit` positions
    /// are found or memory runs out; at once, before listing any, for a
    /// depth whose positions could be more than [`MAX_POSITIONS`].
    pub fn try_new(shape: &Shape, depth: u32, limit: usize) -> Result<Self, PlanError> {
        Self::with_hasher::<ahash::RandomState>(shape, depth, limit)
    }

    /// [`try_new`](Self::try_new) with the set that finds repeated
    /// positions hashed by `S` (to compare hashers).
    pub fn with_hasher<S: BuildHasher + Default>(
        shape: &Shape,
        depth: u32,
        limit: usize,
    ) -> Result<Self, PlanError> {
        let (width, height) = (shape.width(), shape.height());
        let depth = depth.min(shape.cells() as u32);
        let most = positions_at_most(width, height, depth);
        if most > MAX_POSITIONS as u128 {
            return Err(PlanError::TooDeep {
                depth,
                width,
                height,
                most,
            });
        }
        let memory = PlanError::Memory { depth };
        let mut levels = Vec::new();
        levels
            .try_reserve_exact(depth as usize + 1)
            .map_err(|_| memory.clone())?;
        levels.resize_with(depth as usize + 1, Vec::new);
        let mut seen: HashSet<u128, S> = HashSet::default();
        let mut stack = Vec::new();
        push(&mut stack, Position::new(), depth)?;
        while let Some(p) = stack.pop() {
            seen.try_reserve(1).map_err(|_| memory.clone())?;
            if !seen.insert(p.canonical_key(shape)) {
                continue;
            }
            if seen.len() > limit {
                return Err(PlanError::TooLarge { depth, limit });
            }
            let n = p.moves_played();
            push(&mut levels[n as usize], p, depth)?;
            if n == depth {
                continue;
            }
            // Pushed right to left, so the walk visits columns left to right.
            for col in (0..width).rev() {
                if p.can_play(shape, col) && !p.is_winning_move(shape, col) {
                    let child = p.after(shape, col);
                    if !child.is_full(shape) {
                        push(&mut stack, child, depth)?;
                    }
                }
            }
        }
        Ok(Plan {
            shape: *shape,
            depth,
            levels,
        })
    }

    /// The board.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The depth: positions with at most this many moves.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The positions with exactly `moves` moves.
    pub fn level(&self, moves: u32) -> &[Position] {
        self.levels.get(moves as usize).map_or(&[], Vec::as_slice)
    }

    /// The positions solved by search: those with `depth` moves.
    pub fn leaves(&self) -> &[Position] {
        self.level(self.depth)
    }

    /// Every position, shallowest first.
    pub fn positions(&self) -> impl Iterator<Item = &Position> {
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
    pub fn share(&self, index: usize, count: usize) -> &[Position] {
        let leaves = self.leaves();
        let count = count.max(1);
        let index = index.clamp(1, count);
        let at = |i: usize| leaves.len() * i / count;
        &leaves[at(index - 1)..at(index)]
    }

    /// The whole book from the score of every leaf (`leaf` looks one up
    /// by canonical key), backed up to the shallower positions. A leaf
    /// score no position with its moves can have is refused: it came
    /// from a file.
    pub fn complete(&self, leaf: impl Fn(u128) -> Option<i8>) -> Result<Book, PlanError> {
        let memory = || PlanError::Memory { depth: self.depth };
        let mut scores: ahash::AHashMap<u128, i8> = ahash::AHashMap::default();
        scores.try_reserve(self.len()).map_err(|_| memory())?;
        let mut missing = 0;
        for p in self.leaves() {
            let key = p.canonical_key(&self.shape);
            match leaf(key) {
                Some(score) if self.fits(p, score) => {
                    scores.insert(key, score);
                }
                Some(score) => {
                    return Err(PlanError::Score {
                        key,
                        score,
                        depth: self.depth,
                    })
                }
                None => missing += 1,
            }
        }
        if missing > 0 {
            return Err(PlanError::Missing {
                missing,
                leaves: self.leaves().len(),
                depth: self.depth,
            });
        }
        let shape = &self.shape;
        for moves in (0..self.depth).rev() {
            for p in self.level(moves) {
                let score = best_child(shape, p, |child| {
                    scores.get(&child.canonical_key(shape)).copied()
                });
                scores.insert(p.canonical_key(shape), score);
            }
        }
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(scores.len())
            .map_err(|_| memory())?;
        entries.extend(scores);
        Book::try_from_entries(self.shape, self.depth, Kind::Book, entries).ok_or_else(memory)
    }

    /// Whether `score` is one the position `p` can have.
    fn fits(&self, p: &Position, score: i8) -> bool {
        score::range(self.shape.cells(), p.moves_played()).contains(&i32::from(score))
    }

    /// A share's part: the scores of its leaves, from `leaf`.
    pub fn part(
        &self,
        index: usize,
        count: usize,
        leaf: impl Fn(u128) -> Option<i8>,
    ) -> Result<Book, PlanError> {
        let memory = || PlanError::Memory { depth: self.depth };
        let share = self.share(index, count);
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(share.len())
            .map_err(|_| memory())?;
        for p in share {
            let key = p.canonical_key(&self.shape);
            if let Some(score) = leaf(key) {
                if !self.fits(p, score) {
                    return Err(PlanError::Score {
                        key,
                        score,
                        depth: self.depth,
                    });
                }
                entries.push((key, score));
            }
        }
        if entries.len() < share.len() {
            return Err(PlanError::Missing {
                missing: share.len() - entries.len(),
                leaves: share.len(),
                depth: self.depth,
            });
        }
        let kind = Kind::Share {
            index: index as u16,
            count: count as u16,
        };
        Book::try_from_entries(self.shape, self.depth, kind, entries).ok_or_else(memory)
    }

    /// Joins the parts of every share into the whole book. Refused: parts
    /// of another board or depth, a missing share, shares of different
    /// cuttings, a position two parts score differently, and a score no
    /// leaf can have.
    pub fn merge(&self, parts: &[Book]) -> Result<Book, PlanError> {
        check_shares(parts, &self.shape, self.depth)?;
        let mut scores: ahash::AHashMap<u128, i8> = ahash::AHashMap::default();
        let records = parts.iter().map(Book::len).sum();
        scores
            .try_reserve(records)
            .map_err(|_| PlanError::Memory { depth: self.depth })?;
        for part in parts {
            for (key, score) in part.entries() {
                if let Some(old) = scores.insert(key, score as i8) {
                    if old != score as i8 {
                        return Err(PlanError::Merge(format!(
                            "shares disagree on position key {key}: {old} and {score}"
                        )));
                    }
                }
            }
        }
        let strays = scores.len().saturating_sub(self.leaves().len());
        let book = self.complete(|key| scores.get(&key).copied())?;
        if strays > 0 {
            return Err(PlanError::Strays(strays));
        }
        Ok(book)
    }
}

/// Checks that `parts` are the shares of one cutting of a book of the
/// board `shape` and `depth`, every share there: what can be known
/// without listing the book's positions.
pub fn check_shares(parts: &[Book], shape: &Shape, depth: u32) -> Result<(), PlanError> {
    let fail = |why: String| Err(PlanError::Merge(why));
    let mut count = None;
    let mut have = Vec::new();
    for part in parts {
        let Kind::Share { index, count: c } = part.kind() else {
            return fail("a whole book is not a share: merge the parts".into());
        };
        if part.shape() != shape || part.depth() != depth {
            return fail(format!(
                "share {index}/{c} is for {} depth {}, not {shape} depth {depth}",
                part.shape(),
                part.depth(),
            ));
        }
        if *count.get_or_insert(c) != c {
            return fail(format!(
                "share {index}/{c} is from a cutting into {} shares",
                count.unwrap_or(c)
            ));
        }
        have.push(index);
    }
    let count = count.unwrap_or(0);
    if let Some(gap) = (1..=count).find(|i| !have.contains(i)) {
        return fail(format!("share {gap}/{count} is missing"));
    }
    if count == 0 {
        return fail("no parts given".into());
    }
    Ok(())
}

/// The score of `p` from its moves: a winning move scores the win, a move
/// that fills the board a draw, any other the negated score `child` gives
/// for the position it leads to.
fn best_child(shape: &Shape, p: &Position, child: impl Fn(&Position) -> Option<i8>) -> i8 {
    let mut best = i32::MIN;
    for col in (0..shape.width()).filter(|&col| p.can_play(shape, col)) {
        let score = if p.is_winning_move(shape, col) {
            score::win(shape.cells(), p.moves_played())
        } else {
            let next = p.after(shape, col);
            if next.is_full(shape) {
                0
            } else {
                -i32::from(child(&next).expect("every child in play is in the book"))
            }
        };
        best = best.max(score);
    }
    best as i8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::plain::{compiled, plain_negamax, Memo};

    #[test]
    fn a_complete_small_book_agrees_with_plain_negamax() {
        // 4x4 to the end: no position with 16 moves is in play, so every
        // score comes from backing up.
        let shape = Shape::any(4, 4);
        let plan = Plan::new(&shape, 16);
        assert!(plan.leaves().is_empty());
        let book = plan.complete(|_| None).unwrap();
        assert_eq!(book.len(), plan.len());
        let mut memo = Memo::default();
        for p in plan.positions() {
            let typed = compiled::<4, 4>(p);
            let expected = plain_negamax(&typed, &mut memo);
            assert_eq!(book.score(&typed), Some(expected), "{p:?}");
            assert_eq!(book.score(&typed.mirror()), Some(expected));
            assert_eq!(book.score_as_data(&shape, p), Some(expected));
        }
    }

    #[test]
    fn a_leaf_score_out_of_range_is_refused() {
        let shape = Shape::any(5, 4);
        let plan = Plan::new(&shape, 6);
        let leaf = plan.leaves()[0];
        let first = leaf.canonical_key(&shape);
        let best = *score::range(shape.cells(), leaf.moves_played()).end() as i8;
        let forged = |key| Some(if key == first { best + 1 } else { 0 });
        assert!(matches!(
            plan.complete(forged),
            Err(PlanError::Score { key, .. }) if key == first
        ));
        assert!(matches!(
            plan.part(1, 2, forged),
            Err(PlanError::Score { key, .. }) if key == first
        ));
    }

    #[test]
    fn a_share_limit_fits_real_shares_and_refuses_forged_ones() {
        // Every share of real books lists within its limit, from its own
        // records (as a check does) or from every share's (as a merge).
        for depth in [6, 10] {
            let plan = Plan::new(&Shape::standard(), depth);
            let leaves = plan.leaves().len();
            assert!(plan.len() <= share_limit(leaves));
            for count in [1, 3, 64, 1000] {
                for index in [1, count] {
                    let records = plan.share(index, count).len();
                    assert!(plan.len() <= share_limit(leaves_of_share(records, count)));
                }
            }
        }
        // A 7x6 book with no records is refused early: one too deep to
        // list before listing, one that can be listed at its share's limit.
        let limit = share_limit(leaves_of_share(0, 1));
        assert!(limit < MAX_POSITIONS);
        assert!(matches!(
            Plan::try_new(&Shape::standard(), 42, limit),
            Err(PlanError::TooDeep { .. })
        ));
        assert!(matches!(
            Plan::try_new(&Shape::standard(), 12, limit),
            Err(PlanError::TooLarge { .. })
        ));
    }
}
