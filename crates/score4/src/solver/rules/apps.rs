//! The applications of each rule on one position, and the mover's groups
//! each solves.

use super::{Groups, Rules, WORDS};
use crate::layout::{CellSet, Discs, Layout};
use crate::wide::shape::MAX_WIDTH;

/// The most applications one position may have; past that the test gives
/// up (a proof not found, never a wrong one).
const MAX_APPLICATIONS: usize = 512;

/// The most lower cells the inverse rules pair up: the even cells are half
/// the rows, so a board of 128 cells has at most 64.
const MAX_LOWERS: usize = 64;

/// One application: the cells it uses, how they constrain the others
/// (see the module's strategy), and the groups it solves.
#[derive(Clone, Copy, Debug)]
pub(super) struct Application<C> {
    /// Cells no other application may use.
    pub(super) used: C,
    /// Cells of claimeven pairs it relies on: others may rely on them too.
    pub(super) ce: C,
    /// The lower cells of those pairs.
    pub(super) low: C,
    /// The cells at or below each `used` cell in its column: no claimeven
    /// pair may start there.
    pub(super) shadow: C,
    /// The mover's groups it solves.
    pub(super) solves: Groups,
}

/// The cells applications chosen together take, as one [`Application`]
/// would (`solves` unused).
#[derive(Clone, Copy)]
pub(super) struct Taken<C> {
    used: C,
    ce: C,
    low: C,
    shadow: C,
}

impl<C: CellSet> Taken<C> {
    pub(super) const NONE: Taken<C> = Taken {
        used: C::EMPTY,
        ce: C::EMPTY,
        low: C::EMPTY,
        shadow: C::EMPTY,
    };

    /// A column no application may use: an odd threat's (see
    /// `controller_draws`).
    pub(super) fn column(column: C) -> Taken<C> {
        Taken {
            used: column,
            ce: column,
            low: C::EMPTY,
            shadow: C::EMPTY,
        }
    }

    /// Whether `a` can be played along with these.
    #[inline(always)]
    pub(super) fn admits(&self, a: &Application<C>) -> bool {
        ((a.used & (self.used | self.ce))
            | (a.ce & self.used)
            | (a.low & self.shadow)
            | (a.shadow & self.low))
            .is_empty()
    }

    /// These and `a`.
    #[inline(always)]
    pub(super) fn with(&self, a: &Application<C>) -> Taken<C> {
        Taken {
            used: self.used | a.used,
            ce: self.ce | a.ce,
            low: self.low | a.low,
            shadow: self.shadow | a.shadow,
        }
    }
}

/// The applications of one position, on the stack.
pub(super) struct Applications<C> {
    list: [Application<C>; MAX_APPLICATIONS],
    count: usize,
}

/// What one position's applications are made from.
struct Board<'g, L: Layout> {
    l: &'g L,
    /// The empty cells.
    open: L::Cells,
    /// The even cells (see the module's parity), the claimeven uppers.
    even: L::Cells,
    /// The mover's groups.
    groups: &'g [L::Cells],
}

impl<L: Layout> Board<'_, L> {
    /// The groups holding every cell of `cells`.
    fn holding_all(&self, cells: L::Cells) -> Groups {
        self.solved(|g| (g & cells) == cells)
    }

    /// The groups holding any cell of `cells`.
    fn holding_any(&self, cells: L::Cells) -> Groups {
        self.solved(|g| (g & cells).any())
    }

    /// The groups `solves` says are solved.
    fn solved(&self, solves: impl Fn(L::Cells) -> bool) -> Groups {
        let mut set = [0u64; WORDS];
        for (i, &g) in self.groups.iter().enumerate() {
            if solves(g) {
                set[i / 64] |= 1 << (i % 64);
            }
        }
        set
    }

    /// The cells at or below `cell` in its column.
    fn down_from(&self, cell: L::Cells) -> L::Cells {
        self.l.column(self.l.column_of(cell)) & (cell << 1).minus(L::Cells::ONE)
    }

    /// The cells of each cell's column at or below it, for a set of cells.
    fn shadow_of(&self, cells: L::Cells) -> L::Cells {
        cells
            .cells()
            .fold(L::Cells::EMPTY, |s, c| s | self.down_from(c))
    }

    /// The cells strictly above `cell` in its column.
    fn above(&self, cell: L::Cells) -> L::Cells {
        self.l.column(self.l.column_of(cell)) & !(cell << 1).minus(L::Cells::ONE)
    }
}

/// Whether a set of groups is empty.
fn none(set: &Groups) -> bool {
    set.iter().all(|&w| w == 0)
}

/// The union of two sets of groups.
fn union(a: Groups, b: Groups) -> Groups {
    std::array::from_fn(|i| a[i] | b[i])
}

impl<C: CellSet> Applications<C> {
    pub(super) fn new() -> Self {
        Applications {
            list: [Application {
                used: C::EMPTY,
                ce: C::EMPTY,
                low: C::EMPTY,
                shadow: C::EMPTY,
                solves: [0; WORDS],
            }; MAX_APPLICATIONS],
            count: 0,
        }
    }

    pub(super) fn list(&self) -> &[Application<C>] {
        &self.list[..self.count]
    }

    /// Adds `a` if it solves any group; false if there is no room.
    fn push(&mut self, a: Application<C>) -> bool {
        if none(&a.solves) {
            return true;
        }
        if self.count == MAX_APPLICATIONS {
            return false;
        }
        self.list[self.count] = a;
        self.count += 1;
        true
    }

    /// Every application of `rules` on `p` that solves one of `groups`
    /// (the mover's); false if they do not fit.
    pub(super) fn make<L: Layout<Cells = C>>(
        &mut self,
        l: &L,
        p: Discs<C>,
        groups: &[C],
        rules: Rules,
    ) -> bool {
        let open = l.board() & !p.mask;
        let b = Board {
            l,
            open,
            even: super::even_cells(l),
            groups,
        };
        let next = l.playable(p.mask);
        let mut fits = true;
        if rules.has(Rules::CLAIMEVEN) {
            fits &= self.claimevens(&b);
        }
        if rules.has(Rules::BASEINVERSE) {
            fits &= self.baseinverses(&b, next);
        }
        if rules.has(Rules::VERTICAL) {
            fits &= self.verticals(&b);
        }
        if rules.has(Rules::BASECLAIM) {
            fits &= self.baseclaims(&b, next);
        }
        if rules.has(Rules::LOWINVERSE) {
            fits &= self.inverses(&b, 1);
        }
        if rules.has(Rules::HIGHINVERSE) {
            fits &= self.inverses(&b, 2);
        }
        if rules.has(Rules::AFTEREVEN)
            || rules.has(Rules::BEFORE)
            || rules.has(Rules::SPECIALBEFORE)
        {
            let mut theirs = [C::EMPTY; super::MAX_GROUPS];
            let Some(count) = super::lines(l, p.opponent() | open, open, &mut theirs) else {
                return false;
            };
            for &line in &theirs[..count] {
                if rules.has(Rules::AFTEREVEN) {
                    fits &= self.aftereven(&b, line);
                }
                if rules.has(Rules::BEFORE) {
                    fits &= self.before(&b, line, None);
                }
                if rules.has(Rules::SPECIALBEFORE) {
                    fits &= self.specialbefores(&b, line, next);
                }
            }
        }
        fits
    }

    /// Claimeven: an empty even cell with an empty cell under it. The
    /// controller answers a move on the lower cell with the upper, and
    /// never plays the lower itself, so it gets the upper: the groups
    /// holding it are solved.
    fn claimevens<L: Layout<Cells = C>>(&mut self, b: &Board<L>) -> bool {
        for upper in (b.open & b.even & (b.open << 1)).cells() {
            let pair = upper | (upper >> 1);
            let fits = self.push(Application {
                used: C::EMPTY,
                ce: pair,
                low: upper >> 1,
                shadow: C::EMPTY,
                solves: b.holding_any(upper),
            });
            if !fits {
                return false;
            }
        }
        true
    }

    /// Baseinverse: two playable cells (so in two columns). A move on one
    /// is answered on the other, still playable: the controller gets one
    /// of them, and the groups holding both are solved.
    fn baseinverses<L: Layout<Cells = C>>(&mut self, b: &Board<L>, next: C) -> bool {
        let mut rest = next;
        while rest.any() {
            let first = rest.lowest();
            rest = rest ^ first;
            for second in rest.cells() {
                let pair = first | second;
                let fits = self.push(Application {
                    used: pair,
                    ce: C::EMPTY,
                    low: C::EMPTY,
                    shadow: b.shadow_of(pair),
                    solves: b.holding_all(pair),
                });
                if !fits {
                    return false;
                }
            }
        }
        true
    }

    /// Vertical: two empty cells one on top of the other. A move on the
    /// lower is answered on the upper: the controller gets one of them,
    /// and the groups holding both are solved. Allis asks for an odd
    /// upper cell (with an even one, claimeven does more); here any pair
    /// may be one, as claimeven may be kept out of its column by others.
    fn verticals<L: Layout<Cells = C>>(&mut self, b: &Board<L>) -> bool {
        for lower in (b.open & (b.open >> 1)).cells() {
            let pair = lower | (lower << 1);
            let fits = self.push(Application {
                used: pair,
                ce: C::EMPTY,
                low: C::EMPTY,
                shadow: b.down_from(lower << 1),
                solves: b.holding_all(pair),
            });
            if !fits {
                return false;
            }
        }
        true
    }

    /// Baseclaim: three playable cells `a`, `b`, `c`, and `d`, the even
    /// cell on top of `b`, with claimeven pairs from `d` up. A move on `a`
    /// is answered on `c`, and then `b` and `d` are a claimeven pair; a
    /// move on `b` is answered on `c`, a move on `c` on `b`, and then `a`
    /// and `d` (both playable) are a baseinverse. Of its own accord the
    /// controller may take `c` (then `b` and `d` are a claimeven pair) or
    /// `a` (then `b` and `c` are a baseinverse). So the groups holding `a`
    /// and `d`, or `b` and `c`, are solved. That `d` is even keeps the
    /// column of `b` an even number of cells from `b` up, which the
    /// claimeven pair there needs.
    fn baseclaims<L: Layout<Cells = C>>(&mut self, b: &Board<L>, next: C) -> bool {
        let l = b.l;
        for middle in next.cells() {
            let top = middle << 1;
            if (top & b.open & b.even).is_empty() {
                continue;
            }
            let block = b.above(top) & l.board();
            let block_low = block & !b.even;
            let block_solves = b.holding_any(block & b.even);
            // What each other playable cell solves as `a` (with `d`) and as
            // `c` (with `b`): once each, rather than once for each pair.
            let mut others = [(C::EMPTY, [0; WORDS], [0; WORDS]); MAX_WIDTH];
            let mut count = 0;
            for x in (next ^ middle).cells() {
                others[count] = (x, b.holding_all(x | top), b.holding_all(middle | x));
                count += 1;
            }
            let others = &others[..count];
            for (i, &(a, with_top, _)) in others.iter().enumerate() {
                for (j, &(c, _, with_middle)) in others.iter().enumerate() {
                    if i == j || (none(&with_top) && none(&with_middle)) {
                        continue;
                    }
                    let fits = self.push(Application {
                        used: a | middle | c | top,
                        ce: block,
                        low: block_low,
                        shadow: b.shadow_of(a | c | top),
                        solves: union(union(with_top, with_middle), block_solves),
                    });
                    if !fits {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Aftereven: a line of the controller's (`line`, no disc of the
    /// mover's) whose empty cells are all claimeven uppers. The controller
    /// gets them all, and makes four once the last is filled. A group of
    /// the mover's with a cell above that line's empty cells in each of
    /// their columns needs them all filled first: it is solved.
    fn aftereven<L: Layout<Cells = C>>(&mut self, b: &Board<L>, line: C) -> bool {
        let empty = line & b.open;
        // Each needs an empty cell right under it (a shift down would lose
        // the first column's bottom cell, so the test shifts up).
        if (empty & !b.even).any() || (empty & !(b.open << 1)).any() {
            return true;
        }
        let lower = empty >> 1;
        let solves = b.solved(|g| empty.cells().all(|e| (g & b.above(e)).any()));
        if none(&solves) {
            return true;
        }
        self.push(Application {
            used: C::EMPTY,
            ce: empty | lower,
            low: lower,
            shadow: C::EMPTY,
            solves: union(solves, b.holding_any(empty)),
        })
    }

    /// Before: a line of the controller's (`line`) none of whose empty
    /// cells is in the top row, each with a claimeven pair or a vertical
    /// that gives the controller either that cell or the one on top of
    /// it. A group of the mover's holding the cell on top of each empty
    /// cell of the line completes only if the controller got every empty
    /// cell of the line, each filled before the mover's cell on top: the
    /// controller makes four first. Two ways to pick the pairs are tried:
    /// claimeven wherever a pair is aligned for it, and verticals only.
    ///
    /// With `special`, a playable empty cell `p` of the line and a
    /// playable cell `q` in none of its empty cells' columns, this is
    /// Allis' specialbefore: `p` and `q` are a baseinverse rather than `p`
    /// a vertical, so the controller gets `p` whenever the mover gets `q`.
    /// A group of the mover's holding `q` and every cell on top then needs
    /// the whole line the controller's first, as above; and a group
    /// holding `p` and `q` is solved as by the baseinverse.
    fn before<L: Layout<Cells = C>>(
        &mut self,
        b: &Board<L>,
        line: C,
        special: Option<(C, C)>,
    ) -> bool {
        let l = b.l;
        let empty = line & b.open;
        let tops = empty << 1;
        if (tops & !l.board()).any() {
            return true;
        }
        let (p, q) = special.unwrap_or((C::EMPTY, C::EMPTY));
        let after = b.holding_all(tops | q);
        if none(&after) {
            return true;
        }
        for claim in [true, false] {
            let mut a = Application {
                used: p | q,
                ce: C::EMPTY,
                low: C::EMPTY,
                shadow: b.shadow_of(p | q),
                solves: union(
                    after,
                    if special.is_some() {
                        b.holding_all(p | q)
                    } else {
                        [0; WORDS]
                    },
                ),
            };
            let mut fits = true;
            for e in (empty & !p).cells() {
                let below = e >> 1;
                if claim && (e & b.even).is_empty() {
                    a.ce = a.ce | e | (e << 1);
                    a.low = a.low | e;
                } else if claim && (below & b.open).any() {
                    a.ce = a.ce | e | below;
                    a.low = a.low | below;
                } else {
                    let pair = e | (e << 1);
                    fits &= (a.used & pair).is_empty();
                    a.used = a.used | pair;
                    a.shadow = a.shadow | b.down_from(e << 1);
                    a.solves = union(a.solves, b.holding_all(pair));
                }
            }
            let consistent = ((a.used & a.ce) | (a.low & a.shadow)).is_empty();
            if !fits || !consistent {
                continue;
            }
            a.solves = union(a.solves, b.holding_any(a.ce & !a.low));
            if !self.push(a) {
                return false;
            }
        }
        true
    }

    /// Specialbefore: [`Self::before`] with each of its playable empty
    /// cells and each playable cell outside its columns as a baseinverse.
    fn specialbefores<L: Layout<Cells = C>>(&mut self, b: &Board<L>, line: C, next: C) -> bool {
        let empty = line & b.open;
        let columns = empty
            .cells()
            .fold(C::EMPTY, |c, e| c | b.l.column(b.l.column_of(e)));
        for p in (empty & next).cells() {
            for q in (next & !columns).cells() {
                if !self.before(b, line, Some((p, q))) {
                    return false;
                }
            }
        }
        true
    }

    /// Lowinverse (`depth` 1) and highinverse (`depth` 2): in each of two
    /// columns an empty even cell (a "lower" cell, see the module's
    /// parity) and the `depth` empty cells on top of it. Until one lower
    /// cell is played the controller plays neither of them (the module's
    /// strategy says why it always has another move), so the mover plays
    /// the first, and the controller answers on the cell on top of it.
    /// After that:
    ///
    /// - lowinverse: the other column's two cells are a vertical. The
    ///   controller gets one cell of each column and one of the two upper
    ///   cells: the groups holding both cells of a column or both upper
    ///   cells are solved.
    /// - highinverse (lower `l`, middle `m`, upper `u`; the mover played
    ///   `lA`, the controller `mA`): the controller still needs `uA` or
    ///   `uB`, and `mB` or `uB`. A move on `uA` leaves it `uB`, with `mB`
    ///   and `uB` a claimeven pair (`mB` is odd); a move on `lB` is
    ///   answered on `uA`, leaving `mB` and `uB` a vertical; a move on
    ///   `mB` is answered on `uB`. Of its own accord the controller may
    ///   take `uA` or `mB` (then `uA` and `uB` are a baseinverse) or `lB`.
    ///   So it gets one middle cell, one upper cell and one of each
    ///   column's upper two: the groups holding both upper cells, both
    ///   middle cells, or a column's upper two are solved.
    ///
    /// Each is pushed only where it solves a group two verticals (or two
    /// claimeven pairs) would not: one holding both upper (middle) cells.
    fn inverses<L: Layout<Cells = C>>(&mut self, b: &Board<L>, depth: u32) -> bool {
        let mut lowers = b.open & b.even & (b.open >> 1);
        if depth == 2 {
            lowers = lowers & (b.open >> 2);
        }
        let mut cells = [C::EMPTY; MAX_LOWERS];
        let mut count = 0;
        for lower in lowers.cells() {
            if count == MAX_LOWERS {
                return false;
            }
            cells[count] = lower;
            count += 1;
        }
        let cells = &cells[..count];
        for (i, &la) in cells.iter().enumerate() {
            for &lb in &cells[i + 1..] {
                if b.l.column_of(la) == b.l.column_of(lb) {
                    continue;
                }
                let (ua, ub) = (la << depth, lb << depth);
                // The cell under each upper one: the lower cell of a
                // lowinverse, the middle one of a highinverse.
                let (ma, mb) = (ua >> 1, ub >> 1);
                let key = if depth == 1 { ua | ub } else { ma | mb };
                let inverse = b.holding_all(key);
                if none(&inverse) {
                    continue;
                }
                let columns = union(b.holding_all(ma | ua), b.holding_all(mb | ub));
                let mut solves = union(inverse, columns);
                if depth == 2 {
                    solves = union(solves, b.holding_all(ua | ub));
                }
                let used = la | ma | ua | lb | mb | ub;
                let fits = self.push(Application {
                    used,
                    ce: C::EMPTY,
                    low: la | lb,
                    shadow: b.shadow_of(ua | ub),
                    solves,
                });
                if !fits {
                    return false;
                }
            }
        }
        true
    }
}
