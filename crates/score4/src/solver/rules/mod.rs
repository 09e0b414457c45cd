//! Victor Allis' rule set (his program VICTOR, "A Knowledge-based
//! Approach of Connect-Four", 1988) as a static test: whether the side
//! that just moved (the "controller", who answers every move) at least
//! draws; with an odd number of empty cells only through an odd threat of
//! its own. It is measured against the static bounds in
//! `docs/experiments.md`; the search asks it only at the numbers of empty
//! cells `tuning::RULES_EMPTY` names (none: it spares positions but costs
//! more time than they take).
//!
//! ```
//! use score4::solver::rules;
//! use score4::Position;
//! // The first player wins 7x6: no rule can say otherwise.
//! assert!(!rules::mover_at_most_draws(&Position::<7, 6>::new()));
//! // With an odd number of empty cells, a win at once is at least a draw.
//! let p: Position = "2121217".parse().unwrap();
//! assert!(rules::mover_at_least_draws(&p));
//! ```
//!
//! A group is a line of four holding no disc of the controller's: one the
//! side to move (the "mover") might still make. Each rule is an
//! application on a few empty cells with a strategy for the controller
//! there, and solves (refutes) the mover's groups that strategy keeps
//! from completing. If applications that can all be played together
//! solve every group, the mover never makes four: a score of at most 0
//! for it.
//!
//! # Parity on any height
//!
//! Allis' odd and even squares are the rows 1, 3, 5 and 2, 4, 6 of 7x6:
//! claimeven pairs the empty cells of a column with an even number of
//! them from the bottom up, and the controller gets the upper of each
//! pair. Such a column's pairs end at the top row, so the uppers are the
//! top row and every second row below it, whatever the column's lowest
//! empty cell: the rows `r` (from 1 at the bottom) with `H - r` even. On
//! any height those are the "even" cells here (Allis' even rows when `H`
//! is even; the rows 1, 3, 5 when it is 5), and the others the "odd"
//! ones.
//!
//! # The strategy behind the combination
//!
//! Allis combines applications that do not conflict. The conflict rules
//! here come from one strategy, written out so that each rule is checked
//! against it rather than against the thesis' wording:
//!
//! - Each application takes its cells for itself (`used`), except that
//!   claimeven pairs may be shared by the applications that rely on them
//!   (`ce`): a cell belongs to one aligned pair, so two applications
//!   relying on the same pair rely on the same promise.
//! - The controller never plays the lower cell of a claimeven pair of
//!   its own accord, nor a cell a rule keeps for its answer (each rule
//!   says which, and when); every other cell of an application it may
//!   take when it likes, and the application's promise holds ("one of
//!   the two" for a vertical or a baseinverse; see each rule for the
//!   others).
//! - In every column, claimeven pairs lie above every other
//!   application's cells (the `shadow` of those, the cells at or below
//!   them, holds no claimeven pair's lower cell). The pairs above the
//!   highest other cell of a column that no application chose are
//!   claimed too, so each column ends in a block of claimeven pairs up to
//!   its top, with free cells (in no application) below it.
//! - The two lower cells of a lowinverse or highinverse are kept like a
//!   claimeven pair's lower cell until the mover plays one of them, and
//!   likewise lie above no other application's cells (they are that
//!   rule's `low`, and the cells under its upper cells its `shadow`).
//!
//! The controller answers a move in an application as that application
//! says, and a move on a free cell with any cell it may take of its own
//! accord. There always is one. Suppose every playable cell were one it
//! keeps from playing. A column whose playable cell is a claimeven
//! pair's lower cell, or any other odd cell a rule keeps (highinverse
//! keeps one), holds an even number of empty cells: the cells from an
//! odd cell to the top are even in number. A column whose playable cell
//! is an inverse's lower cell (an even cell) holds an odd number; but
//! then the inverse's other column is stuck on a kept cell too, and
//! every cell at or below the inverse's is in its shadow, which holds no
//! other rule's kept cell: that column's playable cell is the inverse's
//! other lower cell, and the two columns together hold an even number.
//! So the empty cells would be even in number; but with the controller
//! to move the number is odd.
//!
//! So the promises of all applications hold together, and the mover's
//! first four, if any, would have to be a group some application solves:
//! none is (the rules that solve groups by the controller's own four
//! first show that four comes first).
//!
//! # The rules
//!
//! Claimeven, baseinverse, vertical, aftereven, baseclaim, before,
//! lowinverse, highinverse and specialbefore, each described where it is
//! made, in `apps`, with the strategy that makes it hold; and with an odd
//! number of empty cells, Allis' odd threat, which gives the controller
//! the column that the parity argument needs (in `controller_draws`).
//! Two differ from Allis' wording, for the argument above: the inverses
//! answer the mover's move on a lower cell on the cell on top of it
//! (always playable), not in the other column; and highinverse leaves
//! out the groups it solves only while a lower cell is playable.
//!
//! The sets are the layout's own, so any board whose groups number at
//! most `MAX_GROUPS` (256) is covered; on larger boards the test answers no.

mod apps;
mod cover;
#[cfg(test)]
mod tests;

use crate::bitboard::Geometry;
use crate::layout::{CellSet, Discs, Layout};
use crate::position::Position;
use apps::{Applications, Taken};

/// The most groups of the mover's a position may have: up to 256, four
/// words of bits. A 7x6 board has 69 lines of four, an 8x7 one 107.
const MAX_GROUPS: usize = 256;

/// Words of one set of groups.
const WORDS: usize = MAX_GROUPS / 64;

/// A set of the mover's groups, by index.
type Groups = [u64; WORDS];

/// Which rules may be applied: all for the solver's use, fewer for
/// measuring what each adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules(u16);

impl Rules {
    pub(crate) const CLAIMEVEN: Rules = Rules(1);
    pub(crate) const BASEINVERSE: Rules = Rules(2);
    pub(crate) const VERTICAL: Rules = Rules(4);
    pub(crate) const AFTEREVEN: Rules = Rules(8);
    pub(crate) const BASECLAIM: Rules = Rules(16);
    pub(crate) const BEFORE: Rules = Rules(32);
    pub(crate) const LOWINVERSE: Rules = Rules(64);
    pub(crate) const HIGHINVERSE: Rules = Rules(128);
    pub(crate) const SPECIALBEFORE: Rules = Rules(256);
    /// The odd threat: the controller's zugzwang with an odd number of
    /// empty cells (see [`controller_draws`]).
    pub(crate) const ODD_THREAT: Rules = Rules(512);
    pub(crate) const ALL: Rules = Rules(1023);
    /// Each rule alone, with its name.
    #[cfg(test)]
    pub(crate) const EACH: [(Rules, &'static str); 10] = [
        (Rules::CLAIMEVEN, "claimeven"),
        (Rules::BASEINVERSE, "baseinverse"),
        (Rules::VERTICAL, "vertical"),
        (Rules::AFTEREVEN, "aftereven"),
        (Rules::BASECLAIM, "baseclaim"),
        (Rules::BEFORE, "before"),
        (Rules::LOWINVERSE, "lowinverse"),
        (Rules::HIGHINVERSE, "highinverse"),
        (Rules::SPECIALBEFORE, "specialbefore"),
        (Rules::ODD_THREAT, "odd threat"),
    ];

    #[inline(always)]
    fn has(self, rule: Rules) -> bool {
        self.0 & rule.0 != 0
    }

    /// These rules less `rule`.
    #[cfg(test)]
    pub(crate) fn without(self, rule: Rules) -> Rules {
        Rules(self.0 & !rule.0)
    }
}

/// Whether Allis' rules prove that the side to move of `p` scores at most
/// 0: the side that just moved at least draws. With an odd number of empty
/// cells, only through an odd threat (see `controller_draws` in the source).
pub fn mover_at_most_draws<const W: usize, const H: usize>(p: &Position<W, H>) -> bool {
    controller_draws(&Geometry::<W, H>, p.discs())
}

/// Whether Allis' rules prove that the side to move of `p` scores at least
/// 0: it has a move after which [`mover_at_most_draws`] holds for the
/// other side.
pub fn mover_at_least_draws<const W: usize, const H: usize>(p: &Position<W, H>) -> bool {
    mover_draws(&Geometry::<W, H>, p.discs())
}

/// Whether the solver's static bounds (`bounds`) prove what the two
/// functions above ask of `p`: at most 0 with an even number of empty
/// cells, at least 0 with an odd one. For measuring the rules against
/// them. The bounds are asked as the search asks them, at a null window
/// on the question's side of 0, and only where the search would (no win
/// at once, a move that does not lose at once); a position without such a
/// move is lost, which settles "at most 0".
pub fn bounds_prove<const W: usize, const H: usize>(p: &Position<W, H>) -> bool {
    let even = (W * H - p.moves_played() as usize).is_multiple_of(2);
    if p.can_win_next() {
        return !even;
    }
    if p.non_losing_moves().is_empty() {
        return even;
    }
    let threats = super::search::Threats {
        ours: p.winning_cells(),
        theirs: p.opponent_winning_cells(),
    };
    let l = Geometry::<W, H>;
    if even {
        super::bounds::static_bounds(&l, p.discs(), 0, 1, threats).1 <= 0
    } else {
        super::bounds::static_bounds(&l, p.discs(), -1, 0, threats).0 >= 0
    }
}

/// Whether the side that just moved at least draws in `p` by Allis' rules
/// (all of them): the side to move then scores at most 0. False where the
/// rules find no proof.
///
/// With an odd number of empty cells the parity argument of the module
/// needs one column to hold an odd number when the controller is stuck:
/// Allis' odd threat, the first player's zugzwang on 7x6. A threat of the
/// controller's (a cell that makes its four) on an odd cell over an empty
/// even one: the controller never plays the cell under it, and answers
/// the mover's move there on the threat, winning. No application uses
/// that column, so while the game goes on its playable cell is free or
/// the one under the threat, from which an odd number of cells is empty;
/// the mover's groups holding the threat or a cell above it are solved.
pub(crate) fn controller_draws<L: Layout>(l: &L, p: Discs<L::Cells>) -> bool {
    controller_draws_with(l, p, Rules::ALL)
}

/// Whether the side to move at least draws in `p` (a score of at least 0):
/// a move that wins at once, or one after which it is the controller of
/// [`controller_draws`].
pub(crate) fn mover_draws<L: Layout>(l: &L, p: Discs<L::Cells>) -> bool {
    mover_draws_with(l, p, Rules::ALL)
}

/// [`mover_draws`] with only `rules`.
pub(crate) fn mover_draws_with<L: Layout>(l: &L, p: Discs<L::Cells>, rules: Rules) -> bool {
    let open = l.board() & !p.mask;
    if open.count().is_multiple_of(2) && !rules.has(Rules::ODD_THREAT) {
        return false;
    }
    let next = l.playable(p.mask);
    if (l.winning_cells(p.current) & next).any() {
        return true;
    }
    next.cells().any(|cell| {
        let after = Discs {
            current: p.opponent(),
            mask: p.mask | cell,
            moves: p.moves + 1,
        };
        controller_draws_with(l, after, rules)
    })
}

/// [`controller_draws`] with only `rules`.
pub(crate) fn controller_draws_with<L: Layout>(l: &L, p: Discs<L::Cells>, rules: Rules) -> bool {
    let open = l.board() & !p.mask;
    let even = open.count().is_multiple_of(2);
    if !even && !rules.has(Rules::ODD_THREAT) {
        return false;
    }
    let mut groups = [L::Cells::EMPTY; MAX_GROUPS];
    let Some(count) = lines(l, p.current | open, open, &mut groups) else {
        return false;
    };
    if count == 0 {
        return true;
    }
    let groups = &groups[..count];
    let mut apps = Applications::new();
    if !apps.make(l, p, groups, rules) {
        return false;
    }
    if even {
        return cover::covers(apps.list(), Taken::NONE, solved_by(groups, L::Cells::EMPTY));
    }
    // The controller's threats on an odd cell over an empty even one.
    let under = open & even_cells(l);
    let threats = l.winning_cells(p.opponent()) & open & (under << 1);
    threats.cells().any(|threat| {
        let column = l.column(l.column_of(threat));
        // The mover never gets the threat or a cell above it; the cell
        // under it can still complete a four of the mover's.
        let dead = column & !threat.minus(L::Cells::ONE);
        cover::covers(apps.list(), Taken::column(column), solved_by(groups, dead))
    })
}

/// The groups not solved by holding a cell of `dead`, as a set.
fn solved_by<C: CellSet>(groups: &[C], dead: C) -> Groups {
    let mut unsolved = [0u64; WORDS];
    for (g, &line) in groups.iter().enumerate() {
        if (line & dead).is_empty() {
            unsolved[g / 64] |= 1 << (g % 64);
        }
    }
    unsolved
}

/// The even cells (see the module's parity): the rows of the claimeven
/// uppers, the top row and every second one below it.
fn even_cells<L: Layout>(l: &L) -> L::Cells {
    // The sentinel's row has the parity `H % 2`; the top row the other.
    l.board() & !l.row_parity(l.height() % 2)
}

/// Every line of four within `cells` that holds at least one cell of
/// `open`, into `out`; their number, or none if more than `out` holds.
fn lines<L: Layout>(l: &L, cells: L::Cells, open: L::Cells, out: &mut [L::Cells]) -> Option<usize> {
    let stride = l.stride();
    let mut count = 0;
    for step in [1, stride, stride + 1, stride - 1] {
        let pairs = cells & (cells >> step);
        let starts = pairs & (pairs >> (2 * step));
        for start in starts.cells() {
            let line = start | (start << step) | (start << (2 * step)) | (start << (3 * step));
            if (line & open).is_empty() {
                continue;
            }
            *out.get_mut(count)? = line;
            count += 1;
        }
    }
    Some(count)
}
