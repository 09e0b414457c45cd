//! Every tunable of the solver, each with the reason for its value.
//!
//! The measurements behind the values are in the README's "Tunables"
//! table, with the command that reproduces each; here only the why.

/// Table size of [`Solver::new`](super::Solver::new) for one thread, in
/// mebibytes: a table that mostly stays in the processor's caches answers
/// so much faster that this outweighs the extra positions it searches.
pub const DEFAULT_TABLE_MB: usize = 4;

/// Table size for threads searching together, in mebibytes: they share
/// their findings only through the table, so a larger one pays.
pub const DEFAULT_SHARED_TABLE_MB: usize = 32;

/// Size of the second, cache-sized table that large tables come with, and
/// of each thread's own when threads search together, in mebibytes: the
/// many small searches near the end stay in the caches.
pub const NEAR_TABLE_MB: usize = 4;

/// Tables of at least this many mebibytes come with the near table:
/// smaller ones fit the caches well enough by themselves.
pub(super) const NEAR_TABLE_FROM_MB: usize = 64;

/// Positions with at most this many empty cells go to the near table, when
/// there is one: the subtrees below them are small and numerous, so their
/// entries are cheap to lose and costly to wait for.
pub(super) const NEAR_MAX_EMPTY: i32 = 30;

/// Positions with at most this many empty cells go to each thread's own
/// near table (of [`NEAR_TABLE_MB`]) when threads search together: their
/// subtrees are small, so another thread rarely needs their entries, while
/// sharing them keeps the cores passing the same cache lines back and
/// forth.
pub(super) const OWN_NEAR_MAX_EMPTY: i32 = 24;

/// Positions with fewer moves played than this, once the sign of their
/// score is known, walk outward from zero one value at a time rather than
/// bisect: so early, scores lie close to zero, and each probe next to the
/// last finds most of what it needs in the table the last one filled.
/// Later, bisecting takes fewer probes.
pub(super) const WALK_BELOW_MOVES: i32 = 7;

/// With more empty cells than this, children are looked up in the table
/// before any is searched (enhanced transposition cut-off): nearer the end
/// the subtrees are too small to repay the wait for their entries.
pub(super) const ETC_MIN_EMPTY: u32 = 18;

/// With fewer empty cells than this, positions neither read nor write the
/// table: searching their tiny subtrees again costs less than a cache miss.
pub(super) const TABLE_MIN_EMPTY: i32 = 6;

/// A search that needs at least this score (a win with this many discs to
/// spare) tries first the moves the opponent must answer at once: fast wins
/// come from forcing moves.
pub(super) const FAST_WIN: i32 = 6;

/// The table size for a solver searching with `threads` threads, in
/// mebibytes: [`DEFAULT_TABLE_MB`] for one, [`DEFAULT_SHARED_TABLE_MB`] for
/// more.
pub const fn default_table_mb(threads: usize) -> usize {
    if threads > 1 {
        DEFAULT_SHARED_TABLE_MB
    } else {
        DEFAULT_TABLE_MB
    }
}

/// A search that can be stopped looks at its stop flag and the clock once
/// every this many positions: at several million positions a second that
/// is well under a millisecond, and the clock is read too seldom to cost
/// anything measurable. Threads searching together poll sixteen times as
/// often, so that the helpers stop soon after the first answer.
pub(super) const POLL_INTERVAL: u64 = 4096;
