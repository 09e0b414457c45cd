//! Proof-number search: whether the side to move wins, or more generally
//! scores above a value, proved by a depth-first proof-number search
//! (df-pn, Nagai 2002) over its own table.
//!
//! A question of "win or not" (or "above alpha or not") has a proof that
//! is a tree of one move of the side that meets it against every reply. Proof-number search grows that tree where
//! it is cheapest to finish: each position carries the number of positions
//! still to be decided to prove its side's goal (`phi`) and to disprove it
//! (`delta`), and the search always goes down the child that is closest to
//! deciding. The depth-first version keeps those numbers in a table and
//! goes back up only when a threshold is passed, so its memory is the
//! table's.
//!
//! The two sides' goals differ (the attacker must score above alpha, say
//! win; the defender's goal is the rest, say a draw or better), so each
//! position carries its side to move's goal as a null window, negated and
//! shifted from parent to child as in a negamax search; at every position
//! the side to move's goal is met if one of its moves leaves the other's
//! goal unmet, which makes the numbers negamax-like: `phi = min(delta of
//! the children)`, `delta = sum(phi of the children)`.
//!
//! At each position the search knows a win on the next move, the moves
//! that do not hand the opponent a win ([`Position::non_losing_moves`])
//! and a full board; as options, what the alpha-beta search's static
//! bounds decide ([`ProofSearch::with_static_bounds`]), and the alpha-beta
//! search itself for the positions near the end
//! ([`ProofSearch::with_leaves`]). It is measured against the alpha-beta
//! search on the same questions in `docs/experiments.md`; a strong solve
//! asks it the sign of the boards where it proves that with far fewer
//! positions (`tuning::PROOF_SIGN_BOARDS`).

use super::bounds;
use super::engine::finished_score;
use super::search::Threats;
use crate::{Geometry, Position, Solver};

/// A proof or disproof number: positions still to decide, [`INFINITE`]
/// once the other outcome is proven.
type Number = u64;

/// What a proven outcome's other number is: far above any count of
/// positions the search can make, and small enough that sums of a board's
/// worth of them do not overflow.
const INFINITE: Number = 1 << 40;

/// A position's numbers from its side to move's view: to prove that side's
/// goal, and to disprove it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Numbers {
    phi: Number,
    delta: Number,
}

impl Numbers {
    const MET: Numbers = Numbers {
        phi: 0,
        delta: INFINITE,
    };
    const UNMET: Numbers = Numbers {
        phi: INFINITE,
        delta: 0,
    };
    /// A position not looked at yet.
    const UNKNOWN: Numbers = Numbers { phi: 1, delta: 1 };
}

/// The most children a position has: one a column.
const MAX_CHILDREN: usize = 16;

/// One entry of the [`Table`]: a position's numbers, under its key and
/// its side to move's goal (`goal`: 0 for an empty slot, else the goal's
/// alpha plus [`GOAL_OFFSET`]), with the positions its searches expanded
/// (`work`), which decides what is replaced.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    numbers: Numbers,
    work: u32,
    goal: u16,
}

/// Makes every goal's tag positive: no score reaches this far below 0.
const GOAL_OFFSET: i32 = 1 << 12;

/// Two slots, the size of a cache line: where a key may be. Not aligned
/// to one: the allocator zeroes an over-aligned table by writing it
/// whole, where an aligned one comes as untouched pages.
#[derive(Clone, Copy, Default)]
struct Bucket([Slot; 2]);

// SAFETY: integers only (an all-zero slot is an empty one).
unsafe impl crate::mem::ZeroBits for Bucket {}

/// The search's table: a fixed number of buckets of two slots. A new
/// entry takes the slot of its key, else an empty one, else the one whose
/// searches expanded fewer positions, so the costliest results stay. Its
/// memory is fixed from the start, and a look-up reads one cache line: a
/// hash map grown to tens of millions of entries, and emptied when full,
/// made each position cost several cache misses.
struct Table {
    buckets: Box<[Bucket]>,
    /// `64 - log2(buckets)`: the hash's top bits pick the bucket.
    shift: u32,
}

impl Table {
    fn new(max_entries: usize) -> Self {
        let buckets = max_entries.div_ceil(2).next_power_of_two().max(1);
        // Zeroed by the system as pages are first touched: a large table
        // costs only what a search fills.
        Table {
            buckets: crate::mem::zeroed(buckets).expect("memory for the proof-number table"),
            shift: 64 - buckets.trailing_zeros(),
        }
    }

    fn goal(alpha: i32) -> u16 {
        (alpha + GOAL_OFFSET) as u16
    }

    fn bucket(&self, key: u64, goal: u16) -> usize {
        let hash = (key ^ u64::from(goal)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // A table of one bucket shifts by 64, which `checked_shr` makes 0.
        hash.checked_shr(self.shift).unwrap_or(0) as usize
    }

    fn prefetch(&self, key: u64, alpha: i32) {
        crate::mem::prefetch(&self.buckets[self.bucket(key, Self::goal(alpha))]);
    }

    fn get(&self, key: u64, alpha: i32) -> Option<Numbers> {
        let goal = Self::goal(alpha);
        let b = &self.buckets[self.bucket(key, goal)];
        b.0.iter()
            .find(|s| s.goal == goal && s.key == key)
            .map(|s| s.numbers)
    }

    fn put(&mut self, key: u64, alpha: i32, numbers: Numbers, work: u64) {
        let goal = Self::goal(alpha);
        let i = self.bucket(key, goal);
        let b = &mut self.buckets[i].0;
        let work = u32::try_from(work).unwrap_or(u32::MAX);
        let at = match b.iter().position(|s| s.goal == goal && s.key == key) {
            // The same position searched again: its work adds up.
            Some(at) => {
                b[at].work = b[at].work.saturating_add(work);
                at
            }
            None => {
                let at = match b.iter().position(|s| s.goal == 0) {
                    Some(at) => at,
                    None => usize::from(b[1].work < b[0].work),
                };
                b[at].work = work;
                at
            }
        };
        b[at].key = key;
        b[at].goal = goal;
        b[at].numbers = numbers;
    }

    /// Slots in use.
    #[cfg(test)]
    fn filled(&self) -> usize {
        self.buckets
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|s| s.goal != 0)
            .count()
    }
}

/// A proof-number search for positions of a `W` x `H` board, with the
/// table it keeps between questions.
///
/// ```
/// use score4::solver::proof::ProofSearch;
/// use score4::Position;
/// let mut search = ProofSearch::<7, 6>::new(1 << 20);
/// // Three in column 1, for the side to move.
/// let p: Position = "121212".parse().unwrap();
/// assert_eq!(search.wins(&p, u64::MAX), Some(true));
/// // A draw is no win: 4x4 is a draw from its empty board.
/// let mut small = ProofSearch::<4, 4>::new(1 << 20);
/// assert_eq!(small.wins(&Position::new(), u64::MAX), Some(false));
/// ```
pub struct ProofSearch<const W: usize, const H: usize> {
    /// Each expanded position's numbers, by its key and its side to
    /// move's goal.
    table: Table,
    /// Positions expanded (their children made) so far.
    expanded: u64,
    /// Positions made (children of expanded ones) so far.
    made: u64,
    /// When to give up, in positions expanded.
    limit: u64,
    /// The alpha-beta search that decides the positions with at most so
    /// many empty cells, if any: proof numbers near the root only.
    leaves: Option<(Solver<W, H>, u32)>,
    /// Whether a position the alpha-beta search's static bounds decide
    /// (claimeven, with pairs of odd columns, and sealing threats) is a
    /// leaf.
    static_bounds: bool,
}

impl<const W: usize, const H: usize> ProofSearch<W, H> {
    /// A search whose table keeps at most `max_entries` positions (rounded
    /// up to a power of two), 32 bytes each, allocated at once.
    pub fn new(max_entries: usize) -> Self {
        ProofSearch {
            table: Table::new(max_entries),
            expanded: 0,
            made: 0,
            limit: u64::MAX,
            leaves: None,
            static_bounds: false,
        }
    }

    /// Takes a position the alpha-beta search's static bounds decide
    /// (claimeven, with pairs of odd columns, and sealing threats) as
    /// decided: the knowledge that search has at each position.
    pub fn with_static_bounds(mut self) -> Self {
        self.static_bounds = true;
        self
    }

    /// Leaves the positions with at most `empty` empty cells to `solver`'s
    /// alpha-beta search (one null-window probe each): proof numbers near
    /// the root, alpha-beta below. Its positions count as this search's.
    pub fn with_leaves(mut self, solver: Solver<W, H>, empty: u32) -> Self {
        self.leaves = Some((solver, empty));
        self
    }

    /// Whether the side to move in `p` wins (a draw is not a win), or
    /// `None` if `max_expanded` more positions did not decide it. A finished
    /// game is no win for the side to move.
    pub fn wins(&mut self, p: &Position<W, H>, max_expanded: u64) -> Option<bool> {
        self.above(p, 0, max_expanded)
    }

    /// Whether `p` scores more than `alpha` for the side to move (in the
    /// [`score`](crate::score) convention), or `None` if `max_expanded`
    /// more positions did not decide it. A finished game scores as
    /// [`Solver::solve`] scores it.
    pub fn above(&mut self, p: &Position<W, H>, alpha: i32, max_expanded: u64) -> Option<bool> {
        if let Some(score) = finished_score(p) {
            return Some(score > alpha);
        }
        self.limit = self.expanded.saturating_add(max_expanded);
        let root = match self.leaf(p, alpha) {
            Ok(n) => n,
            Err(_) => self.mid(p, alpha, INFINITE, INFINITE),
        };
        if root.phi == 0 {
            Some(true)
        } else if root.delta == 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Positions expanded so far: each a call that made a position's
    /// children, as often as the search came back to it.
    pub fn expanded(&self) -> u64 {
        self.expanded
    }

    /// Positions made so far (children, each time their parent was
    /// expanded): what the alpha-beta search counts as positions.
    pub fn positions(&self) -> u64 {
        self.made
    }

    /// The outcome at `p` for a goal of more than `alpha` if its own level
    /// decides it: the side to move wins on its next move, or has no move
    /// that does not lose, or the board is full. Otherwise the number of
    /// moves that do not lose, which its parent takes for its first
    /// disproof number.
    fn leaf(&mut self, p: &Position<W, H>, alpha: i32) -> Result<Numbers, Number> {
        let met = |score: i32| {
            if score > alpha {
                Numbers::MET
            } else {
                Numbers::UNMET
            }
        };
        let cells = Position::<W, H>::CELLS as usize;
        let n = p.moves_played();
        // Each side's winning cells once: the tests below and the static
        // bounds all start from them.
        let ours = p.winning_cells();
        if (ours & p.playable()).any() {
            return Ok(met(crate::score::win(cells, n)));
        }
        let drawn = met(0);
        if p.is_full() {
            return Ok(drawn);
        }
        let theirs = p.opponent_winning_cells();
        let moves = p.non_losing_moves_against(theirs);
        if moves.is_empty() {
            // The opponent wins with its next disc, whatever the move.
            return Ok(met(-crate::score::win(cells, n + 1)));
        }
        let empty = Position::<W, H>::CELLS - n;
        if self.static_bounds {
            if empty <= 2 {
                // Neither of the last two moves can win (as in the
                // alpha-beta search, which checks this before its bounds).
                return Ok(drawn);
            }
            let threats = Threats { ours, theirs };
            let (min, max) =
                bounds::static_bounds(&Geometry::<W, H>, p.discs(), alpha, alpha + 1, threats);
            if min > alpha {
                return Ok(Numbers::MET);
            }
            if max <= alpha {
                return Ok(Numbers::UNMET);
            }
        }
        if let Some((solver, most)) = &mut self.leaves {
            if empty <= *most {
                let before = solver.nodes();
                let met = solver.probe(p, alpha).above(alpha) == Some(true);
                self.made += solver.nodes() - before;
                return Ok(if met { Numbers::MET } else { Numbers::UNMET });
            }
        }
        Err(Number::from(moves.count()))
    }

    /// Multiple-iterative deepening at `p` (not decided at its own level):
    /// searches until its numbers reach the thresholds, and returns them.
    fn mid(&mut self, p: &Position<W, H>, alpha: i32, th_phi: Number, th_delta: Number) -> Numbers {
        let start = self.expanded;
        self.expanded += 1;
        let mut children = [Position::<W, H>::new(); MAX_CHILDREN];
        let mut numbers = [Numbers::UNKNOWN; MAX_CHILDREN];
        let mut keys = [0u64; MAX_CHILDREN];
        let mut n = 0;
        let moves = p.non_losing_moves();
        // Every child's bucket is asked for before any is read: the look-ups
        // miss the cache, and this way they wait for memory together.
        for col in crate::bitboard::centre_first::<W>() {
            if (moves & p.landing_cell(col)).any() {
                children[n] = p.after(col);
                keys[n] = children[n].canonical_key();
                self.table.prefetch(keys[n], -alpha - 1);
                n += 1;
            }
        }
        for i in 0..n {
            // The table first: a position stored there was expanded, so it
            // is no leaf, and a position comes back to its parent's loop
            // many times.
            numbers[i] = match self.table.get(keys[i], -alpha - 1) {
                Some(known) => known,
                None => match self.leaf(&children[i], -alpha - 1) {
                    Ok(leaf) => leaf,
                    Err(moves) => Numbers {
                        phi: 1,
                        delta: moves,
                    },
                },
            };
        }
        self.made += n as u64;
        loop {
            let mut phi = INFINITE;
            let mut delta: Number = 0;
            let (mut best, mut best_delta, mut second_delta) = (0, INFINITE, INFINITE);
            for (i, c) in numbers[..n].iter().enumerate() {
                phi = phi.min(c.delta);
                delta = (delta + c.phi).min(INFINITE);
                if c.delta < best_delta {
                    second_delta = best_delta;
                    best_delta = c.delta;
                    best = i;
                } else if c.delta < second_delta {
                    second_delta = c.delta;
                }
            }
            let here = Numbers { phi, delta };
            if phi >= th_phi || delta >= th_delta || self.expanded >= self.limit {
                let work = self.expanded - start;
                // A position and its mirror image have the same numbers.
                self.table.put(p.canonical_key(), alpha, here, work);
                return here;
            }
            let c = numbers[best];
            // The child's thresholds: its delta may rise until this
            // position's phi would pass its own threshold or the next
            // best child's; its phi until this position's delta would.
            let child_th_phi = th_delta - (delta - c.phi);
            let child_th_delta = th_phi.min(second_delta.saturating_add(second_delta / 4 + 1));
            numbers[best] = self.mid(&children[best], -alpha - 1, child_th_phi, child_th_delta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use score4_testkit::naive::{late_game, Naive};
    use score4_testkit::Rng;

    /// The search's answer on random positions with `empty` cells left
    /// against the unpruned negamax's score; the positions checked.
    /// [`wins`](ProofSearch::wins) only, or with `near`, `above` at the
    /// windows next to each exact score as well (where a wrong leaf or a
    /// wrong shift of the window from parent to child shows).
    fn agree<const W: usize, const H: usize>(
        search: &mut ProofSearch<W, H>,
        empty: usize,
        count: usize,
        seed: u64,
    ) -> usize {
        agree_at(search, empty, count, seed, false)
    }

    fn agree_at<const W: usize, const H: usize>(
        search: &mut ProofSearch<W, H>,
        empty: usize,
        count: usize,
        seed: u64,
        near: bool,
    ) -> usize {
        let mut rng = Rng::new(seed);
        let mut naive = Naive::new();
        let mut checked = 0;
        for _ in 0..count {
            let Some((moves, g)) = late_game(W, H, empty, &mut rng) else {
                continue;
            };
            let p: Position<W, H> = moves.parse().expect("a position in play");
            let score = naive.score(&g);
            assert_eq!(
                search.wins(&p, u64::MAX),
                Some(score > 0),
                "{W}x{H} {moves}: {score}"
            );
            if near {
                for alpha in [score - 2, score - 1, score, score + 1] {
                    assert_eq!(
                        search.above(&p, alpha, u64::MAX),
                        Some(score > alpha),
                        "{W}x{H} {moves}: {score} above {alpha}"
                    );
                }
            }
            checked += 1;
        }
        checked
    }

    #[test]
    fn wins_as_the_unpruned_negamax_scores() {
        let mut checked = agree(&mut ProofSearch::<5, 4>::new(1 << 20), 12, 60, 2);
        checked += agree(&mut ProofSearch::<4, 5>::new(1 << 20), 14, 80, 3);
        checked += agree(&mut ProofSearch::<6, 4>::new(1 << 20), 11, 60, 4);
        checked += agree(&mut ProofSearch::<7, 6>::new(1 << 20), 12, 100, 5);
        assert!(checked >= 250, "only {checked} positions checked");
    }

    #[test]
    fn above_any_window_as_the_unpruned_negamax_scores() {
        let mut checked = agree_at(&mut ProofSearch::<5, 4>::new(1 << 16), 12, 40, 20, true);
        checked += agree_at(&mut ProofSearch::<7, 6>::new(1 << 16), 12, 60, 21, true);
        let mut bounded = ProofSearch::<7, 6>::new(1 << 16).with_static_bounds();
        checked += agree_at(&mut bounded, 12, 60, 22, true);
        let mut bounded = ProofSearch::<6, 4>::new(1 << 16).with_static_bounds();
        checked += agree_at(&mut bounded, 11, 40, 23, true);
        assert!(checked >= 170, "only {checked} positions checked");
        // A finished game: the last move made four, or the board is full.
        let won: Position = "1212121".parse().unwrap();
        let mut search = ProofSearch::<7, 6>::new(1 << 10);
        let lost = -crate::score::win_by_disc(42, 7);
        assert_eq!(search.above(&won, lost - 1, 10), Some(true));
        assert_eq!(search.above(&won, lost, 10), Some(false));
    }

    #[test]
    fn alpha_beta_leaves_change_no_answer() {
        let leaves = |empty| {
            let mut solver = Solver::<5, 4>::with_table_mb(4);
            solver.drop_book();
            ProofSearch::<5, 4>::new(1 << 20).with_leaves(solver, empty)
        };
        let mut checked = agree(&mut leaves(6), 12, 60, 8);
        let mut search = leaves(9);
        checked += agree(&mut search, 13, 40, 9);
        assert!(checked >= 90, "only {checked} positions checked");
        assert!(search.positions() > 0);
    }

    #[test]
    fn static_bounds_change_no_answer() {
        let mut checked = agree(
            &mut ProofSearch::<5, 4>::new(1 << 20).with_static_bounds(),
            12,
            60,
            10,
        );
        checked += agree(
            &mut ProofSearch::<7, 6>::new(1 << 20).with_static_bounds(),
            12,
            60,
            11,
        );
        checked += agree(
            &mut ProofSearch::<6, 4>::new(1 << 20).with_static_bounds(),
            11,
            40,
            12,
        );
        assert!(checked >= 140, "only {checked} positions checked");
    }

    #[test]
    fn a_table_that_replaces_as_it_fills_changes_no_answer() {
        let mut small = ProofSearch::<5, 4>::new(256);
        let checked = agree(&mut small, 12, 60, 6);
        assert!(checked >= 50, "only {checked} positions checked");
        // The small table replaced entries on the way: what it forgot was
        // searched again, which one that keeps everything need not do.
        let mut large = ProofSearch::<5, 4>::new(1 << 20);
        agree(&mut large, 12, 60, 6);
        assert!(
            large.table.filled() > 256,
            "{} entries",
            large.table.filled()
        );
        assert!(small.table.filled() <= 256);
        assert!(small.expanded() > large.expanded());
        // A table of one bucket is still sound.
        assert!(agree(&mut ProofSearch::<5, 4>::new(1), 12, 20, 7) >= 15);
    }

    #[test]
    fn a_search_out_of_positions_says_so() {
        let mut search = ProofSearch::<7, 6>::new(1 << 16);
        assert_eq!(search.wins(&Position::new(), 100), None);
        assert!(search.expanded() <= 101);
        let over: Position = "1212121".parse().unwrap();
        assert_eq!(search.wins(&over, 10), Some(false));
    }
}
