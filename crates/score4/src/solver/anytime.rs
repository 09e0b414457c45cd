//! Anytime analysis: what is proven about each move, reported as it is
//! proven, for faces that must answer within a budget.
//!
//! An exact analysis ([`Solver::analyze`]) says nothing until every column
//! is solved; on a large board that can take hours. This one keeps, for
//! every column, the range its score is proven to lie in, and narrows the
//! ranges one search at a time, cheapest and most useful first:
//!
//! 1. what needs no search: full columns, immediate wins, moves that let
//!    the opponent win at once, positions of the book;
//! 2. quick facts: how soon each column could lose or win at the
//!    earliest, by searches that look one more disc ahead each round, up
//!    to a share of positions ([`QUICK_FACTS_NODES`](tuning::QUICK_FACTS_NODES));
//! 3. every column's weak result (win, draw or loss), centre first, each
//!    with one search of the window around zero;
//! 4. exact scores, always narrowing the column that could still be the
//!    best (the highest upper bound, centre first), by the same null-window
//!    probes a strong solve makes.
//!
//! Each search is stoppable (by the solver's [`StopHandle`] or at the
//! deadline); a stopped search proves nothing, every finished one
//! narrows a range, and the ranges only ever narrow. A plain solve pays
//! nothing for any of this: the searches are the solver's own.
//!
//! ```
//! use std::time::Duration;
//! use score4::solver::Goal;
//! use score4::{Position, Solver};
//! let mut solver = Solver::<7, 6>::new();
//! let p: Position = "4453".parse().unwrap();
//! let mut updates = 0;
//! let analysis = solver.analyze_anytime(&p, Goal::Everything, None, Duration::from_secs(1), |_| {
//!     updates += 1;
//! });
//! assert!(analysis.done && updates > 0);
//! assert_eq!(analysis.columns, solver.analyze(&p).map(|s| s.map(|s| (s, s).into())));
//! ```

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use crate::clock::Instant;

use super::engine::{self, Ask, Engine, Found, PerColumn};
use super::node::{Node, Store};
use super::{tuning, Solver, StopHandle, Stopped};
use crate::bitboard::centre_first;
use crate::layout::Layout;
use crate::position::Position;

/// Inclusive bounds on a score, in the [`score`](crate::score)
/// convention: positive when the side to move wins, larger for a sooner
/// win.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRange {
    /// The score is at least this.
    pub lower: i32,
    /// The score is at most this.
    pub upper: i32,
}

impl From<(i32, i32)> for ScoreRange {
    fn from((lower, upper): (i32, i32)) -> Self {
        ScoreRange { lower, upper }
    }
}

impl ScoreRange {
    /// The score, once the range is one score.
    pub fn exact(self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// Who wins, once the range says it: 1 for a proven win of the side to
    /// move, -1 for a proven loss, 0 for a proven draw.
    pub fn weak(self) -> Option<i32> {
        if self.lower > 0 {
            Some(1)
        } else if self.upper < 0 {
            Some(-1)
        } else if self.lower == 0 && self.upper == 0 {
            Some(0)
        } else {
            None
        }
    }

    /// Whether `score` lies in the range.
    pub fn contains(self, score: i32) -> bool {
        (self.lower..=self.upper).contains(&score)
    }

    /// The range of the score of the position a move leads to, from its
    /// own side to move: this range negated.
    fn negated(self) -> ScoreRange {
        ScoreRange {
            lower: -self.upper,
            upper: -self.lower,
        }
    }
}

/// The best move by what is proven so far (see [`Analysis::best`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BestSoFar {
    /// The column, 0-based.
    pub column: usize,
    /// Whether it is proven to be the move [`Solver::best_move`] plays:
    /// no other column can score more, and none nearer the centre as much.
    pub proven: bool,
}

/// What an anytime analysis has proven about a position's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analysis<const W: usize> {
    /// The range of each column's score for the side to move; `None` for
    /// a full column, and for every column once the game is over.
    pub columns: [Option<ScoreRange>; W],
    /// Positions searched by this analysis so far.
    pub nodes: u64,
    /// Time since the analysis began.
    pub elapsed: Duration,
    /// Whether every column's score is exact.
    pub done: bool,
}

impl<const W: usize> Analysis<W> {
    /// The best move by what is proven: the highest lower bound (a proven
    /// win first, the soonest proven win first among those), the
    /// centre-most among equals; `None` once the game is over.
    pub fn best(&self) -> Option<BestSoFar> {
        best_among(&self.columns, &centre_first::<W>())
    }

    /// The range of the position's own score for the side to move, from
    /// its columns': at least the best lower bound, at most the best upper
    /// one. `None` once the game is over.
    pub fn score(&self) -> Option<ScoreRange> {
        score_among(&self.columns)
    }
}

/// [`Analysis::best`] of `columns`, whose board's columns are `order`
/// centre first.
pub(crate) fn best_among(columns: &[Option<ScoreRange>], order: &[usize]) -> Option<BestSoFar> {
    let (rank, column, range) = order
        .iter()
        .enumerate()
        .filter_map(|(rank, &c)| columns[c].map(|r| (rank, c, r)))
        .max_by_key(|&(rank, _, r)| (r.lower, std::cmp::Reverse(rank)))?;
    // Proven when no other column can score more, and none nearer the
    // centre (which the tie-break would prefer) as much.
    let proven = order.iter().enumerate().all(|(other_rank, &c)| {
        c == column
            || columns[c].is_none_or(|o| {
                o.upper < range.lower || (other_rank > rank && o.upper == range.lower)
            })
    });
    Some(BestSoFar { column, proven })
}

/// [`Analysis::score`] of `columns`.
pub(crate) fn score_among(columns: &[Option<ScoreRange>]) -> Option<ScoreRange> {
    columns.iter().flatten().copied().reduce(|a, b| ScoreRange {
        lower: a.lower.max(b.lower),
        upper: a.upper.max(b.upper),
    })
}

/// An analysis under way, on any board: [`Analysis`] with the columns of
/// the board's [`Layout::PerColumn`] (those past the width `None`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Progress<C> {
    pub(crate) columns: C,
    pub(crate) nodes: u64,
    pub(crate) elapsed: Duration,
    pub(crate) done: bool,
}

impl<const W: usize> From<Progress<[Option<ScoreRange>; W]>> for Analysis<W> {
    fn from(p: Progress<[Option<ScoreRange>; W]>) -> Self {
        Analysis {
            columns: p.columns,
            nodes: p.nodes,
            elapsed: p.elapsed,
            done: p.done,
        }
    }
}

/// What an analysis asks of a solver: one stoppable search of a position
/// within a window, the positions searched so far, the book.
pub(crate) trait Windows<N> {
    /// One search of `p` within `alpha..beta`, fail-soft (see
    /// `Search::negamax`), stopped by the solver's handle or at `deadline`.
    fn window(
        &mut self,
        p: &N,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped>;
    /// Positions searched over the solver's life, or since a reset.
    fn nodes(&self) -> u64;
    /// `p`'s score in the solver's book, if it holds it.
    fn book_score(&self, p: &N) -> Option<i32>;
}

impl<S: Store, N: Node<Key = S::Key>, const STATS: bool> Windows<N> for Engine<S, STATS> {
    fn window(
        &mut self,
        p: &N,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        self.run(Some(deadline), |engine| engine.window_inner(p, alpha, beta))
    }

    fn nodes(&self) -> u64 {
        Engine::nodes(self)
    }

    fn book_score(&self, p: &N) -> Option<i32> {
        self.book.as_ref().and_then(|book| p.book_score(book))
    }
}

impl<const W: usize, const H: usize> Windows<Position<W, H>> for Solver<W, H> {
    fn window(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Result<i32, Stopped> {
        match self
            .engine
            .ask(p.to_parts(), Ask::Window(alpha, beta), Some(deadline))?
        {
            Found::Score(r) => Ok(r),
            found => unreachable!("a window found {found:?}"),
        }
    }

    fn nodes(&self) -> u64 {
        Solver::nodes(self)
    }

    fn book_score(&self, p: &Position<W, H>) -> Option<i32> {
        self.book().and_then(|book| book.score(p))
    }
}

/// Where an anytime analysis may stop before every score is exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Goal {
    /// Every column's exact score.
    #[default]
    Everything,
    /// Only until the best move is proven ([`BestSoFar::proven`]): what an
    /// opponent needs to play.
    BestMove,
    /// Only until the position's own score is exact ([`Analysis::score`]):
    /// the best column's exact score, and the others' upper bounds under it.
    Score,
    /// Only until the position's weak result (win, draw or loss) is proven.
    Sign,
}

impl<const W: usize, const H: usize> Solver<W, H> {
    /// Analyses `p` as [`analyze`](Self::analyze) does, reporting what is
    /// proven as it goes: `update` gets the whole state each time a range
    /// narrows, and every `tick` in between with the progress (positions,
    /// time) of a long search. The analysis ends when `goal` is reached, at
    /// `deadline`, or when the solver's [`stop_handle`](Self::stop_handle)
    /// is stopped (within milliseconds; resume the handle before the next
    /// search), and returns its final state.
    ///
    /// The searches run on a thread of their own; `update` runs on the
    /// caller's, so it need not be `Send`. Every range always holds the
    /// exact score. Should `update` panic, the search is stopped through
    /// the handle, which stays stopped until resumed.
    pub fn analyze_anytime(
        &mut self,
        p: &Position<W, H>,
        goal: Goal,
        deadline: Option<Instant>,
        tick: Duration,
        update: impl FnMut(&Analysis<W>),
    ) -> Analysis<W> {
        let start = Instant::now();
        let handle = self.stop_handle();
        watch(&handle, start, tick, update, |report| {
            prove(self, p, goal, deadline, start, |state| {
                report(&(*state).into())
            })
            .into()
        })
    }
}

/// What the analysis's state says of its progress, which ticks move on.
pub(crate) trait Counts {
    fn counts(&mut self) -> (&mut u64, &mut Duration);
}

impl<const W: usize> Counts for Analysis<W> {
    fn counts(&mut self) -> (&mut u64, &mut Duration) {
        (&mut self.nodes, &mut self.elapsed)
    }
}

/// Runs `prove` on a thread of its own, passing each state it reports to
/// `update` on this one, and every `tick` in between the state last
/// reported with the positions searched since and the time; returns the
/// final state. `prove` runs on this thread, without ticks, if no thread
/// is to be had. Should `update` panic, the search is stopped through
/// `handle`.
pub(crate) fn watch<T: Counts + Clone + Send>(
    handle: &StopHandle,
    start: Instant,
    tick: Duration,
    mut update: impl FnMut(&T),
    prove: impl FnOnce(&mut dyn FnMut(&T)) -> T + Send,
) -> T {
    // A tick of nothing would spin.
    let tick = tick.max(Duration::from_millis(1));
    // One message from the searching thread: the state, and the solver's
    // running count when it was taken.
    let (tx, rx) = mpsc::channel::<(T, u64)>();
    let mut prove = Some(prove);
    let slot = &mut prove;
    let watched = std::thread::scope(|scope| {
        let live = handle.clone();
        let searching = std::thread::Builder::new()
            .name("score4-analysis".into())
            .stack_size(super::SEARCH_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let prove = slot.take().expect("the analysis runs once");
                prove(&mut |state: &T| {
                    // The caller may have gone (a panic); the search then
                    // ends at the stop it was given.
                    let _ = tx.send((state.clone(), live.positions()));
                })
            })
            .ok()?;
        // Should `update` panic, the search must not run on to its
        // deadline while the scope waits for it.
        let stop_on_panic = StopOnPanic(handle);
        let mut last: Option<(T, u64)> = None;
        // What the caller was last shown: a tick's count, from the running
        // counter, can run ahead of the exact count of a report already on
        // its way, and what is shown never goes back.
        let mut shown = (0, Duration::ZERO);
        let mut show = |state: &mut T| {
            let (nodes, elapsed) = state.counts();
            *nodes = (*nodes).max(shown.0);
            *elapsed = (*elapsed).max(shown.1);
            shown = (*nodes, *elapsed);
            update(state);
        };
        loop {
            match rx.recv_timeout(tick) {
                Ok(mut report) => {
                    show(&mut report.0);
                    last = Some(report);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some((state, live_then)) = &last {
                        let mut now = state.clone();
                        let (nodes, elapsed) = now.counts();
                        *nodes += handle.positions().saturating_sub(*live_then);
                        *elapsed = start.elapsed();
                        show(&mut now);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        drop(stop_on_panic);
        Some(match searching.join() {
            // As the last update showed it, which a tick may have taken
            // past the exact count.
            Ok(mut done) => {
                let (nodes, elapsed) = done.counts();
                *nodes = (*nodes).max(shown.0);
                *elapsed = (*elapsed).max(shown.1);
                done
            }
            Err(panic) => std::panic::resume_unwind(panic),
        })
    });
    // No thread to be had: search on this one, without ticks.
    watched.unwrap_or_else(|| {
        let prove = prove.take().expect("no thread ran the analysis");
        prove(&mut update)
    })
}

/// The analysis itself, on the calling thread: `report` gets the state
/// first and after each range narrows.
pub(crate) fn prove<N: Node, X: Windows<N>>(
    solver: &mut X,
    p: &N,
    goal: Goal,
    deadline: Option<Instant>,
    start: Instant,
    mut report: impl FnMut(&Progress<PerColumn<N, Option<ScoreRange>>>),
) -> Progress<PerColumn<N, Option<ScoreRange>>> {
    let layout = p.layout();
    let nodes_before = solver.nodes();
    let columns = unsearched(&*solver, p);
    let mut state = Progress {
        columns,
        nodes: 0,
        elapsed: start.elapsed(),
        done: all_exact(columns.as_ref()),
    };
    let mut probes = layout.per_column(0u32);
    let n = p.moves_played() as i32;
    let order = layout.centre_first();
    let finished = |state: &Progress<PerColumn<N, Option<ScoreRange>>>| {
        let columns = state.columns.as_ref();
        state.done
            || match goal {
                Goal::Everything => false,
                Goal::BestMove => best_among(columns, order).is_some_and(|b| b.proven),
                Goal::Score => score_among(columns).and_then(ScoreRange::exact).is_some(),
                Goal::Sign => score_among(columns).and_then(ScoreRange::weak).is_some(),
            }
    };
    let mut step = |solver: &mut X,
                    state: &mut Progress<PerColumn<N, Option<ScoreRange>>>,
                    col: usize,
                    window: Option<(i32, i32)>| {
        // The window for this column's child, from its side: the one
        // asked for, else the weak question first, then the strong
        // solve's probes.
        let Some(range) = state.columns.as_ref()[col] else {
            return Err(Stopped);
        };
        let child_range = range.negated();
        let (alpha, beta) = if let Some(window) = window {
            window
        } else if range.weak().is_none() {
            (-1, 1)
        } else {
            let probes = &mut probes.as_mut()[col];
            let probe = engine::next_probe(
                &layout,
                child_range.lower,
                child_range.upper,
                *probes,
                n + 1,
            );
            *probes += 1;
            (probe, probe + 1)
        };
        let r = solver.window(&p.after(col), alpha, beta, deadline)?;
        // Fail-soft: at most `alpha` bounds the child from above, at
        // least `beta` from below, anything between is exact.
        let mut child_now = child_range;
        if r <= alpha {
            child_now.upper = child_now.upper.min(r);
        } else if r >= beta {
            child_now.lower = child_now.lower.max(r);
        } else {
            child_now = ScoreRange { lower: r, upper: r };
        }
        let narrowed = child_now.negated();
        debug_assert!(
            narrowed.lower <= narrowed.upper
                && narrowed.lower >= range.lower
                && narrowed.upper <= range.upper,
            "{range:?} narrowed to {narrowed:?}"
        );
        state.columns.as_mut()[col] = Some(narrowed);
        state.done = all_exact(state.columns.as_ref());
        state.nodes = solver.nodes() - nodes_before;
        state.elapsed = start.elapsed();
        Ok(())
    };
    report(&state);
    let unsearched = state.columns;
    let outcome: Result<(), Stopped> = (|| {
        // Quick facts first: how soon each column could lose or win at
        // the earliest, one more disc of look-ahead each round. Such
        // searches see only a few moves ahead, so they answer at once
        // where the weak question takes hours, until the rounds have
        // searched their share.
        let mut ahead = 1;
        'quick: while state.nodes < tuning::QUICK_FACTS_NODES {
            let mut asked = false;
            for &col in order {
                let (Some(range), Some(first)) =
                    (state.columns.as_ref()[col], unsearched.as_ref()[col])
                else {
                    continue;
                };
                if finished(&state) || state.nodes >= tuning::QUICK_FACTS_NODES {
                    break 'quick;
                }
                // No loss this soon: at least `floor`; no win this
                // soon: at most `ceiling`. Zero is the weak question's.
                let floor = first.lower + ahead;
                if range.lower < floor && floor < 0 && range.upper >= floor {
                    step(solver, &mut state, col, Some((-floor, -floor + 1)))?;
                    report(&state);
                    asked = true;
                }
                let Some(range) = state.columns.as_ref()[col] else {
                    continue;
                };
                let ceiling = first.upper - ahead;
                if range.upper > ceiling && ceiling > 0 && range.lower <= ceiling {
                    step(solver, &mut state, col, Some((-ceiling - 1, -ceiling)))?;
                    report(&state);
                    asked = true;
                }
            }
            if !asked {
                break;
            }
            ahead += 1;
        }
        // Every column's weak result first, centre first.
        for &col in order {
            if finished(&state) {
                return Ok(());
            }
            if state.columns.as_ref()[col].is_some_and(|r| r.weak().is_none()) {
                step(solver, &mut state, col, None)?;
                report(&state);
            }
        }
        // Then exact scores, the column that could still be best first.
        while !finished(&state) {
            let columns = state.columns.as_ref();
            let col = order
                .iter()
                .copied()
                .filter(|&c| columns[c].is_some_and(|r| r.exact().is_none()))
                .max_by_key(|&c| {
                    let rank = order.iter().position(|&o| o == c);
                    (columns[c].map(|r| r.upper), std::cmp::Reverse(rank))
                })
                .expect("an analysis not finished has a column to narrow");
            step(solver, &mut state, col, None)?;
            report(&state);
        }
        Ok(())
    })();
    state.nodes = solver.nodes() - nodes_before;
    state.elapsed = start.elapsed();
    // The last report says how it ended, stopped or done.
    let _ = outcome;
    report(&state);
    state
}

/// Each column's range before any search: none for a full column
/// (every one once the game is over), the exact score where it needs
/// no search (a win at once, a move the opponent answers with a win, a
/// position of the book), else every score a game could have.
fn unsearched<N: Node, X: Windows<N>>(solver: &X, p: &N) -> PerColumn<N, Option<ScoreRange>> {
    let layout = p.layout();
    let n = p.moves_played() as i32;
    let mut columns = layout.per_column(None);
    if p.is_game_over() {
        return columns;
    }
    for (col, column) in columns.as_mut()[..layout.width()].iter_mut().enumerate() {
        if !p.can_play(col) {
            continue;
        }
        if p.is_winning_move(col) {
            let win = layout.win_score(n);
            *column = Some(ScoreRange {
                lower: win,
                upper: win,
            });
            continue;
        }
        let child = p.after(col);
        let known = engine::settled_score(&child).or_else(|| solver.book_score(&child));
        *column = Some(match known {
            Some(s) => ScoreRange {
                lower: -s,
                upper: -s,
            },
            None => ScoreRange::from(engine::score_range(&layout, n + 1)).negated(),
        });
    }
    columns
}

/// Whether every column's score is exact (a finished game's too).
fn all_exact(columns: &[Option<ScoreRange>]) -> bool {
    columns.iter().flatten().all(|r| r.exact().is_some())
}

/// Stops the search through its handle if dropped while panicking.
struct StopOnPanic<'a>(&'a StopHandle);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(lower: i32, upper: i32) -> Option<ScoreRange> {
        Some(ScoreRange { lower, upper })
    }

    #[test]
    fn best_is_proven_only_when_nothing_can_beat_it() {
        let a = |columns| Analysis::<3> {
            columns,
            nodes: 0,
            elapsed: Duration::ZERO,
            done: false,
        };
        // The centre is a proven draw, a side column may still win.
        let open = a([range(-3, 5), range(0, 0), None]);
        assert_eq!(
            open.best(),
            Some(BestSoFar {
                column: 1,
                proven: false
            })
        );
        // The side can at most draw: the centre wins the tie.
        let tie = a([range(-3, 0), range(0, 0), range(-9, -2)]);
        assert_eq!(
            tie.best(),
            Some(BestSoFar {
                column: 1,
                proven: true
            })
        );
        // A side column's draw, but the centre may still draw too.
        let centre_open = a([range(0, 0), range(-4, 0), None]);
        assert_eq!(
            centre_open.best(),
            Some(BestSoFar {
                column: 0,
                proven: false
            })
        );
        // A proven win beats everything below it.
        let win = a([range(2, 7), range(-1, 1), range(-5, 1)]);
        assert_eq!(
            win.best(),
            Some(BestSoFar {
                column: 0,
                proven: true
            })
        );
        assert_eq!(win.score(), range(2, 7));
        assert_eq!(a([None, None, None]).best(), None);
    }

    #[test]
    fn weak_results_of_ranges() {
        assert_eq!(ScoreRange::from((1, 5)).weak(), Some(1));
        assert_eq!(ScoreRange::from((-5, -1)).weak(), Some(-1));
        assert_eq!(ScoreRange::from((0, 0)).weak(), Some(0));
        assert_eq!(ScoreRange::from((0, 3)).weak(), None);
        assert_eq!(ScoreRange::from((-3, 0)).weak(), None);
    }
}
