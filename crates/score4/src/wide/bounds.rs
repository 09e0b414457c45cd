//! Static bounds of boards whose size is data: the rules of the compiled
//! sizes' [bounds](crate::solver) in their plainest form.
//!
//! - A side with no line left open cannot win: at best a draw.
//! - Claimeven: with an even number of empty cells, the side that just
//!   moved can answer every move on top of it (a move into a column with
//!   an odd number of empty cells in another such column), which bounds
//!   the cells each side gets. If the side to move cannot make four with
//!   the most it gets, it cannot win; if the other's least makes four, it
//!   loses, by the move [`latest_win`] tells. With an odd number, each
//!   move of ours gives us that strategy, and so a floor.
//!
//!   A four of the mover's lying on top of one of the claimer's never
//!   completes.
//!
//! The compiled sizes also pair odd columns and seal columns under
//! threats; those are not here yet.

use super::position::Position;
use super::shape::{Cells, Shape};
use crate::score;

/// What claimeven settles when the mover cannot make four.
#[derive(Clone, Copy)]
enum Outcome {
    /// The mover never makes four: at best a draw for it.
    MoverCannotWin,
    /// And the claimer makes four by this move (from the first of the
    /// game) at the latest.
    ClaimerWinsBy(u32),
}

impl Outcome {
    /// The least the claimer scores.
    fn claimer_score(self, cells: usize) -> i32 {
        match self {
            Outcome::MoverCannotWin => 0,
            Outcome::ClaimerWinsBy(k) => score::win_by_disc(cells, k),
        }
    }
}

/// The least and the most `p` scores for the side to move, as far as the
/// rules above tell, within `floor..=ceiling` known already; for a
/// position where the side to move cannot win at once and has a move
/// after which the opponent cannot either. A bound that could not narrow
/// `alpha..beta` is not looked for.
#[inline]
pub(super) fn static_bounds(
    shape: &Shape,
    p: &Position,
    (alpha, beta): (i32, i32),
    (floor, ceiling): (i32, i32),
) -> (i32, i32) {
    let cells = shape.cells();
    let open = shape.board() & !p.occupied();
    let (mut min, mut max) = (floor, ceiling);
    if alpha < 0 && !shape.has_four(p.opponent() | open) {
        min = 0;
    }
    if beta > 0 && !shape.has_four(p.current() | open) {
        max = 0;
    }
    if min >= beta || max <= alpha {
        return (min, max);
    }
    // The most a claimeven win can score: play puts off the claimer's
    // last cell by at most the cells above it.
    let best_win = score::win(cells, (cells - shape.height()) as u32);
    let empty = cells as u32 - p.moves_played();
    if empty.is_multiple_of(2) {
        if beta <= -best_win {
            return (min, max);
        }
        // The opponent claims even.
        if let Some(o) = claimeven(shape, p.current(), p.opponent(), open, p.playable(shape)) {
            max = max.min(-o.claimer_score(cells));
        }
    } else {
        if alpha >= best_win {
            return (min, max);
        }
        // After each move of ours, we claim even.
        let next = p.playable(shape);
        let mut best = None;
        let mut moves = next;
        while moves != 0 {
            let cell = moves & moves.wrapping_neg();
            moves ^= cell;
            let after = shape.playable_after(next, cell) & open;
            if let Some(o) = claimeven(shape, p.opponent(), p.current() | cell, open & !cell, after)
            {
                best = best.max(Some(o.claimer_score(cells)));
            }
        }
        if let Some(b) = best {
            min = min.max(b);
        }
    }
    debug_assert!(min <= max, "{min} > {max}");
    (min, max)
}

/// The outcome when the side to move (`mover`'s discs) faces claimeven by
/// the other (`claimer`'s), with an even number of `open` cells, `next`
/// being the playable ones: none if the mover might make four.
#[inline]
fn claimeven(
    shape: &Shape,
    mover: Cells,
    claimer: Cells,
    open: Cells,
    next: Cells,
) -> Option<Outcome> {
    // The first, third, ... empty cell of a column has the parity of the
    // cell above its top exactly when the column has an even number of
    // empty cells; the mover also gets the next cell of each odd column.
    let share = open & (shape.claim_rows() | next);
    let most = mover | share;
    let claimed = claimer | (open & !share);
    if !shape.has_four(most) {
        return Some(if shape.has_four(claimed) {
            Outcome::ClaimerWinsBy(latest_win(shape, claimed, open))
        } else {
            Outcome::MoverCannotWin
        });
    }
    // The mover's fours that lie on top of one of the claimer's never
    // complete: the claimer's completes first.
    if shape.has_four(claimed) && !completes_first(shape, most, claimed) {
        return Some(Outcome::ClaimerWinsBy(latest_win(shape, claimed, open)));
    }
    None
}

/// Each four of `discs` in one direction (`step` apart in the layout), as
/// the bit of its lowest cell.
#[inline(always)]
fn fours(discs: Cells, step: u32) -> Cells {
    let pairs = discs & (discs >> step);
    pairs & (pairs >> (2 * step))
}

/// Whether a side holding at most `share` might make four before the
/// other, holding at least `claimed` and answering on top, makes its own:
/// a four of `share` with one of `claimed` under it (in the same columns,
/// each cell lower) never completes.
fn completes_first(shape: &Shape, share: Cells, claimed: Cells) -> bool {
    if fours(share, 1) != 0 {
        // An upright four cannot lie on top of another.
        return true;
    }
    let s = shape.stride();
    let [flat, rising, falling] = covered_starts(shape, claimed);
    fours(share, s) & !flat != 0
        || fours(share, s + 1) & !rising != 0
        || fours(share, s - 1) & !falling != 0
}

/// Where a flat, a rising and a falling four (as [`fours`] gives them)
/// start when a four of `claimed` lies under it: under a flat four, a
/// flat or falling one starting lower, or a rising one whose top is lower;
/// under a rising one, any starting lower; under a falling one, a falling
/// one starting lower or a flat one below its last cell.
fn covered_starts(shape: &Shape, claimed: Cells) -> [Cells; 3] {
    let s = shape.stride();
    let (flat, rising, falling) = (
        fours(claimed, s),
        fours(claimed, s + 1),
        fours(claimed, s - 1),
    );
    // A four's lowest bit raised by three rows, where it stays in its column.
    let low_rows = shape.bottom() * ((1 << shape.height().saturating_sub(3)) - 1);
    let raise = |b: Cells| (b & low_rows) << 3;
    let above = |under: Cells| {
        // Borrowing from each column's sentinel sets the lowest bit of
        // `under` and flips every bit above it.
        (shape.sentinels().wrapping_sub(under)) ^ under
    };
    [
        above(flat | falling | raise(rising)),
        above(rising | flat | falling),
        above(falling | raise(flat)),
    ]
}

/// The move by which a side sure to get every cell of `claimed` has made
/// four at the latest (`open` the empty cells), when the other never
/// does: play can put off a four's last cell only by the empty cells
/// above it, so the lowest row its empty cells can all lie in tells.
fn latest_win(shape: &Shape, claimed: Cells, open: Cells) -> u32 {
    let discs = claimed & !open;
    let (cells, h) = (shape.cells() as u32, shape.height());
    let mut rows = shape.bottom();
    for row in 0..h {
        if shape.has_four(discs | (claimed & open & rows)) {
            return cells - (h - 1 - row) as u32;
        }
        rows |= rows << 1;
    }
    cells
}
