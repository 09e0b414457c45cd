//! Every tunable of the solver, each with the reason for its value.
//!
//! The measurements behind the values are in docs/experiments.md (each
//! value tried and its alternatives) and docs/board-sizes.md, with the
//! command that reproduces each; here only the why.

/// Stack of every thread that runs the search (the anytime analysis's,
/// the helpers of several threads, and the faces' own search threads), in
/// bytes. The search recurses once a disc, up to 128 deep past 64 bits,
/// and in a build without optimisation the frames of sizes as data
/// overflowed the default 2 MiB on 12x4 (a thread aborting the process).
/// It is address space, not memory: only what is used is touched.
#[cfg(not(target_family = "wasm"))]
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// In WebAssembly a thread's stack is taken from the module's one memory,
/// whose most is fixed when it is made, so each thread's is smaller: its
/// frames are smaller too (the main thread searches every board in the
/// linker's 1 MiB).
#[cfg(target_family = "wasm")]
pub const SEARCH_STACK_BYTES: usize = 8 << 20;

/// Table size of [`Solver::new`](super::Solver::new) for one thread, in
/// mebibytes: a table that mostly stays in the processor's caches answers
/// so much faster that this outweighs the extra positions it searches.
pub const DEFAULT_TABLE_MB: usize = 4;

/// Table size for threads searching together, in mebibytes: they share
/// their findings only through the table, so a larger one pays.
pub const DEFAULT_SHARED_TABLE_MB: usize = 32;

/// Boards with more cells than this are large: solving them takes long
/// enough, and their searches reach back to enough positions far from the
/// end, that a table much larger than the caches pays (with the near
/// table beside it), where on the standard board and smaller ones it
/// costs more in waiting for memory than it saves.
pub const LARGE_BOARD_CELLS: usize = 42;

/// Table size for one thread on a large board ([`LARGE_BOARD_CELLS`]), in
/// mebibytes: big enough to keep most of the positions too far from the
/// end for the near table; a table four times larger waits for memory more
/// and saves too few positions to repay it.
pub const LARGE_TABLE_MB: usize = 256;

/// Size of the second, cache-sized table that large tables come with, and
/// of each thread's own when threads search together, in mebibytes: the
/// many small searches near the end stay in the caches.
pub const NEAR_TABLE_MB: usize = 4;

/// The largest near table worth having. A board whose keys are too wide
/// for a table of [`NEAR_TABLE_MB`] gets the smallest it can have, and
/// one of 16 MiB (keys of 60 bits) still spares much of the time, where
/// one of 256 MiB (keys of 64 bits) is no nearer the processor than the
/// main table and only doubles the memory: larger ones are left out.
pub(super) const NEAR_TABLE_MAX_MB: usize = 16;

/// The widest boards whose tables come with a near table. On ten columns
/// and more, positions with 20 to 30 empty cells still have large
/// subtrees (ten to twelve moves a position), so a cache-sized table for
/// them loses entries that cost much to find again: on 12x4 it cost time
/// with one thread and with two (docs/solver.md).
pub(super) const NEAR_TABLE_MAX_WIDTH: usize = 9;

/// The widest keys whose tables come with a near table. Past 64 bits an
/// entry takes two or three words, so a near table of [`NEAR_TABLE_MB`]
/// keeps a half to a third as many entries, and on 10x6 and 8x8 it only
/// added positions, with one thread and with two, for no less time
/// (docs/solver.md).
pub(super) const NEAR_TABLE_MAX_KEY_BITS: u32 = 64;

/// Tables of at least this many mebibytes come with the near table:
/// smaller ones fit the caches well enough by themselves.
pub(super) const NEAR_TABLE_FROM_MB: usize = 64;

/// Positions with at most this many empty cells go to the near table, when
/// there is one: the subtrees below them are small and numerous, so their
/// entries are cheap to lose and costly to wait for.
pub(super) const NEAR_MAX_EMPTY: i32 = 30;

/// [`NEAR_MAX_EMPTY`] on a large board ([`LARGE_BOARD_CELLS`]): there far
/// more positions have 21 to 30 empty cells, and their subtrees are large
/// enough that losing their entries in the small near table costs more
/// than waiting for them in the far one.
pub(super) const LARGE_NEAR_MAX_EMPTY: i32 = 20;

/// Positions with at most this many empty cells go to the near table of a
/// board of `cells` cells.
pub(super) const fn near_max_empty(cells: usize) -> i32 {
    if cells > LARGE_BOARD_CELLS {
        LARGE_NEAR_MAX_EMPTY
    } else {
        NEAR_MAX_EMPTY
    }
}

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

/// A strong solve's first this many probes bisect the known range, but
/// far from zero (see [`next_probe`]): a win (or loss) that must come soon
/// is cheap to prove or refute, since the move-count bounds cut off the
/// long lines.
pub(super) const FAR_PROBES: u32 = 2;

/// Where a strong solve asks for the sign of a score: "above `sign`?",
/// on a board of `cells` cells and `height` rows with `moves` moves
/// played.
///
/// Of the two sign probes, "above 0?" is one of the two windows that prove
/// a draw or a win with the last disc (1), never a loss, and "above -1?"
/// one of those that prove a draw or a loss with the last disc (-1), never
/// a win; whichever is not needed is spent for nothing, so the first
/// should be the likelier one. On a board of even height the
/// second player can answer every move directly on top of it (claimeven)
/// and holds the zugzwang, so with the first player to move a large board
/// ([`LARGE_BOARD_CELLS`]) asks "above -1?" first; solves there run long
/// enough for the one probe to matter. The standard board and smaller
/// ones, where the first player wins more often than this suggests, keep
/// "above 0?".
pub(crate) const fn sign_probe(cells: usize, height: usize, moves: i32) -> i32 {
    if cells > LARGE_BOARD_CELLS && height.is_multiple_of(2) && moves % 2 == 0 {
        -1
    } else {
        0
    }
}

/// The score a strong solve probes next (with the null window
/// `probe..probe + 1`), when its score is known to lie in `min..=max`
/// (`min < max`), `probes` probes have been made and `moves` moves played,
/// with the sign probed at `sign` ([`sign_probe`], 0 or -1).
/// Always in `min..max`, so every probe narrows the range.
///
/// Bisect, but probe far from zero first ([`FAR_PROBES`]). Once those have
/// narrowed the range, a range that still spans zero is probed at the
/// sign: most positions score close to zero, and the sign is the one probe
/// no exact solve avoids. Early positions then walk outward from zero on
/// the known side ([`WALK_BELOW_MOVES`]).
pub(crate) const fn next_probe(min: i32, max: i32, probes: u32, moves: i32, sign: i32) -> i32 {
    let middle = min + (max - min) / 2;
    if probes >= FAR_PROBES && min < 0 && max > 0 {
        sign
    } else if probes >= FAR_PROBES && moves < WALK_BELOW_MOVES {
        if min >= 0 {
            min
        } else {
            max - 1
        }
    } else if middle <= 0 && min / 2 < middle {
        min / 2
    } else if middle >= 0 && max / 2 > middle {
        max / 2
    } else {
        middle
    }
}

/// A stoppable search adds to its solver's running count of positions
/// (what a face shows as progress during one long search) once every this
/// many positions: rarely enough that the shared counter costs nothing
/// measurable, often enough that the count moves many times a second.
pub(super) const LIVE_COUNT_STEP: u64 = 1 << 12;

/// Positions an anytime analysis spends on its quick facts (how soon each
/// column could lose or win at the earliest) before the weak questions:
/// enough to look several discs ahead on the largest boards within a
/// fraction of a second, where one weak question can take hours, and
/// little beside the weak questions of a position settled in seconds.
pub const QUICK_FACTS_NODES: u64 = 1 << 18;

/// Positions with fewer moves played than this share their table entry
/// with their mirror image: early positions are often reached in both
/// orientations, later ones almost never, so there the mirror costs time
/// and saves nothing. Half the board.
pub(super) const fn mirror_below_moves(cells: u32) -> u32 {
    cells / 2
}

/// Positions with fewer moves played than this are searched by all the
/// threads together; later ones by one thread, as their subtrees are too
/// small to repay starting the others. Half the board.
pub(super) const fn threads_below_moves(cells: u32) -> u32 {
    cells / 2
}

/// Whether every thread searching with others puts off the positions the
/// others are in (the main search not a position's first move, which it
/// ranked first for a reason), rather than helpers alone putting off the
/// main search's. On the large boards ([`LARGE_BOARD_CELLS`]) the threads
/// then overlap less (figures in `docs/experiments.md`).
pub(super) const fn mutual_put_off(cells: u32) -> bool {
    cells as usize > LARGE_BOARD_CELLS
}

/// Threads put off each other's moves (search them last) only
/// in positions with fewer moves played than this: deeper, the subtrees
/// are too small to repay the announcing. Half the board.
pub(super) const fn put_off_below_moves(cells: u32) -> u32 {
    cells / 2
}

/// With more empty cells than this, children are looked up in the table
/// before any is searched (enhanced transposition cut-off). Their entries
/// are already on their way to the cache for the search itself, so the
/// look-ups cost little more than the instructions, and a child's bound
/// that cuts off spares a whole subtree; nearer the end the subtrees are
/// too small to repay even that.
pub(super) const ETC_MIN_EMPTY: u32 = 8;

/// With fewer empty cells than this, positions neither read nor write the
/// table: searching their tiny subtrees again costs less than a cache miss.
pub(super) const TABLE_MIN_EMPTY: i32 = 6;

/// The boards whose strong solves ask the sign of a proof-number search
/// (`proof`, with the static bounds at its leaves, one thread) rather than
/// of the alpha-beta search, with the most threads the solver may have for
/// it to pay. On these the sign probe is "above -1?" and its answer the
/// second player's win, which proof numbers prove with a fraction of the
/// positions; but two threads of alpha-beta prove 8x6's faster. Not on
/// the boards where it was slower (7x6 and 8x5 ask "above 0?"), nor on
/// those not measured (docs/experiments.md).
pub(super) const PROOF_SIGN_BOARDS: &[(usize, usize, usize)] = &[(6, 8, 2), (8, 6, 1)];

/// The boards whose searches break ties between moves of equal rank by
/// the killer move first (the cell whose move last cut off a position
/// with as many moves played), centre first after it: the two long solves
/// under way, on positions from each at the depths it works at. Not on
/// the others: on 11x4, 10x4, 9x4, 6x7 and the standard board's sets it
/// costs positions or changes nothing (docs/experiments.md), and every
/// other compiled size compiles it out.
pub(super) const KILLER_BOARDS: &[(usize, usize)] = &[(12, 4), (10, 5)];

/// Whether the searches of a `width` x `height` board use killer moves
/// ([`KILLER_BOARDS`]): a constant for a compiled size.
#[inline(always)]
pub(super) fn killer_moves(width: usize, height: usize) -> bool {
    KILLER_BOARDS.contains(&(width, height))
}

/// The least empty cells at which [`PROOF_SIGN_BOARDS`] ask it: their
/// empty boards and positions up to 4 moves in. From 6 moves in, where
/// the side to move's loss is no longer the usual answer, alpha-beta
/// proves the sign faster on both boards (docs/experiments.md).
pub(super) const PROOF_SIGN_MIN_EMPTY: u32 = 44;

/// Entries of that search's table (32 bytes each: 128 MiB, beside the
/// solver's own table, its pages zeroed by the system as the search first
/// touches them): far more spends its time faulting pages in, and a
/// default table's size costs the empty board's sign more positions
/// (docs/experiments.md).
pub(super) const PROOF_ENTRIES: usize = 4 << 20;

/// The least and the most empty cells at which the search asks Allis'
/// rules (`rules`) for the bound the static bounds left open, if any: none.
/// A test costs as much as hundreds of positions and settles few that
/// claimeven does not, so it has to spare whole subtrees to pay, and on
/// the fixtures it did not (docs/experiments.md).
pub(super) const RULES_EMPTY: Option<(i32, i32)> = None;

/// A search that needs at least this score (a win with this many discs to
/// spare) tries first the moves the opponent must answer at once: fast wins
/// come from forcing moves.
pub(super) const FAST_WIN: i32 = 6;

/// The most fours of the mover's that claimeven's pairs of odd columns
/// try to pair off (`bounds::paired_off`): its search over the pairings
/// grows fast with the fours, so past the cap the bound is given up
/// (looser, never wrong) rather than paid for.
pub(super) const MAX_PAIRED_FOURS: usize = 8;

/// The table size for a solver of a board of `cells` cells searching with
/// `threads` threads, in mebibytes: [`DEFAULT_SHARED_TABLE_MB`] for several
/// threads (with them, the large table showed no gain in alternating runs),
/// else [`LARGE_TABLE_MB`] on a large board ([`LARGE_BOARD_CELLS`]) and
/// [`DEFAULT_TABLE_MB`] on the others.
///
/// ```
/// use score4::solver::{default_table_mb, DEFAULT_TABLE_MB, LARGE_TABLE_MB};
/// assert_eq!(default_table_mb(1, 7 * 6), DEFAULT_TABLE_MB);
/// assert_eq!(default_table_mb(1, 6 * 8), LARGE_TABLE_MB);
/// assert_eq!(default_table_mb(2, 6 * 8), default_table_mb(2, 7 * 6));
/// ```
pub const fn default_table_mb(threads: usize, cells: usize) -> usize {
    if threads > 1 {
        DEFAULT_SHARED_TABLE_MB
    } else if cells > LARGE_BOARD_CELLS {
        LARGE_TABLE_MB
    } else {
        DEFAULT_TABLE_MB
    }
}

/// A search of at least this many positions keeps its bound in the
/// journal, when there is one ([`Solver::keep_journal`](super::Solver::keep_journal)):
/// at tens of millions of positions a second, a killed solve redoes at
/// most a fraction of a second for each subtree it had not finished,
/// while a solve of hours writes a few lines a second at most.
pub const JOURNAL_MIN_WORK: u64 = 1 << 22;

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a strong solve's probe loop against a known score, each probe
    /// answered exactly (fail-hard), and returns the probes made.
    fn probes_for(score: i32, min: i32, max: i32, moves: i32) -> Vec<i32> {
        probes_with_sign(score, min, max, moves, 0)
    }

    fn probes_with_sign(score: i32, mut min: i32, mut max: i32, moves: i32, sign: i32) -> Vec<i32> {
        let mut made = Vec::new();
        while min < max {
            let probe = next_probe(min, max, made.len() as u32, moves, sign);
            assert!(min <= probe && probe < max, "{probe} outside {min}..{max}");
            made.push(probe);
            if score <= probe {
                max = probe;
            } else {
                min = probe + 1;
            }
            assert!(made.len() <= 64, "no end: {made:?}");
        }
        assert_eq!(min, score);
        made
    }

    #[test]
    fn every_score_is_found_and_every_probe_narrows() {
        for moves in 0..42 {
            let (min, max) = (-(42 - moves) / 2, (43 - moves) / 2);
            for score in min..=max {
                for sign in [0, -1] {
                    probes_with_sign(score, min, max, moves, sign);
                }
            }
        }
    }

    #[test]
    fn the_first_probes_go_far_from_zero() {
        // Halfway towards the end of the range, on the middle's side.
        assert_eq!(next_probe(-20, 19, 0, 10, 0), -10);
        assert_eq!(next_probe(-10, 19, 1, 10, 0), 9);
        assert_eq!(next_probe(-5, 3, 0, 30, 0), -2);
    }

    #[test]
    fn then_a_range_across_zero_is_probed_at_zero() {
        assert_eq!(next_probe(-10, 9, FAR_PROBES, 10, 0), 0);
        assert_eq!(next_probe(-1, 1, FAR_PROBES, 30, 0), 0);
        // Not before the far probes.
        assert_ne!(next_probe(-10, 9, FAR_PROBES - 1, 10, 0), 0);
    }

    #[test]
    fn early_positions_walk_outward_from_zero() {
        let early = WALK_BELOW_MOVES - 1;
        assert_eq!(next_probe(1, 10, FAR_PROBES, early, 0), 1);
        assert_eq!(next_probe(-10, 0, FAR_PROBES, early, 0), -1);
        // Later positions bisect.
        assert_eq!(next_probe(1, 10, FAR_PROBES, WALK_BELOW_MOVES, 0), 5);
        // A win near zero in an early position: walked one value at a time.
        assert_eq!(probes_for(3, -20, 21, early), [-10, 10, 0, 1, 2, 3]);
    }

    #[test]
    fn large_boards_of_even_height_ask_first_whether_the_first_player_loses() {
        // 6x8, first player to move: "above -1?" first.
        assert_eq!(sign_probe(48, 8, 0), -1);
        // A loss with the last disc then takes the two windows that prove it.
        assert_eq!(probes_with_sign(-1, -23, 24, 0, -1)[2..], [-1, -2]);
        // The second player to move, odd heights and the standard board: "above 0?".
        assert_eq!(sign_probe(48, 8, 1), 0);
        assert_eq!(sign_probe(49, 7, 0), 0);
        assert_eq!(sign_probe(42, 6, 0), 0);
    }
}
