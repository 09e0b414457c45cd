//! The search: negamax with alpha-beta over the transposition table.
//!
//! One [`Search`] is one thread's search of one probe. It never searches a
//! move that loses at once, plays forced moves without touching the table,
//! cuts with the static bounds of [`bounds`](super::bounds) and the
//! table's proven bounds, and looks up every child before searching any
//! (enhanced transposition cut-off) while the subtrees are large.

use std::sync::atomic::{AtomicU64, Ordering};

use super::bounds::static_bounds;
use super::journal::{Journal, Kept};
use super::node::{Cells, Key, Node, Store};
use super::order::{ordered_moves, put_killer_first};
use super::rules;
use super::stop::Signals;
use super::table::Table;
use super::tuning::{self, ETC_MIN_EMPTY, TABLE_MIN_EMPTY};
use crate::bitboard::Bitboard;
use crate::layout::{CellSet, Layout};
use crate::score;
use crate::wide::shape::MAX_LAYOUT_BITS;

/// Adds to a count or a measure of a measuring search (`STATS`);
/// compiled to nothing in any other.
macro_rules! add {
    ($moves:expr, $event:ident, $amount:expr) => {
        if STATS {
            super::stats::add($moves, super::stats::Event::$event, $amount);
        }
    };
}

/// Counts a search event in a measuring search (`STATS`, see
/// [`stats`](super::stats)); compiled to nothing in any other.
macro_rules! record {
    ($moves:expr, $event:ident) => {
        add!($moves, $event, 1)
    };
}

/// The tables a search uses: `near` for positions with at most
/// `near_max_empty` empty cells, `far` for the others (the same table
/// when there is only one).
pub(crate) struct Tables<'t, S = Table> {
    pub(super) far: &'t S,
    pub(super) near: &'t S,
    pub(super) near_max_empty: i32,
    /// Where the costliest bounds are also kept, if anywhere.
    pub(super) journal: Option<&'t Journal>,
}

impl<S> Clone for Tables<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Tables<'_, S> {}

impl<'t, S> Tables<'t, S> {
    /// The table for positions with `empty` empty cells.
    #[inline(always)]
    pub(super) fn for_empty(&self, empty: i32) -> &'t S {
        if empty <= self.near_max_empty {
            self.near
        } else {
            self.far
        }
    }
}

/// Where threads searching together meet, besides the tables.
#[derive(Clone, Copy)]
pub(super) struct Shared<'t> {
    /// By moves played, then by thread: the key of the position each
    /// thread is searching at that depth (0 where it has not been yet).
    busy: &'t [AtomicU64],
    /// This thread's place among the threads (0: the main search).
    thread: usize,
    threads: usize,
    /// Whether every thread puts off the others' positions (the main
    /// search not a position's first move), rather than helpers alone
    /// putting off the main search's.
    mutual: bool,
}

impl<'t> Shared<'t> {
    /// Where thread `thread` of `threads` meets the others: `busy` has a
    /// slot for every number of moves played and every thread.
    pub(super) fn new(busy: &'t [AtomicU64], thread: usize, threads: usize, mutual: bool) -> Self {
        Shared {
            busy,
            thread,
            threads,
            mutual,
        }
    }

    /// Whether to put off the move to the child with `key` of a position
    /// with `n` moves played (`first`: the position's first move): whether
    /// another thread that this one gives way to is in that child. If not,
    /// this thread announces the child as its own.
    #[inline(always)]
    pub(super) fn puts_off(&self, n: i32, key: u64, first: bool) -> bool {
        let at = (n as usize + 1) * self.threads;
        let row = &self.busy[at..at + self.threads];
        let taken = if self.mutual {
            !(self.thread == 0 && first)
                && row
                    .iter()
                    .enumerate()
                    .any(|(t, b)| t != self.thread && b.load(Ordering::Relaxed) == key)
        } else {
            self.thread > 0 && row[0].load(Ordering::Relaxed) == key
        };
        if !taken && (self.mutual || self.thread == 0) {
            row[self.thread].store(key, Ordering::Relaxed);
        }
        taken
    }
}

/// The moves of a position worth searching, with both sides' winning
/// cells: the opponent's they were chosen against (ranking them needs
/// those again), and both for the children's.
#[derive(Clone, Copy)]
struct Candidates<C> {
    cells: C,
    threats: Threats<C>,
}

/// The empty cells that would complete four for each side of a position:
/// each search needs both, and its parent has them already.
#[derive(Clone, Copy)]
pub(crate) struct Threats<C = Bitboard> {
    /// The side to move's.
    pub(crate) ours: C,
    /// The opponent's.
    pub(crate) theirs: C,
}

impl<C: CellSet> Threats<C> {
    /// The threats after the side to move plays `cell`, given the new
    /// mover's opponent's (`theirs`, which take the new disc to compute).
    #[inline(always)]
    fn after(self, cell: C, theirs: C) -> Self {
        Threats {
            ours: self.theirs & !cell,
            theirs,
        }
    }
}

/// One thread's search: the shared tables, its own counters, plain data.
/// A measuring search (`STATS`) also counts its events.
pub(crate) struct Search<'t, N: Node, S, const STATS: bool> {
    tables: Tables<'t, S>,
    /// Positions searched, counted from where the solver left off.
    pub(crate) nodes: u64,
    /// Set when the search must give up (another thread has answered,
    /// the user stopped it, its deadline passed); checked at every
    /// position.
    stop: Option<&'t Signals>,
    /// Whether this search saw `stop` and gave up: its results are void.
    aborted: bool,
    /// What threads searching together share besides the tables.
    pub(super) shared: Option<Shared<'t>>,
    /// Searches of at least this many positions go to the journal
    /// (never, without one).
    keep_from: u64,
    /// The layout of the positions searched: the cells of a size given
    /// as data; nothing for a compiled size, whose masks are constants.
    layout: N::Layout,
    /// By moves played, the cell whose move last cut off a position with
    /// that many moves: a tie-break of the move order on some boards
    /// ([`tuning::KILLER_BOARDS`]).
    killers: [Cells<N>; MAX_LAYOUT_BITS],
}

/// The bounds that a fail-soft search's `score` within `alpha..beta`
/// proves of a position whose score lies in `min..=max`.
#[inline(always)]
pub(super) const fn proven_bounds(
    score: i32,
    alpha: i32,
    beta: i32,
    min: i32,
    max: i32,
) -> (i32, i32) {
    if score >= beta {
        (score, max)
    } else if score > alpha {
        (score, score)
    } else {
        (min, score)
    }
}

/// The table key of `p` on a board of `cells` cells (see `Search::key`):
/// the journal keeps a search's answer under it too.
#[inline(always)]
pub(super) fn table_key<N: Node>(p: &N, cells: u32) -> (N::Key, bool) {
    let key = p.key();
    if p.moves_played() >= tuning::mirror_below_moves(cells) {
        return (key, false);
    }
    let canonical = p.canonical_key();
    (canonical, canonical != key)
}

impl<'t, N: Node, S: Store<Key = N::Key>, const STATS: bool> Search<'t, N, S, STATS> {
    pub(super) fn new(layout: N::Layout, tables: Tables<'t, S>, stop: Option<&'t Signals>) -> Self {
        Search {
            tables,
            nodes: 0,
            stop,
            aborted: false,
            shared: None,
            keep_from: tables.journal.map_or(u64::MAX, |j| j.min_work),
            layout,
            killers: [Cells::<N>::EMPTY; MAX_LAYOUT_BITS],
        }
    }

    /// Whether moves are ordered by killer moves too: a constant for a
    /// compiled size.
    #[inline(always)]
    fn killing(&self) -> bool {
        tuning::killer_moves(self.layout.width(), self.layout.height())
    }

    /// Remembers that the move to `cell` cut off a position with `n`
    /// moves played, unless the search gave up there.
    #[inline(always)]
    fn cut_by(&mut self, n: i32, cell: Cells<N>) {
        if self.killing() && !self.aborted {
            self.killers[n as usize] = cell;
        }
    }

    /// Cells of the board.
    #[inline(always)]
    fn cells(&self) -> i32 {
        self.layout.cells() as i32
    }

    /// The table for positions with `moves` moves played.
    #[inline(always)]
    fn table(&self, moves: i32) -> &'t S {
        self.tables.for_empty(self.cells() - moves)
    }

    /// Whether the search ran to its end rather than giving up.
    pub(crate) fn finished(&self) -> bool {
        !self.aborted
    }

    #[inline(always)]
    fn win_score(&self, moves: i32) -> i32 {
        score::win(self.cells() as usize, moves as u32)
    }

    /// The table key of `p`, shared with its mirror image early in the
    /// game, and whether the key is the mirror's (so moves stored under it
    /// are mirrored).
    #[inline(always)]
    fn key(&self, p: &N) -> (N::Key, bool) {
        table_key(p, self.cells() as u32)
    }

    /// The table keys of the positions after each candidate move, by
    /// column, each already on its way to the cache.
    #[inline(always)]
    fn child_keys(&self, p: &N, candidates: Cells<N>) -> <N::Layout as Layout>::PerColumn<N::Key> {
        let mut keys = self.layout.per_column(N::Key::default());
        let table = self.table(p.moves_played() as i32 + 1);
        let width = self.layout.width();
        for (col, key) in keys.as_mut()[..width].iter_mut().enumerate() {
            let cell = candidates & self.layout.column(col);
            if cell.any() {
                let mut child = *p;
                child.play_cell(cell);
                *key = self.key(&child).0;
                table.prefetch(*key);
            }
        }
        keys
    }

    /// The score of `p` within `alpha..beta`, fail-soft: a result `r <=
    /// alpha` means the score is at most `r`, `r >= beta` that it is at
    /// least `r`, anything between is exact.
    ///
    /// The side to move must not be able to win at once, and the game must
    /// not be over; every caller checks that, and every move searched keeps
    /// it true for the child.
    pub(crate) fn negamax(&mut self, p: &N, alpha: i32, beta: i32) -> i32 {
        let threats = Threats {
            ours: p.winning_cells(),
            theirs: p.opponent_winning_cells(),
        };
        self.negamax_with(p, alpha, beta, None, threats)
    }

    /// [`negamax`](Self::negamax) given what the caller knows already: the
    /// table key of `p` if it has it, and both sides' winning cells, which
    /// the parent had already.
    fn negamax_with(
        &mut self,
        p: &N,
        mut alpha: i32,
        mut beta: i32,
        known_key: Option<N::Key>,
        both: Threats<Cells<N>>,
    ) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert!(!p.can_win_next() && !p.is_game_over());
        self.nodes += 1;
        record!(p.moves_played() as i32, Entered);
        if let Some(stop) = self.stop {
            if stop.abort.load(Ordering::Relaxed) {
                self.aborted = true;
                return 0;
            }
            if self.nodes.is_multiple_of(tuning::LIVE_COUNT_STEP) {
                count_live(stop);
            }
        }
        let n = p.moves_played() as i32;
        let threats = both.theirs;

        let candidates = p.non_losing_moves_against(threats);
        if candidates.is_empty() {
            // Whatever we play, the opponent wins with its next move.
            record!(n, Lost);
            return -self.win_score(n + 1);
        }
        if n >= self.cells() - 2 {
            // Neither of the last two moves can win.
            record!(n, LastMoves);
            return 0;
        }
        let (min, max) = static_bounds(&self.layout, p.discs(), alpha, beta, both);
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                record!(n, BoundCut);
                return alpha;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                record!(n, BoundCut);
                return beta;
            }
        }
        if let Some((at_most, at_least)) = tuning::RULES_EMPTY
            .is_some_and(|(least, most)| (least..=most).contains(&(self.cells() - n)))
            .then(|| rules_draw(&self.layout, p, alpha, beta))
        {
            // A draw bounds the score from the side the window asked.
            if at_most {
                beta = beta.min(0);
            }
            if at_least {
                alpha = alpha.max(0);
            }
            if alpha >= beta {
                record!(n, BoundCut);
                return 0;
            }
        }

        if !candidates.has_several() {
            // A forced move: its position is the child's, so a table entry
            // here would only repeat the child's at the price of a cache miss.
            record!(n, Forced);
            let mut child = *p;
            child.play_cell(candidates);
            // The child needs its entry soon: start fetching it now.
            let key = (self.cells() - n > TABLE_MIN_EMPTY).then(|| {
                let key = self.key(&child).0;
                self.table(n + 1).prefetch(key);
                key
            });
            let child_threats = both.after(candidates, child.opponent_winning_cells());
            return -self.negamax_with(&child, -beta, -alpha, key, child_threats);
        }
        let moves = Candidates {
            cells: candidates,
            threats: both,
        };
        if self.cells() - n < TABLE_MIN_EMPTY {
            return self.search_moves(p, moves, None, None, alpha, beta).0;
        }

        // Each child's entry is a cache miss; starting them all now, before
        // this position's own look-up, overlaps all the waits. Children
        // too near the end to use the table need no key.
        let child_keys =
            (self.cells() - n > TABLE_MIN_EMPTY).then(|| self.child_keys(p, candidates));
        let (key, mirrored) = match known_key {
            Some(key) => {
                debug_assert_eq!(key, self.key(p).0);
                (key, key != p.key())
            }
            None => self.key(p),
        };
        let width = self.layout.width();
        let unmirror = |col: usize| if mirrored { width - 1 - col } else { col };
        let mut hint = None;
        record!(n, TableRead);
        if let Some(known) = self.table(n).get(key) {
            record!(n, TableHit);
            if known.lower > alpha {
                alpha = known.lower;
                if alpha >= beta {
                    record!(n, TableCut);
                    return alpha;
                }
            }
            if known.upper < beta {
                beta = known.upper;
                if alpha >= beta {
                    record!(n, TableCut);
                    return beta;
                }
            }
            hint = known.best.map(unmirror);
        }
        let before = self.nodes;
        let (score, col) = self.search_moves(p, moves, hint, child_keys.as_ref(), alpha, beta);
        let work = self.nodes - before;
        if self.aborted {
            // The score is void: store nothing, and unwind.
            return 0;
        }
        let best = Some(unmirror(col));
        let (lower, upper) = proven_bounds(score, alpha, beta, min, max);
        self.table(n).put(key, work, lower, upper, best);
        if work >= self.keep_from {
            self.keep(key, n, lower, upper, best, work);
        }
        score
    }

    /// Appends a costly search's bound to the journal: rare, so kept out
    /// of the search's own code.
    #[cold]
    #[inline(never)]
    fn keep(&self, key: N::Key, n: i32, lower: i32, upper: i32, best: Option<usize>, work: u64) {
        if let Some(journal) = self.tables.journal {
            let kept = Kept {
                moves: n as u32,
                lower,
                upper,
                best,
                work,
            };
            journal.keep(key.in_journal(), kept);
        }
    }

    /// The moves of `p` (`candidates`, at least two cells) searched within
    /// `alpha..beta`, fail-soft, the window already narrowed to what the
    /// move count allows: the score and the column of the best (or
    /// refuting) move.
    #[inline(always)]
    fn search_moves(
        &mut self,
        p: &N,
        candidates: Candidates<Cells<N>>,
        hint: Option<usize>,
        child_keys: Option<&<N::Layout as Layout>::PerColumn<N::Key>>,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, usize) {
        let n = p.moves_played() as i32;
        let layout = self.layout;
        let (mut moves, winning, child_threats) = ordered_moves(
            &layout,
            &p.discs(),
            candidates.threats.theirs,
            candidates.cells,
            hint,
            alpha,
        );
        if winning.any() {
            // The opponent loses whatever it plays: as fast a win as the
            // bounds allow, found without searching any move.
            record!(n, StaticWin);
            return (self.win_score(n + 2), layout.column_of(winning));
        }
        if self.killing() {
            put_killer_first(moves.as_mut(), self.killers[n as usize]);
        }
        let moves = moves.as_ref();
        let child_threats = child_threats.as_ref();
        // No move wins by force with our next disc either: a win takes
        // at least two more of ours.
        let beta = beta.min(self.win_score(n + 4));
        if alpha >= beta {
            record!(n, BoundCut);
            return (beta, layout.column_of(moves[0].0));
        }
        let mut best = (i32::MIN, 0);
        // By column, the most each move is known to score.
        let mut at_most = layout.per_column(i32::MAX);
        let at_most = at_most.as_mut();
        let empty = self.cells() - n;
        let child_keys = child_keys.map(|keys| keys.as_ref());
        if let Some(keys) = child_keys {
            if empty > ETC_MIN_EMPTY as i32 {
                for &(cell, _) in moves.iter() {
                    if cell.is_empty() {
                        break;
                    }
                    let col = layout.column_of(cell);
                    if let Some(known) = self.table(n + 1).get(keys[col]) {
                        at_most[col] = -known.lower;
                        let at_least = -known.upper;
                        if at_least >= beta {
                            record!(n, ChildTableCut);
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

        let shared = match (self.shared, child_keys) {
            (Some(shared), Some(keys))
                if (n as u32) < tuning::put_off_below_moves(self.cells() as u32) =>
            {
                Some((shared, keys))
            }
            _ => None,
        };
        // What the parent has of each child already: its key, the
        // opponent's winning cells there and the most the move is known
        // to score.
        let known = |cell: Cells<N>| {
            let col = layout.column_of(cell);
            let threats = candidates.threats.after(cell, child_threats[col]);
            (child_keys.map(|k| k[col]), threats, at_most[col])
        };
        let mut put_off = Cells::<N>::EMPTY;
        let first_searched = self.nodes;
        for &(cell, _) in moves.iter() {
            if cell.is_empty() {
                break;
            }
            let tried = self.nodes;
            if let Some((shared, keys)) = shared {
                let key = keys[layout.column_of(cell)];
                if shared.puts_off(n, key.mark(), cell == moves[0].0) {
                    put_off = put_off | cell;
                    continue;
                }
            }
            if let Some(cut) = self.search_move(p, cell, known(cell), &mut alpha, beta, &mut best) {
                self.cut_by(n, cell);
                if cell == moves[0].0 {
                    record!(n, FirstMoveCut);
                } else {
                    record!(n, LaterMoveCut);
                    add!(n, BeforeCut, tried - first_searched);
                }
                return cut;
            }
        }
        if put_off.any() {
            // In the ranked order, like the others.
            for &(cell, _) in moves.iter().filter(|&&(cell, _)| (cell & put_off).any()) {
                let tried = self.nodes;
                if let Some(cut) =
                    self.search_move(p, cell, known(cell), &mut alpha, beta, &mut best)
                {
                    self.cut_by(n, cell);
                    record!(n, LaterMoveCut);
                    add!(n, BeforeCut, tried - first_searched);
                    return cut;
                }
            }
        }
        record!(n, AllMoves);
        best
    }

    /// Searches the move to `cell`, one of `p`'s moves in
    /// [`search_moves`](Self::search_moves): what that returns if the move
    /// cuts off (or the search gave up), else nothing, `best` and `alpha`
    /// raised to its score. `known` is what the parent has of the child
    /// already: its table key (if computed), the opponent's winning cells
    /// there and the most the move is known to score. A move known not to
    /// beat alpha is not searched: its bound is all a fail-soft result
    /// needs of it.
    #[inline(always)]
    fn search_move(
        &mut self,
        p: &N,
        cell: Cells<N>,
        known: (Option<N::Key>, Threats<Cells<N>>, i32),
        alpha: &mut i32,
        beta: i32,
        best: &mut (i32, usize),
    ) -> Option<(i32, usize)> {
        let col = self.layout.column_of(cell);
        let (key, threats, at_most) = known;
        if at_most <= *alpha {
            if at_most > best.0 {
                *best = (at_most, col);
            }
            return None;
        }
        let mut child = *p;
        child.play_cell(cell);
        let score = -self.negamax_with(&child, -beta, -*alpha, key, threats);
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
}

/// Adds a step of positions to the running count: out of line, so that
/// the search's own code is compiled as it was without it.
#[cold]
#[inline(never)]
fn count_live(signals: &Signals) {
    signals
        .live
        .fetch_add(tuning::LIVE_COUNT_STEP, Ordering::Relaxed);
    #[cfg(target_family = "wasm")]
    signals.deadline_passed();
}

/// Which draw bounds Allis' rules prove for `p` that narrow the window:
/// at most 0, asked only when `beta > 0`; at least 0, asked only when
/// `alpha < 0`.
/// Out of line: its arrays would otherwise swell every search frame.
#[inline(never)]
fn rules_draw<N: Node>(l: &N::Layout, p: &N, alpha: i32, beta: i32) -> (bool, bool) {
    let d = p.discs();
    (
        beta > 0 && rules::controller_draws(l, d),
        alpha < 0 && rules::mover_draws(l, d),
    )
}
