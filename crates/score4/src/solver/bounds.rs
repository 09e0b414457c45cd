//! Static bounds: what a position's score can be, read off the board
//! without searching.
//!
//! - A side with no line left open cannot win: at best a draw.
//! - "Claimeven": when the number of empty cells is even, the side that
//!   just moved can answer every move right on top of it (a move into a
//!   column with an odd number of empty cells it answers in another such
//!   column), which bounds the cells each side gets. If the side to move
//!   cannot make four with the most it can get, it cannot win; if the
//!   other side's least makes four, it loses, and no later than the side
//!   to move can put off the last cell of that four. A four of the side
//!   to move lying right on top of one of the other's never completes.
//!   With an odd number, a move gives the mover the same strategy, and so
//!   a floor.
//! - Pairing the odd columns (Allis' baseinverse within claimeven): the
//!   side that claims can fix which odd column answers which, and so keep
//!   the mover from both next cells of a pair; a four of the mover's
//!   that needs both never completes.
//! - A threat that seals its column (Allis' odd threat): nobody plays the
//!   empty cell under a side's winning cell, so the cells from there up
//!   are out of play. Claimeven on the board below that seal, won by the
//!   threat's owner, ends with the other side forced to play under the
//!   threat, which makes the owner's four. Two threats in two columns
//!   seal both.

use super::search::Threats;
use super::tuning::MAX_PAIRED_FOURS;
use crate::layout::{CellSet, Discs, Layout};

/// The least and the most `p` can score for the side to move, given that
/// it cannot win at once and has a move after which the opponent cannot
/// either (the search checks both first): so each side needs at least two
/// more discs to win.
///
/// A bound that cannot narrow `alpha..beta` may come out looser: that a
/// side with no line left open can at most draw narrows nothing when the
/// window lies on that side of zero already, so that test (a pass over
/// the whole board) is made only when it could.
#[inline(always)]
pub(crate) fn static_bounds<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    alpha: i32,
    beta: i32,
    threats: Threats<L::Cells>,
) -> (i32, i32) {
    let n = p.moves as i32;
    let open = l.board() & !p.mask;
    let most = l.win_score(n + 2);
    let mut min = if alpha < 0 && !l.has_four(p.opponent() | open) {
        0
    } else {
        claimeven_min(l, p, open, alpha).unwrap_or(-most)
    };
    if min >= beta {
        return (min, most);
    }
    let mut max = if beta > 0 && !l.has_four(p.current | open) {
        0
    } else {
        claimeven_max(l, p, open, beta).unwrap_or(most)
    };
    if max <= alpha {
        return (min, max);
    }
    // The sealing threats cost more to look for: only where the cheaper
    // bounds left the window open, and where the late win a seal gives
    // could narrow it.
    if alpha.max(min) < best_win(l) {
        if let Some(sealed) = sealed_min(l, p, open, threats.ours, alpha.max(min)) {
            min = min.max(sealed);
            if min >= beta {
                return (min, max);
            }
        }
    }
    if beta.min(max) > -best_win(l) {
        if let Some(sealed) = sealed_max(l, p, open, threats.theirs, beta.min(max)) {
            max = max.min(sealed);
        }
    }
    (min, max)
}

/// An upper bound on the score of `p` from the opponent's claimeven
/// strategy, if it applies (`open` being the empty cells): when the number
/// of empty cells is even.
///
/// The opponent answers a move on top of it, except a move into the next
/// cell of a column with an odd number of empty cells: that one it answers
/// with the next cell of another such column (there is always one, since
/// their number is even), which leaves both columns even. So we get at
/// most the first, third, ... empty cell of each column and the next cell
/// of each odd column, and the opponent all the rest. If even all of ours
/// cannot make four with our discs, or only fours on top of the
/// opponent's, we never win: at best a draw, and a loss if the opponent's
/// share makes four, by the move [`latest_win`] tells. None also where
/// the bound could not narrow the window below `beta`.
#[inline(always)]
pub(super) fn claimeven_max<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    beta: i32,
) -> Option<i32> {
    if !(l.cells() - p.moves).is_multiple_of(2) || beta <= -best_win(l) {
        return None;
    }
    // At or below a draw, only a loss narrows the window.
    claimeven(
        l,
        p.current,
        p.opponent(),
        open,
        l.playable(p.mask),
        beta <= 0,
    )
    .map(|outcome| -outcome.claimer_score(l))
}

/// A lower bound on the score of `p` from claiming even ourselves, if the
/// number of empty cells is odd: after any move, the opponent is where
/// [`claimeven_max`] puts us. The best bound over our moves; none also
/// where it could not narrow the window above `alpha`.
#[inline(always)]
pub(super) fn claimeven_min<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    alpha: i32,
) -> Option<i32> {
    if (l.cells() - p.moves).is_multiple_of(2) || alpha >= best_win(l) {
        return None;
    }
    if no_move_claims_even(l, p, open, alpha >= 0) {
        return None;
    }
    best_move_claiming_even(l, p, open, alpha >= 0)
}

/// Whether, before trying our moves one by one, it is already clear that
/// none gives a bound: the opponent's share is at least its discs and the
/// cells of our parity not yet playable, ours at most our discs, the
/// playable cells and the rest, whatever we play. If the opponent might
/// make four first even then, or (when only a win would do, `need_win`)
/// we cannot make four even with all that, no move does better. This
/// settles most positions for the price of about one move's test.
#[inline(always)]
fn no_move_claims_even<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    need_win: bool,
) -> bool {
    let next = l.playable(p.mask);
    let parity = l.row_parity(l.height() % 2);
    let least = p.opponent() | (open & parity & !next);
    let most = p.current | next | (open & !parity);
    let stopped = !l.has_four(most) || completes_first(l, least, most);
    // Short of a win, a move also bounds where the opponent's share has
    // no four at all.
    stopped && (need_win || l.has_four(least))
}

/// The best claimeven bound over our moves (`claimeven_min` without the
/// shortcut): the soonest sure win a move gives, else a draw if one
/// leaves the opponent no four, else none.
#[inline(always)]
fn best_move_claiming_even<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    need_win: bool,
) -> Option<i32> {
    best_claiming_move(
        l,
        (p.current, p.opponent()),
        open,
        l.playable(p.mask),
        need_win,
        l.row_parity(l.height() % 2),
        |o| o.claimer_score(l),
    )
}

/// The best bound from claiming even after one move of ours: over each
/// cell of `next` (the playable cells in play), claimeven by `us` with
/// that disc against `them` on the `open` cells below `ceiling` (as
/// [`claimeven_below`] takes them), each outcome scored by `score`, which
/// never gives more than [`best_win`]. None where no move gives one.
/// Both the whole board's floor and a seal's ask this.
#[inline(always)]
fn best_claiming_move<L: Layout>(
    l: &L,
    (us, them): (L::Cells, L::Cells),
    open: L::Cells,
    next: L::Cells,
    need_win: bool,
    ceiling: L::Cells,
    score: impl Fn(Outcome) -> i32,
) -> Option<i32> {
    let mut found = None;
    for cell in next.cells() {
        // Under a seal, the cell above ours may be out of play; on the
        // whole board it is always empty, and the mask changes nothing.
        let after = l.playable_after(next, cell) & open;
        if let Some(outcome) =
            claimeven_below(l, them, us | cell, open & !cell, after, need_win, ceiling)
        {
            let s = score(outcome);
            if s == best_win(l) {
                return Some(s);
            }
            found = found.max(Some(s));
        }
    }
    found
}

/// What claimeven settles, when the mover cannot make four.
#[derive(Clone, Copy)]
enum Outcome {
    /// The mover never makes four: at best a draw for it.
    MoverCannotWin,
    /// And the claimer makes four by this move (counted from the first
    /// of the game) at the latest: see [`latest_win`].
    ClaimerWinsBy(i32),
}

impl Outcome {
    /// The least the claimer scores.
    #[inline(always)]
    fn claimer_score<L: Layout>(self, l: &L) -> i32 {
        match self {
            Outcome::MoverCannotWin => 0,
            Outcome::ClaimerWinsBy(k) => l.win_score(k - 1),
        }
    }
}

/// The outcome when the side to move (`mover`'s discs) faces claimeven by
/// the other (`claimer`'s), with an even number of `open` cells, `next`
/// being the playable ones: none if the mover might make four. When only
/// the claimer's win would do (`need_win`), none also when it is not
/// sure.
#[inline(always)]
fn claimeven<L: Layout>(
    l: &L,
    mover: L::Cells,
    claimer: L::Cells,
    open: L::Cells,
    next: L::Cells,
    need_win: bool,
) -> Option<Outcome> {
    claimeven_below(
        l,
        mover,
        claimer,
        open,
        next,
        need_win,
        l.row_parity(l.height() % 2),
    )
}

/// [`claimeven`] where each column ends below a cell of the rows of
/// `ceiling` (the top row's sentinel, for a whole board): the cells above
/// that are out of play.
#[inline(always)]
fn claimeven_below<L: Layout>(
    l: &L,
    mover: L::Cells,
    claimer: L::Cells,
    open: L::Cells,
    next: L::Cells,
    need_win: bool,
    ceiling: L::Cells,
) -> Option<Outcome> {
    let (share, claimed) = shares(mover, claimer, open, next, ceiling);
    // Each test first where it most often settles the question.
    let claimer_wins = if need_win {
        if !l.has_four(claimed) {
            return None;
        }
        true
    } else {
        if !l.has_four(share) {
            return Some(if l.has_four(claimed) {
                Outcome::ClaimerWinsBy(latest_win(l, claimed, open))
            } else {
                Outcome::MoverCannotWin
            });
        }
        l.has_four(claimed)
    };
    // The mover has fours in its share; fours of the claimer's under them
    // stop them, and so do pairs of odd columns (`paired_off`). A four
    // with no next cell of an odd column cannot be paired off: tested
    // first, as it settles most positions, though it leaves out the fours
    // that the claimer's cover.
    if claimer_wins && !completes_first(l, share, claimed) {
        return Some(Outcome::ClaimerWinsBy(latest_win(l, claimed, open)));
    }
    let odd_next = open & next & !ceiling;
    if odd_next.has_several()
        && !l.has_four(share & !odd_next)
        && paired_off(l, share, claimed, claimer_wins, odd_next)
    {
        return Some(if claimer_wins {
            Outcome::ClaimerWinsBy(latest_win(l, claimed, open))
        } else {
            Outcome::MoverCannotWin
        });
    }
    None
}

/// The most the mover and the least the claimer get under
/// [`claimeven_below`]: their discs, and the mover the first, third, ...
/// empty cell of each column and the next cell of each odd one.
#[inline(always)]
fn shares<C: CellSet>(mover: C, claimer: C, open: C, next: C, ceiling: C) -> (C, C) {
    // The first, third, ... empty cell of a column has the parity of the
    // cell above its top exactly when the column has an even number of
    // empty cells.
    let share = open & (ceiling | next);
    (mover | share, claimer | (open & !share))
}

/// Whether the claimer of [`claimeven_below`], pairing the columns with an
/// odd number of empty cells in play (`odd_next` being their next cells),
/// stops every four of the mover's `share` that the claimer's fours (in
/// `claimed`, when `claimer_wins`) do not cover.
///
/// Claimeven answers a move into an odd column in another odd column. The
/// claimer may fix beforehand which answers which: the mover then gets
/// one next cell of each pair, never both, and the rest of both columns
/// goes as before (both are even after the pair). So a four that holds
/// both next cells of a pair never completes, and the claimer gets the
/// other next cell, which its share does not count on. Whether pairs exist
/// that each of the mover's fours holds one of is a small search: a
/// handful of fours, each holding at most four of the (at most `W`) next
/// cells.
#[inline(never)]
fn paired_off<L: Layout>(
    l: &L,
    share: L::Cells,
    claimed: L::Cells,
    claimer_wins: bool,
    odd_next: L::Cells,
) -> bool {
    let (odd, ours) = (odd_next, share);
    // A vertical four holds at most one next cell.
    if fours(ours, 1).any() {
        return false;
    }
    let stride = l.stride();
    let steps = [stride, stride + 1, stride - 1];
    let mut starts = steps.map(|step| fours(ours, step));
    if claimer_wins {
        let covered = covered_starts(l, claimed);
        for (s, c) in starts.iter_mut().zip(covered) {
            *s = *s & !c;
        }
    }
    let mut needs = [L::Cells::EMPTY; MAX_PAIRED_FOURS];
    let mut count = 0;
    for (left, step) in starts.into_iter().zip(steps) {
        for start in left.cells() {
            let four = start | (start << step) | (start << (2 * step)) | (start << (3 * step));
            let cells = four & odd;
            if !cells.has_several() || count == needs.len() {
                return false;
            }
            needs[count] = cells;
            count += 1;
        }
    }
    pairs_meet(&needs[..count], &mut [L::Cells::EMPTY; MAX_PAIRS], 0)
}

/// The most pairs of odd columns tried: four pairs take eight of nine
/// columns (wider boards could pair more; a bound left out is only a
/// bound not found).
const MAX_PAIRS: usize = 4;

/// Whether disjoint pairs of cells, the first `made` of them in `pairs`,
/// can be extended so that each set of `needs` holds one.
fn pairs_meet<C: CellSet>(needs: &[C], pairs: &mut [C; MAX_PAIRS], made: usize) -> bool {
    let met = |need: C| pairs[..made].iter().any(|&pair| (pair & !need).is_empty());
    let Some(&need) = needs.iter().find(|&&need| !met(need)) else {
        return true;
    };
    if made == MAX_PAIRS {
        return false;
    }
    let used = pairs[..made]
        .iter()
        .fold(C::EMPTY, |cells, &pair| cells | pair);
    let mut firsts = need & !used;
    while firsts.any() {
        let first = firsts.lowest();
        firsts = firsts ^ first;
        for second in firsts.cells() {
            pairs[made] = first | second;
            if pairs_meet(needs, pairs, made + 1) {
                return true;
            }
        }
    }
    false
}

/// Each four of `discs` in one direction (`step` apart in the layout), as
/// the bit of its lowest cell in the layout.
#[inline(always)]
fn fours<C: CellSet>(discs: C, step: u32) -> C {
    let pairs = discs & (discs >> step);
    pairs & (pairs >> (2 * step))
}

/// A threat that seals its column (Allis' odd threat, made general): a
/// cell `threat` that completes four for `claimer`, with an empty cell
/// below it. Neither side will play that cell below: whoever does gives
/// the claimer the threat. So the cells from there up are out of play,
/// and the board below them (`open` without them) is played out first:
/// if the claimer can claim even there, the other side, once that board
/// is full, must play under the threat. The claimer then wins there at
/// the latest, unless the other side's share makes four first.
///
/// Two threats of the claimer's in different columns seal both at once
/// ([`Seal::with`]): once the board below both is full, the other side
/// must play under one of them. That fixes the parity of the board below
/// where neither threat alone does, and leaves the other side fewer cells.
#[inline(always)]
fn seal<L: Layout>(l: &L, threat: L::Cells, open: L::Cells) -> Seal<L::Cells> {
    let under = threat >> 1;
    let col = l.column_of(threat);
    let column = l.column(col);
    let sealed = column & !under.minus(L::Cells::ONE);
    // The cell below the threat is the column's new ceiling. Its row
    // without a division: a size as data knows its stride only at run
    // time.
    let row_below = under.trailing_zeros() as usize - col * l.stride() as usize;
    let ceiling = (l.row_parity(l.height() % 2) & !column) | (l.row_parity(row_below % 2) & column);
    Seal {
        below: open & !sealed,
        ceiling,
        latest: l.cells() - sealed.count() + 2,
        under,
        column,
    }
}

/// What sealing one or two columns leaves in play (see [`seal`]).
#[derive(Clone, Copy)]
struct Seal<C> {
    /// The empty cells still in play.
    below: C,
    /// The rows of the cells above each column's top in play, as
    /// [`claimeven_below`] takes them.
    ceiling: C,
    /// The move (counted from the first of the game) that fills a sealing
    /// threat at the latest.
    latest: u32,
    /// The cells right under the sealing threats.
    under: C,
    /// The sealed columns.
    column: C,
}

impl<C: CellSet> Seal<C> {
    /// Both seals at once, in different columns: whoever must move once
    /// the board below both is full plays under one of the threats. The
    /// cells out of play add up, so `latest` falls by the other's.
    #[inline(always)]
    fn with<L: Layout<Cells = C>>(self, l: &L, other: Self) -> Self {
        Seal {
            below: self.below & other.below,
            ceiling: (self.ceiling & !other.column) | (other.ceiling & other.column),
            latest: self.latest + other.latest - l.cells() - 2,
            under: self.under | other.under,
            column: self.column | other.column,
        }
    }
}

/// Every set of the claimer's threats worth sealing together, calling
/// `f` with each set's [`Seal`]: each threat that seals its column with
/// the number of cells below it that `odd_below` asks (see
/// [`sealing_threats`]), and each pair of the lowest threats of two
/// columns whose cells below both number so.
#[inline(always)]
fn each_seal<L: Layout>(
    l: &L,
    winning: L::Cells,
    open: L::Cells,
    odd_below: bool,
    mut f: impl FnMut(Seal<L::Cells>),
) {
    let threats = winning & open & (open << 1);
    for threat in sealing_threats(l, threats, open, odd_below).cells() {
        f(seal(l, threat, open));
    }
    let lowest = lowest_in_columns(l, threats);
    if !lowest.has_several() {
        return;
    }
    for a in lowest.cells() {
        let first = seal(l, a, open);
        for b in (lowest & !(a << 1).minus(L::Cells::ONE)).cells() {
            let both = first.with(l, seal(l, b, open));
            if (both.below.count() % 2 == 1) == odd_below {
                f(both);
            }
        }
    }
}

/// Among the claimer's `threats` (empty, with an empty cell below), those
/// that can seal their column in time alone: where the cells below the
/// seal number what `odd_below` asks (an odd number, when the claimer
/// moves first below them; an even one, when the other side does). The
/// lowest of each column.
#[inline(always)]
fn sealing_threats<L: Layout>(
    l: &L,
    threats: L::Cells,
    open: L::Cells,
    odd_below: bool,
) -> L::Cells {
    // The cells below a seal under a threat on row r: the empty cells
    // less the H - r + 1 cells from the one below the threat up.
    let empty = open.count() as usize;
    let rows = l.row_parity((empty + l.height() + usize::from(!odd_below)) % 2);
    lowest_in_columns(l, threats & rows)
}

/// The lowest cell of `cells` in each column.
#[inline(always)]
fn lowest_in_columns<L: Layout>(l: &L, cells: L::Cells) -> L::Cells {
    cells & !above(l, cells)
}

/// The cells strictly above the lowest bit of `under` in each column:
/// borrowing from each column's sentinel sets that bit and flips every
/// bit above it.
#[inline(always)]
fn above<L: Layout>(l: &L, under: L::Cells) -> L::Cells {
    let borrowed = l.sentinels().minus(under);
    (borrowed | under) ^ (borrowed & under)
}

/// The move by which a claimer sealing a column with its threat wins at
/// the latest, given what claimeven below the seal settles.
#[inline(always)]
fn sealed_win(outcome: Outcome, latest: u32) -> i32 {
    match outcome {
        Outcome::MoverCannotWin => latest as i32,
        Outcome::ClaimerWinsBy(k) => k.min(latest as i32),
    }
}

/// An upper bound on the score of `p` (`open` being the empty cells):
/// the opponent wins if one of its threats (or two together) seals its
/// column with an even number of empty cells below the seal, where it
/// claims even against us. None where no seal does; looser where it
/// could not narrow the window below `beta` anyway.
#[inline(always)]
pub(super) fn sealed_max<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    opponent_threats: L::Cells,
    beta: i32,
) -> Option<i32> {
    let mut best: Option<i32> = None;
    each_seal(l, opponent_threats, open, false, |seal| {
        // The cells under the threats count as ours: playing one could
        // complete one of our fours.
        let us = p.current | seal.under;
        // Where a loss by `latest` would not narrow the window, only a
        // sooner one does, which claimeven tells for less.
        let need_win = -l.win_score(seal.latest as i32 - 1) >= beta;
        if let Some(outcome) = claimeven_below(
            l,
            us,
            p.opponent(),
            seal.below,
            l.playable(p.mask) & seal.below,
            need_win,
            seal.ceiling,
        ) {
            let k = sealed_win(outcome, seal.latest);
            let score = -l.win_score(k - 1);
            best = Some(best.map_or(score, |b| b.min(score)));
        }
    });
    best
}

/// A lower bound on the score of `p` (`open` being the empty cells):
/// we win if one of our threats (or two together) seals its column with
/// an odd number of empty cells below the seal, where after one move we
/// claim even. The best over our seals and moves; none where none gives
/// one; looser where it could not narrow the window above `alpha` anyway.
#[inline(always)]
pub(super) fn sealed_min<L: Layout>(
    l: &L,
    p: Discs<L::Cells>,
    open: L::Cells,
    own_threats: L::Cells,
    alpha: i32,
) -> Option<i32> {
    let mut best = None;
    each_seal(l, own_threats, open, true, |seal| {
        let (below, ceiling, latest) = (seal.below, seal.ceiling, seal.latest);
        let next = l.playable(p.mask) & below;
        let them = p.opponent() | seal.under;
        // Whatever we play first, the opponent's share holds its discs and
        // the cells below the seal of its parity that are not playable;
        // at most also the playable ones and those right above them.
        if l.has_four(them | (below & ceiling & !next)) {
            return;
        }
        // Where a win by `latest` would not narrow the window, only a
        // sooner one does, which takes a four of ours below the seal.
        let need_win = l.win_score(latest as i32 - 1) <= alpha;
        if need_win {
            if !l.has_four(p.current | next | (below & !ceiling)) {
                return;
            }
        } else if !l.has_four(them | (below & (ceiling | next | (next << 1)))) {
            best = best.max(Some(l.win_score(latest as i32 - 1)));
            return;
        }
        let sealed = |outcome| l.win_score(sealed_win(outcome, latest) - 1);
        let found =
            best_claiming_move(l, (p.current, them), below, next, need_win, ceiling, sealed);
        best = best.max(found);
    });
    best
}

/// The most a claimeven win can score: play can put off the claimer's
/// last cell by at most the cells above it, `H - 1`.
#[inline(always)]
fn best_win<L: Layout>(l: &L) -> i32 {
    l.win_score((l.cells() as usize - l.height()) as i32)
}

/// The move (counted from the first of the game) by which a side sure to
/// get every cell of `claimed` has made four at the latest, `open` being
/// the empty cells, when the other never makes four. A four is complete
/// once its last empty cell is filled, and play can put that off only by
/// the cells above it, all empty: the other side keeps for last the
/// highest. So the lowest row a four's empty cells can all lie in tells.
#[inline(always)]
fn latest_win<L: Layout>(l: &L, claimed: L::Cells, open: L::Cells) -> i32 {
    let discs = claimed & !open;
    // The search never asks after a move that wins at once.
    debug_assert!(!l.has_four(discs));
    let mut rows = l.bottom();
    for row in 0..l.height() {
        if l.has_four(discs | (claimed & open & rows)) {
            return (l.cells() - (l.height() - 1 - row) as u32) as i32;
        }
        rows = rows | (rows << 1);
    }
    l.cells() as i32
}

/// Whether a side holding at most `share` might make four before the
/// other, holding at least `claimed` (no cell of `share`) and answering on
/// top, makes its own. A four of `share` with one of `claimed` under it
/// (in the same columns, each cell lower than ours) never completes: its
/// cells go on top of the other's, which are then all filled.
#[inline(always)]
fn completes_first<L: Layout>(l: &L, share: L::Cells, claimed: L::Cells) -> bool {
    let stride = l.stride();
    let ours = share;
    if fours(ours, 1).any() {
        // A vertical four cannot lie on top of another.
        return true;
    }
    let [flat, rising, falling] = covered_starts(l, claimed);
    (fours(ours, stride) & !flat).any()
        || (fours(ours, stride + 1) & !rising).any()
        || (fours(ours, stride - 1) & !falling).any()
}

/// Where a flat, a rising and a falling four (as [`fours`] gives them)
/// starts when one of the fours of `claimed` covers it: lies in the same
/// columns, each of its cells lower.
#[inline(always)]
fn covered_starts<L: Layout>(l: &L, claimed: L::Cells) -> [L::Cells; 3] {
    let stride = l.stride();
    let theirs = claimed;
    let (t_flat, t_rising, t_falling) = (
        fours(theirs, stride),
        fours(theirs, stride + 1),
        fours(theirs, stride - 1),
    );
    // Raising a four's lowest bit by 3 rows, where it stays in its column.
    let raise = |b: L::Cells| (b & l.below_top_three()) << 3;
    let above = |b| above(l, b);
    // A four of the other's covers one of ours starting in the same column
    // when each of its cells lies lower in its column. Under our flat
    // four: a flat or falling one starting lower, or a rising one whose top
    // is lower (its start raised three rows). Under our rising one: any
    // flat, rising or falling one starting lower. Under our falling one: a
    // falling one starting lower, or a flat one below our last cell. (A
    // rising one under a falling one needs seven rows; it is left out.)
    [
        above(t_flat | t_falling | raise(t_rising)),
        above(t_rising | t_flat | t_falling),
        above(t_falling | raise(t_flat)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::{Bitboard, Geometry};
    use crate::position::{for_each_position, Position};
    use crate::solver::plain::{plain_negamax, Memo};

    /// `p` as the bounds take it.
    fn discs<const W: usize, const H: usize>(p: &Position<W, H>) -> Discs<Bitboard> {
        Discs {
            current: p.current(),
            mask: p.occupied(),
            moves: p.moves_played(),
        }
    }

    /// The sealed bounds of `p` from single threats alone: each column's
    /// threats passed by themselves leave no pair to seal.
    fn single_seals<const W: usize, const H: usize>(p: &Position<W, H>) -> [Option<i32>; 2] {
        let open = Geometry::<W, H>::BOARD & !p.occupied();
        let (mut upper, mut lower) = (None, None);
        for col in 0..W {
            let column = Geometry::<W, H>::column(col);
            if let Some(u) = sealed_max(
                &Geometry::<W, H>,
                discs(p),
                open,
                p.opponent_winning_cells() & column,
                100,
            ) {
                upper = Some(upper.map_or(u, |b: i32| b.min(u)));
            }
            lower = lower.max(sealed_min(
                &Geometry::<W, H>,
                discs(p),
                open,
                p.winning_cells() & column,
                -100,
            ));
        }
        [upper, lower]
    }

    /// Whether claimeven on the whole board (with an even number of empty
    /// cells) gives a bound only by pairing odd columns: the mover's share
    /// has a four that no four of the claimer's covers.
    fn needs_pairs<const W: usize, const H: usize>(p: &Position<W, H>, open: Bitboard) -> bool {
        let ceiling = Geometry::<W, H>::ROW_PARITY[H % 2];
        let (share, claimed) = shares(p.current(), p.opponent(), open, p.playable(), ceiling);
        Geometry::<W, H>::has_four(share)
            && (!Geometry::<W, H>::has_four(claimed)
                || completes_first(&Geometry::<W, H>, share, claimed))
    }

    /// Checks every bound of `p` against its exact `score`: the claimeven
    /// ones and, at a wide window and at null windows near zero and far from
    /// it (which ask for fast wins), the static bounds. Returns whether each
    /// claimeven bound (upper, lower) applied, whether each sealing bound
    /// (upper, lower) was tighter than claimeven's, whether each was
    /// tighter than single threats' seals give (so two threats sealed
    /// together), and whether the claimeven upper bound took pairs of odd
    /// columns.
    fn check_position<const W: usize, const H: usize>(p: &Position<W, H>, score: i32) -> [bool; 7] {
        let open = Geometry::<W, H>::BOARD & !p.occupied();
        let max = claimeven_max(&Geometry::<W, H>, discs(p), open, 100);
        if let Some(max) = max {
            assert!(score <= max, "{score} > {max}\n{p}");
        }
        // Like the search, never where a move wins at once.
        if p.can_win_next() {
            return [max.is_some(), false, false, false, false, false, false];
        }
        let min = claimeven_min(&Geometry::<W, H>, discs(p), open, -100);
        if let Some(min) = min {
            assert!(score >= min, "{score} < {min}\n{p}");
        }
        let sealed_upper = sealed_max(
            &Geometry::<W, H>,
            discs(p),
            open,
            p.opponent_winning_cells(),
            100,
        );
        if let Some(upper) = sealed_upper {
            assert!(score <= upper, "sealed: {score} > {upper}\n{p}");
        }
        let sealed_lower = sealed_min(&Geometry::<W, H>, discs(p), open, p.winning_cells(), -100);
        if let Some(lower) = sealed_lower {
            assert!(score >= lower, "sealed: {score} < {lower}\n{p}");
        }
        if !p.is_game_over() && p.non_losing_moves().any() {
            for (alpha, beta) in [
                (-100, 100),
                (-7, -6),
                (-4, -3),
                (-2, -1),
                (-1, 0),
                (0, 1),
                (1, 2),
                (3, 4),
                (6, 7),
            ] {
                let threats = Threats {
                    ours: p.winning_cells(),
                    theirs: p.opponent_winning_cells(),
                };
                let (min, max) = static_bounds(&Geometry::<W, H>, discs(p), alpha, beta, threats);
                assert!(min <= score && score <= max, "{min} {score} {max}\n{p}");
            }
        }
        let [single_upper, single_lower] = single_seals(p);
        [
            max.is_some(),
            min.is_some(),
            sealed_upper.is_some_and(|s| max.is_none_or(|m| s < m)),
            sealed_lower.is_some_and(|s| min.is_none_or(|m| s > m)),
            sealed_upper.is_some_and(|s| single_upper.is_none_or(|m| s < m)),
            sealed_lower.is_some_and(|s| single_lower.is_none_or(|m| s > m)),
            max.is_some() && needs_pairs(p, open),
        ]
    }

    /// Adds up how often each bound of [`check_position`] applied.
    fn tally(counts: &mut [usize; 7], applied: [bool; 7]) {
        for (count, applied) in counts.iter_mut().zip(applied) {
            *count += usize::from(applied);
        }
    }

    /// Checks every bound on every position reachable on a small board
    /// against exact scores; returns how often each bound applied (as
    /// [`check_position`] counts them).
    fn check_bounds<const W: usize, const H: usize>() -> [usize; 7] {
        let mut memo = Memo::default();
        let mut counts = [0; 7];
        for_each_position::<W, H>(|p| {
            let p = *p;
            let score = plain_negamax(&p, &mut memo);
            tally(&mut counts, check_position(&p, score));
        });
        counts
    }

    #[test]
    fn bounds_hold_on_every_small_board_position() {
        // An even and an odd number of rows (the shares swap parity), and
        // room for fours on top of fours in every direction.
        let (mut pairs, mut odd_pairs) = (0, 0);
        for counts in [
            check_bounds::<4, 4>(),
            check_bounds::<4, 3>(),
            check_bounds::<4, 5>(),
            check_bounds::<5, 4>(),
        ] {
            // 4x3 has room for few sealing threats.
            assert!(counts[..4].iter().all(|&c| c > 30), "{counts:?}");
            pairs += counts[4] + counts[5];
            odd_pairs += counts[6];
        }
        // Claimeven that takes pairs of odd columns to bound.
        assert!(odd_pairs > 10_000, "{odd_pairs}");
        // Two seals together need room for two threats side by side: 4x5
        // and 5x4 have it (the wide boards below test it more).
        assert!(pairs > 1_000, "{pairs}");
    }

    /// Checks the bounds (as [`check_position`]) on every position below
    /// random late positions of a board wider than the small ones above
    /// (with room for fours in separate columns, and up to eight odd
    /// columns to pair); returns how often each bound applied.
    fn check_wide_board<const W: usize, const H: usize>(
        games: usize,
        most_empty: u32,
    ) -> [usize; 7] {
        let cells = Geometry::<W, H>::CELLS;
        let mut rng = crate::rng::Rng::new(W as u64 * 100 + H as u64);
        let mut memo = Memo::default();
        let mut seen = ahash::AHashSet::default();
        let mut counts = [0; 7];
        for _ in 0..games {
            let (_, start) =
                crate::position::random_game::<W, H>(&mut rng, (cells - most_empty) as usize);
            if cells - start.moves_played() > most_empty {
                continue;
            }
            let mut stack = vec![start];
            while let Some(p) = stack.pop() {
                if p.is_game_over() || !seen.insert(p.key()) {
                    continue;
                }
                let score = plain_negamax(&p, &mut memo);
                tally(&mut counts, check_position(&p, score));
                for col in p.playable_columns() {
                    if !p.is_winning_move(col) {
                        stack.push(p.after(col));
                    }
                }
            }
        }
        counts
    }

    #[test]
    fn bounds_hold_below_late_positions_of_wide_boards() {
        for counts in [
            check_wide_board::<8, 4>(150, 14),
            check_wide_board::<9, 4>(100, 14),
        ] {
            assert!(counts[..4].iter().all(|&c| c > 5_000), "{counts:?}");
            assert!(counts[4..].iter().all(|&c| c > 1_000), "{counts:?}");
        }
    }

    /// Checks, on one position, that the shortcut of `claimeven_min` only
    /// skips moves that give no bound; returns how often it skipped them.
    fn shortcut_skips<const W: usize, const H: usize>(p: &Position<W, H>) -> usize {
        let open = Geometry::<W, H>::BOARD & !p.occupied();
        let odd = !(Geometry::<W, H>::CELLS - p.moves_played()).is_multiple_of(2);
        let mut skipped = 0;
        if odd && !p.can_win_next() {
            for need_win in [false, true] {
                if no_move_claims_even(&Geometry::<W, H>, discs(p), open, need_win) {
                    let best = best_move_claiming_even(&Geometry::<W, H>, discs(p), open, need_win);
                    assert_eq!(best, None, "need_win {need_win}\n{p}");
                    skipped += 1;
                }
            }
        }
        skipped
    }

    /// [`shortcut_skips`] on every position of a small board.
    fn check_shortcut<const W: usize, const H: usize>() -> usize {
        let mut skipped = 0;
        for_each_position::<W, H>(|p| skipped += shortcut_skips(p));
        skipped
    }

    #[test]
    fn claimeven_shortcut_skips_only_moves_without_a_bound() {
        // 5x5 (an odd number of cells) from random games: every position of
        // it took most of the test's time (docs/testing.md).
        let mut rng = crate::rng::Rng::new(55);
        let mut sampled = 0;
        for _ in 0..200_000 {
            let moves = rng.index(26);
            let (_, p) = crate::position::random_game::<5, 5>(&mut rng, moves);
            sampled += shortcut_skips(&p);
        }
        for skipped in [
            check_shortcut::<4, 4>(),
            check_shortcut::<4, 5>(),
            check_shortcut::<5, 4>(),
            sampled,
        ] {
            assert!(skipped > 100, "{skipped}");
        }
    }

    /// The bounds of a board whose size is data equal those of the same
    /// board compiled, on every position of a small board.
    fn same_with_size_as_data<const W: usize, const H: usize>() -> usize {
        let shape = crate::wide::Shape::any(W, H);
        let wide = |b: Bitboard| b.bits() as u128;
        let mut compared = 0;
        for_each_position::<W, H>(|p| {
            if p.can_win_next() || p.is_game_over() || p.non_losing_moves().is_empty() {
                return;
            }
            let d = discs(p);
            let as_data = Discs {
                current: wide(d.current),
                mask: wide(d.mask),
                moves: d.moves,
            };
            let threats = Threats {
                ours: p.winning_cells(),
                theirs: p.opponent_winning_cells(),
            };
            let threats_as_data = Threats {
                ours: wide(threats.ours),
                theirs: wide(threats.theirs),
            };
            for (alpha, beta) in [(-100, 100), (-2, -1), (0, 1), (3, 4)] {
                let compiled = static_bounds(&Geometry::<W, H>, d, alpha, beta, threats);
                let data = static_bounds(&shape, as_data, alpha, beta, threats_as_data);
                assert_eq!(compiled, data, "{alpha} {beta}\n{p}");
            }
            compared += 1;
        });
        compared
    }

    #[test]
    fn bounds_of_sizes_as_data_equal_the_compiled_ones() {
        assert!(same_with_size_as_data::<4, 4>() > 10_000);
        assert!(same_with_size_as_data::<5, 4>() > 10_000);
        assert!(same_with_size_as_data::<4, 5>() > 10_000);
    }

    #[test]
    fn row_parity_covers_the_layout() {
        let [even, odd] = Geometry::<7, 6>::ROW_PARITY;
        assert_eq!((even & odd), Bitboard::EMPTY);
        assert_eq!((even | odd).count(), 49);
        assert!(even.contains(Geometry::<7, 6>::cell(3, 0)));
        assert!(odd.contains(Geometry::<7, 6>::cell(3, 5)));
    }
}
