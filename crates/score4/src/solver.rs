//! The perfect solver: the exact game value of any position.
//!
//! Scores follow the usual convention (see [`Solver::solve`]): positive when
//! the side to move wins, larger for a faster win. The search is negamax with
//! alpha-beta pruning, driven by null-window probes that bisect the possible
//! score range, over a transposition table of proven bounds. Losing moves are
//! never searched, moves are tried centre-first and most-threatening-first,
//! and a position and its mirror image share table entries. Static bounds
//! end many searches early: a side with no line left open cannot win, and
//! a side that can answer every move on top of it ("claimeven") decides
//! which cells each side gets.
//!
//! ```
//! use score4::{Position, Solver};
//! let mut solver = Solver::<7, 6>::with_table_mb(4);
//! // The side to move completes three in a row on the bottom and wins at once.
//! let p: Position = "445566".parse().unwrap();
//! assert_eq!(solver.solve(&p), 18);
//! assert_eq!(solver.solve_weak(&p), 1);
//! assert_eq!(solver.best_move(&p), Some(2));
//! let scores = solver.analyze(&p);
//! assert_eq!(scores[2], Some(18));
//! assert_eq!(scores[6], Some(18));
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use thiserror::Error;

use crate::bitboard::{Bitboard, Geometry};
use crate::position::Position;
use crate::table::{Table, TableError};

/// Table size of [`Solver::new`], in mebibytes: the best for one thread.
///
/// Solving the empty 7x6 board from scratch visits hundreds of millions
/// of positions, far more than any table holds, so what counts is keeping
/// the entries that cost most (see the table's buckets) and the time per
/// look-up. Measured on the empty board, one thread, on a shared 2-core
/// machine (rough, +-10%; `echo | score4 solve --stats --table-mb N`):
/// 1 GiB searched 368 million positions in 41 s, 64 MiB 392 million in
/// 29 s, 16 MiB 423 million in 29.5 s, 8 MiB 448 million in 26 s, 4 MiB
/// 487 million in 24.6 s, 2 MiB 547 million in 27 s. A table that
/// mostly stays in the processor's caches answers so much faster that it
/// outweighs the extra positions; on the fixture sets 4 MiB was also
/// the fastest (a sixth to a quarter less time than 16 MiB). Since a
/// table of 64 MiB or more keeps the positions near the end apart in a
/// small one (see [`NEAR_TABLE_MB`]), a large table is about as fast
/// (1 GiB: 431 million positions in 41.8-47.6 s against 40.8-47.7 s for
/// 4 MiB, measured on a slower day) but not faster, and costs the memory:
/// `with_table_mb` for those who want it.
pub const DEFAULT_TABLE_MB: usize = 4;

/// Size of the second, cache-sized table that large tables come with, in
/// mebibytes (see [`Solver::with_table_mb`]).
pub const NEAR_TABLE_MB: usize = 4;

/// Tables of at least this many mebibytes come with the near table.
const NEAR_TABLE_FROM_MB: usize = 64;

/// Positions with at most this many empty cells go to the near table, when
/// there is one. Measured on the empty board, one thread, 1 GiB (rough: the
/// machine's speed drifted by a fifth over the hour): 84 s with one table;
/// positions with at most 20 empty cells in a 4 MiB table 67 s, at most 26
/// 63 s, at most 30 61.5 s, against 60-70 s for 4 MiB alone.
const NEAR_MAX_EMPTY: i32 = 30;

/// Positions with fewer moves played than this, once the sign of their
/// score is known, probe first at the score nearest zero on that side
/// (1 for a win, -1 for a loss) instead of halfway to the far bound.
///
/// Why only these: so early, a win or loss can only come very late, so
/// the score is almost always within one or two of zero, and one probe
/// settles it. Later positions score all over the range, where the probe
/// next to zero was measured 2-5% slower on the fixture sets. Measured on
/// the empty board (one thread, 4 MiB, `echo | score4 solve --stats`):
/// 487M -> 435M positions, 54-55 s -> 47-48 s; the first 20 of opening_L3
/// (3 or more moves played) unchanged.
const BOUNDARY_PROBE_BELOW_MOVES: i32 = 4;

/// Table size for threads searching together (see
/// [`Solver::set_threads`]), in mebibytes: they share their findings only
/// through the table, so a larger one pays. Measured on the empty board
/// with 2 threads: 4 MiB 24 s, 8 MiB 23 s, 16 to 64 MiB 19 to 21 s; and
/// again once helpers put off the main search's move (on a slower day,
/// one run each): 16 MiB 26.3 s, 32 MiB 26.9 s, 64 MiB 27.0 s, 1 GiB
/// 30.1 s.
pub const DEFAULT_SHARED_TABLE_MB: usize = 32;

/// With more empty cells than this, child positions are looked up in the
/// table before any is searched (enhanced transposition cut-off): a cut
/// saves a subtree, and a child's upper bound raises this position's lower
/// one, but near the end the subtrees are too small to repay the wait for
/// the entries. Measured on 7x6 fixture sets (ply9-14, midgame_L2,
/// opening_L1, opening_L2, best of three runs): 18 against 10 searches
/// 1-15% more positions in 12-30% less time; 24 and more lose again.
const ETC_MIN_EMPTY: u32 = 18;

/// With fewer empty cells than this, positions are neither looked up in
/// nor stored in the table: their subtrees are so small that searching
/// them again costs less than the cache misses a table entry costs.
/// Measured on 7x6 fixture sets: 6 took a fifth off the time of the
/// heavier sets for a few percent more positions searched.
const TABLE_MIN_EMPTY: i32 = 6;

/// A search that needs at least this score from the side to move (a win
/// with 6 or more discs to spare) tries first the moves that the opponent
/// must answer at once. Measured on 7x6 fixture sets: opening_L1, whose
/// positions are mostly quick wins, a sixth fewer positions; the sets that
/// score near zero at most 2% more.
const FAST_WIN: i32 = 6;

/// Why a position cannot be solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SolveError {
    /// Every cell is taken and nobody has four in a row.
    #[error("the board is full")]
    BoardFull,
    /// Someone has four in a row: the move with this number (from 1) won.
    #[error("the game is already over: move {0} won")]
    AlreadyWon(u32),
}

impl SolveError {
    /// `Ok` if the game in `p` goes on, else why it is over.
    pub fn check<const W: usize, const H: usize>(p: &Position<W, H>) -> Result<(), SolveError> {
        if p.opponent_has_won() || Geometry::<W, H>::has_four(p.current()) {
            Err(SolveError::AlreadyWon(p.moves_played()))
        } else if p.is_full() {
            Err(SolveError::BoardFull)
        } else {
            Ok(())
        }
    }
}

/// A perfect Connect Four solver for the `W` x `H` board (7x6 unless named).
///
/// The solver keeps its transposition table between calls: proven bounds
/// stay true for every later position, so solving related positions (the
/// moves of one game, the children in [`analyze`](Self::analyze)) gets
/// cheaper. [`clear_table`](Self::clear_table) forgets them, for measuring
/// one position on its own.
pub struct Solver<const W: usize = 7, const H: usize = 6> {
    table: Table,
    /// With a large `table`: the table of positions near the end.
    near: Option<Table>,
    /// Positions searched over the solver's life.
    searched: u64,
    /// The value of `searched` at the last [`reset_nodes`](Self::reset_nodes).
    searched_at_reset: u64,
    /// Threads searching each large position together.
    threads: usize,
}

impl<const W: usize, const H: usize> Default for Solver<W, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize> Solver<W, H> {
    const CELLS: i32 = (W * H) as i32;
    /// Rejects at compile time boards too wide for a table entry's move.
    const VALID: () = assert!(W <= crate::table::MAX_WIDTH, "at most 14 columns");
    /// Width of a position key: every column's cells plus its sentinel.
    const KEY_BITS: u32 = Geometry::<W, H>::LAYOUT_BITS;
    /// Columns from the centre outwards, where lines are most numerous.
    const ORDER: [usize; W] = Geometry::<W, H>::CENTRE_FIRST;

    /// A solver with a table of [`DEFAULT_TABLE_MB`] mebibytes.
    pub fn new() -> Self {
        Self::with_table_mb(DEFAULT_TABLE_MB)
    }

    /// A solver whose table takes about `mb` mebibytes (rounded down to a
    /// power of two; at least 1 MiB, more on boards whose keys need it).
    ///
    /// A table of 64 MiB or more comes with a second one of
    /// [`NEAR_TABLE_MB`] for the positions near the end of the game. Those
    /// are most of the positions searched, each saving little; in a table
    /// far larger than the processor's caches nearly every look-up of
    /// theirs would wait for memory, while the few positions early in the
    /// game, each saving a large search, are the ones that gain from the
    /// room. (Measured on the empty board with 1 GiB: 84 s with one table,
    /// 61.5 s with the two.)
    ///
    /// # Panics
    ///
    /// If the system will not allocate the table; for sizes chosen by a
    /// user, use [`try_with_table_mb`](Self::try_with_table_mb).
    pub fn with_table_mb(mb: usize) -> Self {
        match Self::try_with_table_mb(mb) {
            Ok(solver) => solver,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`with_table_mb`](Self::with_table_mb), but a table the system
    /// will not allocate is an error.
    pub fn try_with_table_mb(mb: usize) -> Result<Self, TableError> {
        let () = Self::VALID;
        let near = if mb >= NEAR_TABLE_FROM_MB {
            Some(Table::try_with_mb(NEAR_TABLE_MB, Self::KEY_BITS)?)
        } else {
            None
        };
        Ok(Solver {
            table: Table::try_with_mb(mb, Self::KEY_BITS)?,
            near,
            searched: 0,
            searched_at_reset: 0,
            threads: 1,
        })
    }

    /// Searches positions in the first half of the game with `threads`
    /// threads (at least 1; 1 by default) sharing the table ("lazy SMP"):
    /// all search the same position, and the first to finish answers, the
    /// others having filled the table with bounds it could use. Later
    /// positions are too quick to share. Threads share only through the
    /// table, so give them a larger one ([`DEFAULT_SHARED_TABLE_MB`]).
    ///
    /// To split the work rather than repeat it, helpers put off the move
    /// the main search is busy with wherever they meet it, once a first
    /// move there has been searched (the "young brothers wait" rule of
    /// parallel alpha-beta: a position whose first move did not cut is
    /// likely one where every move must be searched). All threads order
    /// moves alike, so that helpers do meet the main search. Measured on
    /// the empty board (`echo | score4 solve --stats --threads 2`, one
    /// day): 24.4-28.0 s, against 32.1-34.4 s when each helper started on
    /// another root move and broke ties its own way, and 41-48 s with one
    /// thread.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The size of the tables in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes() + self.near.as_ref().map_or(0, Table::bytes)
    }

    /// Positions searched since the solver was made or
    /// [`reset_nodes`](Self::reset_nodes) was last called.
    pub fn nodes(&self) -> u64 {
        self.searched - self.searched_at_reset
    }

    /// Sets the node count back to zero.
    pub fn reset_nodes(&mut self) {
        self.searched_at_reset = self.searched;
    }

    /// Has the system supply all of the table's memory now, as a
    /// benchmark does before it starts timing: otherwise the first
    /// positions solved also pay for the kernel zeroing the pages they
    /// touch first. Stored bounds are unchanged.
    pub fn touch_table(&self) {
        self.table.touch();
        if let Some(near) = &self.near {
            near.touch();
        }
    }

    /// Forgets every stored bound (cheap: no memory is rewritten).
    pub fn clear_table(&mut self) {
        self.table.clear();
        if let Some(near) = &mut self.near {
            near.clear();
        }
    }

    /// The score a win scores for the side to move when it wins with the
    /// move after `moves` moves played: one point per disc it has left.
    #[inline(always)]
    fn win_score(moves: i32) -> i32 {
        (Self::CELLS + 1 - moves) / 2
    }

    /// The score of a finished game from the side to move, or `None` if
    /// the game goes on.
    fn finished_score(p: &Position<W, H>) -> Option<i32> {
        let n = p.moves_played() as i32;
        if p.opponent_has_won() {
            // The winning move was the n-th, played after n - 1 moves.
            Some(-Self::win_score(n - 1))
        } else if Geometry::<W, H>::has_four(p.current()) {
            // Not reachable by play, but a board built from two bitboards can be.
            Some(Self::win_score(n - 1))
        } else if p.is_full() {
            Some(0)
        } else {
            None
        }
    }

    /// The exact score of `p` for the side to move.
    ///
    /// With `n` moves played, a win by the side to move with the move after
    /// `m >= n` moves scores `(W*H + 1 - m) / 2`, a loss the negation of the
    /// opponent's win, and a draw 0: both sides win as fast and lose as
    /// slowly as they can.
    ///
    /// A finished game is not an error here: a full board scores 0, and a
    /// position whose last move made four scores that win, negated, from
    /// the side to move. [`try_solve`](Self::try_solve) rejects those
    /// instead.
    pub fn solve(&mut self, p: &Position<W, H>) -> i32 {
        if let Some(score) = Self::finished_score(p) {
            return score;
        }
        let n = p.moves_played() as i32;
        if p.can_win_next() {
            return Self::win_score(n);
        }
        // The opponent wins at best with its next move, the side to move at
        // best with the move after that.
        let mut min = -Self::win_score(n + 1);
        let mut max = Self::win_score(n + 2);
        let mut probes = 0;
        let mut boundary_tried = false;
        while min < max {
            // Bisect, but probe far from zero first: a win (or loss) that
            // must come soon is cheap to prove or refute, since the move
            // count bounds cut off the long lines. Once two such probes have
            // narrowed the range, a range that still spans zero is probed
            // at zero: most positions score close to it, and the sign is
            // the one probe no exact solve avoids. (Measured: the empty
            // board 609M -> 551M positions, opening_L3 a fifth fewer.)
            // Very early positions then probe once next to zero on the
            // known side: see BOUNDARY_PROBE_BELOW_MOVES.
            let mut probe = min + (max - min) / 2;
            if probes >= 2 && min < 0 && max > 0 {
                probe = 0;
            } else if probes >= 3 && !boundary_tried && n < BOUNDARY_PROBE_BELOW_MOVES {
                probe = if min >= 0 { min } else { max - 1 };
                boundary_tried = true;
            } else if probe <= 0 && min / 2 < probe {
                probe = min / 2;
            } else if probe >= 0 && max / 2 > probe {
                probe = max / 2;
            }
            probes += 1;
            let r = self.search(p, probe, probe + 1);
            if r <= probe {
                max = r;
            } else {
                min = r;
            }
        }
        min
    }

    /// Like [`solve`](Self::solve), but a finished game is an error.
    pub fn try_solve(&mut self, p: &Position<W, H>) -> Result<i32, SolveError> {
        SolveError::check(p)?;
        Ok(self.solve(p))
    }

    /// Only who wins: 1 if the side to move wins, 0 for a draw, -1 if it
    /// loses. Much cheaper than [`solve`](Self::solve). A finished game
    /// gets the sign of its [`solve`](Self::solve) score.
    pub fn solve_weak(&mut self, p: &Position<W, H>) -> i32 {
        if let Some(score) = Self::finished_score(p) {
            return score.signum();
        }
        if p.can_win_next() {
            return 1;
        }
        self.search(p, -1, 1).signum()
    }

    /// The score of every move for the side to move (the score of the
    /// position after it, negated), `None` for a full column. A move that
    /// wins at once scores `(W*H + 1 - n) / 2` with `n` moves played. A
    /// finished game has no moves: every entry is `None`.
    pub fn analyze(&mut self, p: &Position<W, H>) -> [Option<i32>; W] {
        let mut scores = [None; W];
        if p.is_game_over() {
            return scores;
        }
        let n = p.moves_played() as i32;
        for (col, score) in scores.iter_mut().enumerate() {
            if p.can_play(col) {
                *score = Some(if p.is_winning_move(col) {
                    Self::win_score(n)
                } else {
                    -self.solve(&p.after(col))
                });
            }
        }
        scores
    }

    /// A best move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; among equals, the one nearest the centre. `None`
    /// if the game is over.
    pub fn best_move(&mut self, p: &Position<W, H>) -> Option<usize> {
        Self::best_of(&self.analyze(p))
    }

    /// The best move among analysed scores (as [`analyze`](Self::analyze)
    /// returns them): the highest score, the centre-most among equals.
    pub fn best_of(scores: &[Option<i32>; W]) -> Option<usize> {
        let mut best: Option<(i32, usize)> = None;
        for &col in &Self::ORDER {
            if let Some(s) = scores[col] {
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, col));
                }
            }
        }
        best.map(|(_, col)| col)
    }

    /// Searches `p` within `alpha..beta` (see [`Search::negamax`]), with
    /// helper threads if it is worth it.
    fn search(&mut self, p: &Position<W, H>, alpha: i32, beta: i32) -> i32 {
        let tables = Tables {
            far: &self.table,
            near: self.near.as_ref().unwrap_or(&self.table),
        };
        let start = self.searched;
        if self.threads <= 1 || p.moves_played() >= Self::CELLS as u32 / 2 {
            let mut search = Search::new(tables, start, None);
            let score = search.negamax(p, alpha, beta, None);
            self.searched = search.nodes;
            return score;
        }
        let stop = AtomicBool::new(false);
        let busy: Vec<AtomicU64> = (0..=W * H).map(|_| AtomicU64::new(0)).collect();
        let run = |helper: bool| {
            let mut search = Search::new(tables, 0, Some(&stop));
            search.shared = Some(Shared {
                busy: &busy,
                helper,
            });
            let score = search.negamax(p, alpha, beta, None);
            // The first to finish stops the others; its answer is complete.
            stop.store(true, Ordering::Relaxed);
            (search.finished().then_some(score), search.nodes)
        };
        let (mine, helpers) = std::thread::scope(|scope| {
            // A helper the system will not start is simply missing: the
            // main search alone still answers.
            let helpers: Vec<_> = (1..self.threads)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || run(true))
                        .ok()
                })
                .collect();
            let mine = run(false);
            let helpers: Vec<_> = helpers.into_iter().map(|h| h.join()).collect();
            (mine, helpers)
        });
        let mut answer = mine.0;
        self.searched = start + mine.1;
        for (score, nodes) in helpers.into_iter().flatten() {
            answer = answer.or(score);
            self.searched += nodes;
        }
        // A helper that panicked cannot have stopped the main search, so
        // at least the main search finished if no helper did.
        answer.unwrap_or_else(|| unreachable!("some search finishes"))
    }
}

/// The tables a search uses: `near` for positions with at most
/// [`NEAR_MAX_EMPTY`] empty cells, `far` for the others (the same table
/// when there is only one).
#[derive(Clone, Copy)]
struct Tables<'t> {
    far: &'t Table,
    near: &'t Table,
}

/// One thread's search: the shared tables, its own counters, plain data.
struct Search<'t, const W: usize, const H: usize> {
    tables: Tables<'t>,
    /// Positions searched, counted from where the solver left off.
    nodes: u64,
    /// Set when another thread has answered; checked at every position.
    stop: Option<&'t AtomicBool>,
    /// Whether this search saw `stop` and gave up: its results are void.
    aborted: bool,
    /// What threads searching together share besides the tables.
    shared: Option<Shared<'t>>,
}

/// Where threads searching together (see [`Solver::set_threads`]) meet.
#[derive(Clone, Copy)]
struct Shared<'t> {
    /// By moves played: the key of the position the main search is
    /// searching at that depth (0 where it has not been yet).
    busy: &'t [AtomicU64],
    /// Whether this search is a helper, which puts off the main search's
    /// positions, rather than the main search, which announces them.
    helper: bool,
}

impl<'t, const W: usize, const H: usize> Search<'t, W, H> {
    const CELLS: i32 = (W * H) as i32;
    /// Columns in the order to break ties in: every thread the same, so
    /// that helpers meet the main search where it is busy.
    const ORDER: [usize; W] = Solver::<W, H>::ORDER;

    fn new(tables: Tables<'t>, nodes: u64, stop: Option<&'t AtomicBool>) -> Self {
        Search {
            tables,
            nodes,
            stop,
            aborted: false,
            shared: None,
        }
    }

    /// The table for positions with `moves` moves played.
    #[inline(always)]
    fn table(&self, moves: i32) -> &'t Table {
        if Self::CELLS - moves <= NEAR_MAX_EMPTY {
            self.tables.near
        } else {
            self.tables.far
        }
    }

    /// Whether the search ran to its end rather than giving up.
    fn finished(&self) -> bool {
        !self.aborted
    }

    #[inline(always)]
    fn win_score(moves: i32) -> i32 {
        Solver::<W, H>::win_score(moves)
    }

    /// The table key of `p`, shared with its mirror image early in the
    /// game, and whether the key is the mirror's (so moves stored under it
    /// are mirrored).
    #[inline(always)]
    fn key(p: &Position<W, H>) -> (u64, bool) {
        let key = p.key();
        // Early positions are often reached in both orientations, later ones
        // almost never, so there the mirror costs time and saves nothing.
        if p.moves_played() >= Self::CELLS as u32 / 2 {
            return (key, false);
        }
        let mirrored = p.mirror_key();
        if mirrored < key {
            (mirrored, true)
        } else {
            (key, false)
        }
    }

    /// The table keys of the positions after each candidate move, by
    /// column, each already on its way to the cache.
    #[inline(always)]
    fn child_keys(&self, p: &Position<W, H>, candidates: Bitboard) -> [u64; W] {
        let mut keys = [0u64; W];
        for (col, key) in keys.iter_mut().enumerate() {
            let cell = candidates & Geometry::<W, H>::column(col);
            if cell.any() {
                let mut child = *p;
                child.play_cell(cell);
                *key = Self::key(&child).0;
                self.table(p.moves_played() as i32 + 1).prefetch(*key);
            }
        }
        keys
    }

    /// An upper bound on the score of `p` from the opponent's "claimeven"
    /// strategy, if it applies (`open` being the empty cells).
    ///
    /// When every column has an even number of empty cells, the opponent
    /// can answer every move right on top of it, which leaves us exactly
    /// the first, third, ... empty cell of each column and gives it the
    /// others. If even all of ours cannot make four with our discs, we
    /// never win: at best a draw, and a loss if the opponent's share makes
    /// four, at the latest with the last disc.
    #[inline(always)]
    fn claimeven_max(p: &Position<W, H>, open: Bitboard) -> Option<i32> {
        // Every column's next cell (its sentinel when full) has the
        // parity of the top row's sentinel exactly when the number of
        // empty cells under it is even.
        let ours = Geometry::<W, H>::ROW_PARITY[H % 2];
        let next = p.occupied() + Geometry::<W, H>::BOTTOM;
        if (next & !ours).any() || Geometry::<W, H>::has_four(p.current() | (open & ours)) {
            return None;
        }
        if Geometry::<W, H>::has_four(p.opponent() | (open & !ours)) {
            Some(-Self::win_score(Self::CELLS - 1))
        } else {
            Some(0)
        }
    }

    /// A lower bound on the score of `p` from claiming even ourselves, if
    /// one move makes every column's number of empty cells even: after it,
    /// the opponent is where [`claimeven_max`](Self::claimeven_max) puts
    /// us.
    #[inline(always)]
    fn claimeven_min(p: &Position<W, H>, open: Bitboard) -> Option<i32> {
        let theirs = Geometry::<W, H>::ROW_PARITY[H % 2];
        let next = p.occupied() + Geometry::<W, H>::BOTTOM;
        let odd = next & !theirs;
        if odd.has_several() || odd.is_empty() {
            return None;
        }
        // `odd` is the next cell of the one column with an odd number of
        // empty cells; after we play it the opponent moves first into
        // even columns, and takes the cells of the top row's parity.
        let open = open & !odd;
        if Geometry::<W, H>::has_four(p.opponent() | (open & theirs)) {
            return None;
        }
        if Geometry::<W, H>::has_four(p.current() | odd | (open & !theirs)) {
            Some(Self::win_score(Self::CELLS - 1))
        } else {
            Some(0)
        }
    }

    /// The score of `p` within `alpha..beta`, fail-soft: a result `r <=
    /// alpha` means the score is at most `r`, `r >= beta` that it is at
    /// least `r`, anything between is exact.
    ///
    /// The side to move must not be able to win at once, and the game must
    /// not be over; every caller checks that, and every move searched keeps
    /// it true for the child.
    fn negamax(
        &mut self,
        p: &Position<W, H>,
        mut alpha: i32,
        mut beta: i32,
        known_key: Option<u64>,
    ) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!p.can_win_next() && !p.is_game_over());
        self.nodes += 1;
        if let Some(stop) = self.stop {
            if stop.load(Ordering::Relaxed) {
                self.aborted = true;
                return 0;
            }
        }
        let n = p.moves_played() as i32;

        let candidates = p.non_losing_moves();
        if candidates.is_empty() {
            // Whatever we play, the opponent wins with its next move.
            return -Self::win_score(n + 1);
        }
        if n >= Self::CELLS - 2 {
            // Neither of the last two moves can win.
            return 0;
        }
        // The opponent cannot win with its next move, and neither can we;
        // a side with no line left open cannot win at all (measured: a
        // twentieth fewer positions on the empty board's weak solve).
        let open = Geometry::<W, H>::BOARD & !p.occupied();
        let min = if Geometry::<W, H>::has_four(p.opponent() | open) {
            Self::claimeven_min(p, open).unwrap_or(-Self::win_score(n + 2))
        } else {
            0
        };
        let max = if !Geometry::<W, H>::has_four(p.current() | open) {
            0
        } else if let Some(max) = Self::claimeven_max(p, open) {
            max
        } else {
            Self::win_score(n + 2)
        };
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        if !candidates.has_several() {
            // A forced move: its position is the child's, so a table entry
            // here would only repeat the child's at the price of a cache miss.
            let mut child = *p;
            child.play_cell(candidates);
            // The child needs its entry soon: start fetching it now.
            let key = (Self::CELLS - n > TABLE_MIN_EMPTY).then(|| {
                let key = Self::key(&child).0;
                self.table(n + 1).prefetch(key);
                key
            });
            return -self.negamax(&child, -beta, -alpha, key);
        }
        if Self::CELLS - n < TABLE_MIN_EMPTY {
            return self.search_moves(p, candidates, None, None, alpha, beta).0;
        }

        // Each child's entry is a cache miss; starting them all now, before
        // this position's own look-up, overlaps all the waits. Children
        // too near the end to use the table need no key.
        let child_keys =
            (Self::CELLS - n > TABLE_MIN_EMPTY).then(|| self.child_keys(p, candidates));
        let (key, mirrored) = match known_key {
            Some(key) => {
                debug_assert_eq!(key, Self::key(p).0);
                (key, key != p.key())
            }
            None => Self::key(p),
        };
        let unmirror = |col: usize| if mirrored { W - 1 - col } else { col };
        let mut hint = None;
        if let Some(known) = self.table(n).get(key) {
            if known.lower > alpha {
                alpha = known.lower;
                if alpha >= beta {
                    return alpha;
                }
            }
            if known.upper < beta {
                beta = known.upper;
                if alpha >= beta {
                    return beta;
                }
            }
            hint = known.best.map(unmirror);
        }
        let before = self.nodes;
        let (score, col) = self.search_moves(p, candidates, hint, child_keys.as_ref(), alpha, beta);
        let work = self.nodes - before;
        if self.aborted {
            // The score is void: store nothing, and unwind.
            return 0;
        }
        let best = Some(unmirror(col));
        if score >= beta {
            self.table(n).put(key, work, score, max, best);
        } else if score > alpha {
            self.table(n).put(key, work, score, score, best);
        } else {
            self.table(n).put(key, work, min, score, best);
        }
        score
    }

    /// The moves of `p` (`candidates`, at least two) searched within
    /// `alpha..beta`, fail-soft, the window already narrowed to what the
    /// move count allows: the score and the column of the best (or
    /// refuting) move.
    #[inline(always)]
    fn search_moves(
        &mut self,
        p: &Position<W, H>,
        candidates: Bitboard,
        hint: Option<usize>,
        child_keys: Option<&[u64; W]>,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, usize) {
        let n = p.moves_played() as i32;
        let (moves, winning) = self.ordered_moves(p, candidates, hint, alpha);
        if winning.any() {
            // The opponent loses whatever it plays: as fast a win as the
            // bounds allow, found without searching any move.
            return (Self::win_score(n + 2), Geometry::<W, H>::column_of(winning));
        }
        // No move wins by force with our next disc either: a win takes
        // at least two more of ours.
        let beta = beta.min(Self::win_score(n + 4));
        if alpha >= beta {
            return (beta, Geometry::<W, H>::column_of(moves[0].0));
        }
        let mut best = (i32::MIN, 0);
        let empty = Self::CELLS - n;
        if let Some(keys) = child_keys {
            if empty > ETC_MIN_EMPTY as i32 {
                for &(cell, _) in moves.iter() {
                    if cell.is_empty() {
                        break;
                    }
                    let col = Geometry::<W, H>::column_of(cell);
                    if let Some(known) = self.table(n + 1).get(keys[col]) {
                        let at_least = -known.upper;
                        if at_least >= beta {
                            return (at_least, col);
                        }
                        if at_least > best.0 {
                            best = (at_least, col);
                            alpha = alpha.max(at_least);
                        }
                    }
                }
            }
        }

        // Helpers put off the main search's moves only in the first half
        // of the game: deeper, the subtrees are too small to repay the
        // announcing (measured on the empty board with 2 threads: 31.5 s
        // at every depth with keys, 27.5-28.0 s in the first half).
        let shared = match (self.shared, child_keys) {
            (Some(shared), Some(keys)) if n < Self::CELLS / 2 => Some((shared, keys)),
            _ => None,
        };
        let mut put_off = [Bitboard::EMPTY; W];
        let mut put_off_len = 0;
        for (i, &(cell, _)) in moves.iter().enumerate() {
            if cell.is_empty() {
                break;
            }
            if let Some((shared, keys)) = shared {
                let busy = &shared.busy[n as usize + 1];
                let key = keys[Geometry::<W, H>::column_of(cell)];
                if !shared.helper {
                    busy.store(key, Ordering::Relaxed);
                } else if i > 0 && busy.load(Ordering::Relaxed) == key {
                    put_off[put_off_len] = cell;
                    put_off_len += 1;
                    continue;
                }
            }
            if let Some(cut) = self.search_move(p, cell, child_keys, &mut alpha, beta, &mut best) {
                return cut;
            }
        }
        for &cell in &put_off[..put_off_len] {
            if let Some(cut) = self.search_move(p, cell, child_keys, &mut alpha, beta, &mut best) {
                return cut;
            }
        }
        best
    }

    /// Searches the move to `cell`, one of `p`'s moves in
    /// [`search_moves`](Self::search_moves): what that returns if the move
    /// cuts off (or the search gave up), else nothing, `best` and `alpha`
    /// raised to its score.
    #[inline(always)]
    fn search_move(
        &mut self,
        p: &Position<W, H>,
        cell: Bitboard,
        child_keys: Option<&[u64; W]>,
        alpha: &mut i32,
        beta: i32,
        best: &mut (i32, usize),
    ) -> Option<(i32, usize)> {
        let col = Geometry::<W, H>::column_of(cell);
        let mut child = *p;
        child.play_cell(cell);
        let score = -self.negamax(&child, -beta, -*alpha, child_keys.map(|k| k[col]));
        if self.aborted {
            return Some((0, 0));
        }
        if score >= beta {
            return Some((score, col));
        }
        if score > best.0 {
            *best = (score, col);
            *alpha = (*alpha).max(score);
        }
        None
    }

    /// The candidate cells in the order to search them: the table's best
    /// move, then the others by how many winning cells they create that
    /// are not dead (and, when the search must beat a high `alpha`, by
    /// whether they force a reply), ties broken centre first. Unused slots
    /// at the end are empty cells.
    ///
    /// Also a cell (else none) after which the opponent has no move that
    /// does not lose at once: the threats it takes to rank a move tell
    /// that too, for nearly nothing.
    #[inline(always)]
    fn ordered_moves(
        &self,
        p: &Position<W, H>,
        candidates: Bitboard,
        hint: Option<usize>,
        alpha: i32,
    ) -> ([(Bitboard, u32); W], Bitboard) {
        let mut moves = [(Bitboard::EMPTY, 0u32); W];
        let mut len = 0;
        // A threat directly above an opponent's threat is nearly worthless:
        // whoever fills the cell below, the opponent wins there or blocks
        // the threat next. Leaving such threats out of the count orders
        // moves better (measured: a twentieth fewer positions).
        let dead = p.opponent_winning_cells() << 1;
        let playable = p.playable();
        let mut winning = Bitboard::EMPTY;
        // Every candidate's threats in one pass over plain arrays, which the
        // compiler turns into vector instructions (measured: a fifth fewer
        // instructions per position than one candidate at a time).
        let mut cells = [0u64; W];
        for (cell, &col) in cells.iter_mut().zip(Self::ORDER.iter()) {
            *cell = (candidates & Geometry::<W, H>::column(col)).bits();
        }
        let mut all_threats = [0u64; W];
        let current = p.current().bits();
        for (threats, &cell) in all_threats.iter_mut().zip(cells.iter()) {
            *threats = Geometry::<W, H>::winning_cells(Bitboard(current | cell)).bits();
        }
        for k in 0..W {
            let col = Self::ORDER[k];
            let cell = Bitboard(cells[k]);
            if cell.is_empty() {
                continue;
            }
            let occupied = p.occupied() | cell;
            let threats = Bitboard(all_threats[k]) & !occupied;
            // The opponent's non-losing moves (see Position::non_losing_moves).
            let next = (playable ^ cell) | ((cell << 1) & Geometry::<W, H>::BOARD);
            let forced = next & threats;
            let replies = if forced.has_several() {
                Bitboard::EMPTY
            } else if forced.any() {
                forced & !(threats >> 1)
            } else {
                next & !(threats >> 1)
            };
            if replies.is_empty() {
                // The caller searches nothing more, so the order is moot.
                winning = cell;
                break;
            }
            let useful = threats & !dead;
            // Threats the opponent could soon be forced to face count
            // half as much again: one right above a cell the opponent can
            // play (measured: a tenth fewer positions on the heavier sets).
            let rank = if hint == Some(col) {
                u32::MAX
            } else if alpha >= FAST_WIN {
                // Only a fast win will do, and fast wins come from moves
                // that the opponent must answer at once.
                2 * useful.count() + (useful & (next << 1)).count() + 4 * forced.count()
            } else {
                2 * useful.count() + (useful & (next << 1)).count()
            };
            // Insertion sort, stable so that equal ranks stay centre first.
            let mut i = len;
            while i > 0 && moves[i - 1].1 < rank {
                moves[i] = moves[i - 1];
                i -= 1;
            }
            moves[i] = (cell, rank);
            len += 1;
        }
        (moves, winning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_first_order() {
        assert_eq!(Solver::<7, 6>::ORDER, [3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(Solver::<4, 4>::ORDER, [2, 1, 3, 0]);
        assert_eq!(Solver::<1, 4>::ORDER, [0]);
    }

    #[test]
    fn immediate_wins_and_losses() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        // The side to move wins with its 4th disc: 22 - 4.
        let p = Position::parse("445566").unwrap();
        assert_eq!(s.solve(&p), 18);
        // The opponent has two threats: the side to move blocks one and loses
        // to the opponent's 5th disc on the other.
        let p = Position::parse("4455661").unwrap();
        assert_eq!(s.solve(&p), -17);
        assert_eq!(s.solve_weak(&p), -1);
    }

    #[test]
    fn finished_games() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        let won = Position::parse("1212121").unwrap();
        // The first player won with its 4th disc.
        assert_eq!(s.solve(&won), -18);
        assert_eq!(s.solve_weak(&won), -1);
        assert_eq!(s.try_solve(&won), Err(SolveError::AlreadyWon(7)));
        assert_eq!(s.analyze(&won), [None; 7]);
        assert_eq!(s.best_move(&won), None);
        let mut tiny = Solver::<1, 2>::with_table_mb(8);
        let full = Position::<1, 2>::parse("11").unwrap();
        assert_eq!(tiny.solve(&full), 0);
        assert_eq!(tiny.try_solve(&full), Err(SolveError::BoardFull));
        let open = Position::<1, 2>::parse("").unwrap();
        assert_eq!(tiny.try_solve(&open), Ok(0));
        assert_eq!(tiny.analyze(&open), [Some(0)]);
    }

    /// The exact score by trying every continuation, remembered by key.
    fn plain_negamax<const W: usize, const H: usize>(
        p: &Position<W, H>,
        memo: &mut std::collections::HashMap<u64, i32>,
    ) -> i32 {
        if let Some(&s) = memo.get(&p.key()) {
            return s;
        }
        let n = p.moves_played() as i32;
        let mut best = i32::MIN;
        for col in p.playable_columns() {
            let child = p.after(col);
            let score = if child.opponent_has_won() {
                ((W * H) as i32 + 1 - n) / 2
            } else if child.is_full() {
                0
            } else {
                -plain_negamax(&child, memo)
            };
            best = best.max(score);
        }
        memo.insert(p.key(), best);
        best
    }

    /// Checks the claimeven bounds of every position reachable on a small
    /// board against exact scores; returns how often each bound applied.
    fn check_claimeven<const W: usize, const H: usize>() -> (usize, usize) {
        let mut memo = std::collections::HashMap::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![Position::<W, H>::new()];
        let (mut uppers, mut lowers) = (0, 0);
        while let Some(p) = stack.pop() {
            if !seen.insert(p.key()) {
                continue;
            }
            let score = plain_negamax(&p, &mut memo);
            let open = Geometry::<W, H>::BOARD & !p.occupied();
            if let Some(max) = Search::<W, H>::claimeven_max(&p, open) {
                assert!(score <= max, "{score} > {max}\n{p}");
                uppers += 1;
            }
            if let Some(min) = Search::<W, H>::claimeven_min(&p, open) {
                assert!(score >= min, "{score} < {min}\n{p}");
                lowers += 1;
            }
            for col in p.playable_columns() {
                let child = p.after(col);
                if !child.is_game_over() {
                    stack.push(child);
                }
            }
        }
        (uppers, lowers)
    }

    #[test]
    fn claimeven_bounds_hold_on_every_small_board_position() {
        // An even and an odd number of rows: the shares swap parity.
        for (uppers, lowers) in [check_claimeven::<4, 4>(), check_claimeven::<4, 3>()] {
            assert!(uppers > 100 && lowers > 100, "{uppers} {lowers}");
        }
    }

    #[test]
    fn row_parity_covers_the_layout() {
        let [even, odd] = Geometry::<7, 6>::ROW_PARITY;
        assert_eq!((even & odd), Bitboard::EMPTY);
        assert_eq!((even | odd).count(), 49);
        assert!(even.contains(Geometry::<7, 6>::cell(3, 0)));
        assert!(odd.contains(Geometry::<7, 6>::cell(3, 5)));
    }

    #[test]
    fn nodes_count_and_reset() {
        let mut s = Solver::<7, 6>::with_table_mb(8);
        let p = Position::parse("4455").unwrap();
        s.solve_weak(&p);
        assert!(s.nodes() > 0);
        s.reset_nodes();
        assert_eq!(s.nodes(), 0);
        s.clear_table();
    }
}
