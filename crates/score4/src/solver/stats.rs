//! Where a search's positions go, by moves played, as a measuring solver
//! counts them ([`Solver::measuring_with_table_mb`](super::Solver::measuring_with_table_mb)).
//!
//! Speed work starts from where the positions go: at which depth, how
//! many are forced moves or settled by a bound, how often the table
//! answers, how often the first move searched cuts off. A solver counts
//! only positions; a measuring solver's searches also count these events,
//! in process-wide counters (threads searching together add to the same
//! ones), which [`take`] reads and empties. The counters cost time, so a
//! measuring solver measures positions, not speed; every other solver's
//! search is compiled without them.
//!
//! ```
//! use score4::solver::stats::{self, Event};
//! use score4::{Position, Solver};
//! let mut solver = Solver::<7, 6>::measuring_with_table_mb(4).unwrap();
//! solver.drop_book();
//! stats::take();
//! solver.solve(&"61354363717466".parse::<Position>().unwrap());
//! let counts = stats::take();
//! let entered: u64 = counts.iter().map(|depth| depth[Event::Entered]).sum();
//! assert_eq!(entered, solver.nodes());
//! ```

use std::ops::Index;
use std::sync::atomic::{AtomicU64, Ordering};

/// What can happen to a position the search enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The search entered the position (every position counted in
    /// [`Solver::nodes`](super::Solver::nodes)).
    Entered,
    /// Every move lost at once: no search.
    Lost,
    /// Too near the end for anyone to win: a draw, no search.
    LastMoves,
    /// A static bound (no open line, claimeven, the move count) settled
    /// the window.
    BoundCut,
    /// One move did not lose at once: played without the table.
    Forced,
    /// The table was read for the position itself.
    TableRead,
    /// ... and held an entry.
    TableHit,
    /// ... whose bounds settled the window.
    TableCut,
    /// A move left the opponent no reply that does not lose: a win found
    /// without searching any move.
    StaticWin,
    /// A child's table entry settled the window before any move was
    /// searched (enhanced transposition cut-off).
    ChildTableCut,
    /// The first move searched cut off.
    FirstMoveCut,
    /// A later move cut off.
    LaterMoveCut,
    /// Every move was searched and none cut off.
    AllMoves,
    /// Not an event but a sum: the positions searched under the moves
    /// tried before a later move cut off, what a perfect move order would
    /// have spared (less what their table entries saved elsewhere).
    BeforeCut,
}

impl Event {
    /// Every event, in the order of the counters.
    pub const ALL: [Event; 14] = [
        Event::Entered,
        Event::Lost,
        Event::LastMoves,
        Event::BoundCut,
        Event::Forced,
        Event::TableRead,
        Event::TableHit,
        Event::TableCut,
        Event::StaticWin,
        Event::ChildTableCut,
        Event::FirstMoveCut,
        Event::LaterMoveCut,
        Event::AllMoves,
        Event::BeforeCut,
    ];

    /// A short name, for table headers.
    pub fn name(self) -> &'static str {
        match self {
            Event::Entered => "entered",
            Event::Lost => "lost",
            Event::LastMoves => "last moves",
            Event::BoundCut => "bound cut",
            Event::Forced => "forced",
            Event::TableRead => "table read",
            Event::TableHit => "table hit",
            Event::TableCut => "table cut",
            Event::StaticWin => "static win",
            Event::ChildTableCut => "child table cut",
            Event::FirstMoveCut => "first move cut",
            Event::LaterMoveCut => "later move cut",
            Event::AllMoves => "all moves",
            Event::BeforeCut => "searched before cut",
        }
    }
}

const EVENTS: usize = Event::ALL.len();

/// Most moves a position of any supported board can have played.
pub const MAX_MOVES: usize = 64;

/// The counts of one depth (positions with that many moves played).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthCounts([u64; EVENTS]);

impl Index<Event> for DepthCounts {
    type Output = u64;
    fn index(&self, event: Event) -> &u64 {
        &self.0[event as usize]
    }
}

static COUNTS: [[AtomicU64; EVENTS]; MAX_MOVES] =
    [const { [const { AtomicU64::new(0) }; EVENTS] }; MAX_MOVES];

/// Adds `amount` to `event` for a position with `moves` moves played
/// (1 to count an event).
#[inline(always)]
pub(super) fn add(moves: i32, event: Event, amount: u64) {
    COUNTS[moves as usize][event as usize].fetch_add(amount, Ordering::Relaxed);
}

/// The counts since the last call, by moves played, and empties them.
pub fn take() -> [DepthCounts; MAX_MOVES] {
    let mut out = [DepthCounts::default(); MAX_MOVES];
    for (depth, counts) in out.iter_mut().zip(COUNTS.iter()) {
        for (count, counter) in depth.0.iter_mut().zip(counts.iter()) {
            *count = counter.swap(0, Ordering::Relaxed);
        }
    }
    out
}
