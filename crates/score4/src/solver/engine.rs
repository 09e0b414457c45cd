//! The search behind every [`Solver`] handle, compiled once, in this
//! library, for each board size.
//!
//! Every type of the crate takes its size as const parameters, so that each
//! size's search is as fast as the standard one's. Were [`Solver`]'s
//! methods that search, each program choosing the size at run time would
//! compile the whole search again for all 38 sizes. So a [`Solver`] is a
//! handle to an [`Engine`] behind the object-safe [`AnyEngine`]: the engines
//! of the supported sizes are built by [`built_for`], one non-generic
//! function whose code is compiled here, and the handle only turns its
//! typed position and answer into plain ones. Sizes outside
//! [`BoardSize`]'s limits (small ones, for tests) build their engine where
//! they are used, and so does a measuring solver (see
//! [`build_measuring`]), which only measuring programs ask for.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::journal::{Journal, JournalError, JournalLoaded};
use super::search::{Search, Tables};
use super::stop::Signals;
use super::table::{self, Table};
use super::tuning::{
    self, NEAR_TABLE_FROM_MB, NEAR_TABLE_MAX_MB, NEAR_TABLE_MB, OWN_NEAR_MAX_EMPTY,
};
use super::{parallel, Probe, Solver, StopHandle, Stopped, MAX_PROBES, MAX_THREADS};
use crate::bitboard::{Bitboard, Geometry};
use crate::book::{Book, BookError};
use crate::mem::TableError;
use crate::position::Position;
use crate::size::BoardSize;
use crate::with_board_size;

/// The most columns an answer carries across the boundary: every width a
/// table entry can hold.
pub(super) const MAX_COLUMNS: usize = table::MAX_WIDTH;

/// A position without its size, as it crosses the boundary: the side to
/// move's discs, every disc, and the moves played.
pub(super) type Parts = (Bitboard, Bitboard, u32);

/// What a [`Solver`] asks of its engine.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ask {
    Score,
    Sign,
    Moves,
    Best,
    BestMove,
    /// One null-window search: is the score above this?
    Probe(i32),
    /// One search within `alpha..beta`, fail-soft (see `Search::negamax`).
    Window(i32, i32),
}

/// The engine's answer to an [`Ask`], by column up to [`MAX_COLUMNS`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Found {
    /// For [`Ask::Score`] and [`Ask::Sign`].
    Score(i32),
    /// For [`Ask::Moves`]: each column settled before a stop has its score.
    Moves([Option<Result<i32, Stopped>>; MAX_COLUMNS]),
    /// For [`Ask::Best`].
    Best(i32, [bool; MAX_COLUMNS]),
    /// For [`Ask::BestMove`].
    Move(Option<usize>),
}

/// An [`Engine`] of any size: what a [`Solver`] holds.
pub(super) trait AnyEngine: Send + Sync {
    fn set_threads(&mut self, threads: usize);
    fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError>;
    fn drop_book(&mut self);
    fn book(&self) -> Option<&Book>;
    fn table_bytes(&self) -> usize;
    fn nodes(&self) -> u64;
    fn reset_nodes(&mut self);
    fn probes(&self) -> &[Probe];
    fn touch_table(&mut self);
    fn clear_table(&mut self);
    fn stop_handle(&self) -> StopHandle;
    fn keep_journal(&mut self, path: &Path, min_work: u64) -> Result<JournalLoaded, JournalError>;
    fn journal_error(&self) -> Option<JournalError>;
    /// Answers `ask` about the position `p`; stoppable (by the handle or
    /// at the deadline) when `until` is given.
    fn ask(&mut self, p: Parts, ask: Ask, until: Option<Option<Instant>>)
        -> Result<Found, Stopped>;
}

/// The engine for the `W` x `H` board, with a table of about `mb`
/// mebibytes.
pub(super) fn build<const W: usize, const H: usize>(
    mb: usize,
) -> Result<Box<dyn AnyEngine>, TableError> {
    if const { BoardSize::supports(W, H) } {
        built_for(BoardSize::of::<W, H>(), mb)
    } else {
        boxed::<W, H>(mb)
    }
}

/// The engine of a supported size: the one place that names every size's
/// search, so that its code is compiled here only.
#[inline(never)]
fn built_for(size: BoardSize, mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    with_board_size!(size, boxed(mb))
}

fn boxed<const W: usize, const H: usize>(mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    Ok(Box::new(Engine::<W, H, false>::try_with_table_mb(mb)?))
}

/// The engine of a measuring solver, whose searches count their events
/// (see [`stats`](super::stats)): compiled where it is asked for, not
/// here, as only measuring programs ask for it.
pub(super) fn build_measuring<const W: usize, const H: usize>(
    mb: usize,
) -> Result<Box<dyn AnyEngine>, TableError> {
    Ok(Box::new(Engine::<W, H, true>::try_with_table_mb(mb)?))
}

/// The solver's state for the `W` x `H` board: its tables, node count,
/// book and stop handle. A measuring engine's (`STATS`) searches count
/// their events.
pub(super) struct Engine<const W: usize, const H: usize, const STATS: bool> {
    table: Table,
    /// With a large `table`: the table of positions near the end, used
    /// when the threads have none of their own.
    near: Option<Table>,
    /// With several threads: each thread's own table of positions near
    /// the end (see [`set_threads`](Self::set_threads)), the main
    /// search's first.
    own_near: Vec<Table>,
    /// Positions searched over the solver's life.
    searched: u64,
    /// The value of `searched` at the last `reset_nodes`.
    searched_at_reset: u64,
    /// Threads searching each large position together.
    threads: usize,
    /// Exact scores of the opening, answered without search.
    book: Option<Arc<Book>>,
    /// The searches since the last `reset_nodes`, up to [`MAX_PROBES`];
    /// allocated once, so recording never allocates.
    probes: Vec<Probe>,
    /// Stops the stoppable searches from another thread.
    stop: StopHandle,
    /// Whether the call under way is a stoppable one, whose searches the
    /// handle and the deadline stop.
    stoppable: bool,
    /// Where the costliest searches' bounds are kept, if anywhere.
    journal: Option<Journal>,
    /// Whether the table holds every bound of the journal: not after a
    /// clear.
    journal_in_table: bool,
}

/// `a`'s first `W` entries and the rest `fill`.
fn widen<T: Copy, const W: usize>(a: [T; W], fill: T) -> [T; MAX_COLUMNS] {
    let mut wide = [fill; MAX_COLUMNS];
    wide[..W].copy_from_slice(&a);
    wide
}

impl<const W: usize, const H: usize, const STATS: bool> AnyEngine for Engine<W, H, STATS> {
    fn set_threads(&mut self, threads: usize) {
        Engine::set_threads(self, threads);
    }

    fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        book.check_board(BoardSize::of::<W, H>())?;
        self.book = Some(book);
        Ok(())
    }

    fn drop_book(&mut self) {
        self.book = None;
    }

    fn book(&self) -> Option<&Book> {
        self.book.as_deref()
    }

    fn table_bytes(&self) -> usize {
        let own: usize = self.own_near.iter().map(Table::bytes).sum();
        self.table.bytes() + self.near.as_ref().map_or(0, Table::bytes) + own
    }

    fn nodes(&self) -> u64 {
        self.searched - self.searched_at_reset
    }

    fn reset_nodes(&mut self) {
        self.searched_at_reset = self.searched;
        self.probes.clear();
    }

    fn probes(&self) -> &[Probe] {
        &self.probes
    }

    fn touch_table(&mut self) {
        self.table.touch();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.touch();
        }
    }

    fn clear_table(&mut self) {
        self.table.clear();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.clear();
        }
        self.journal_in_table = false;
    }

    fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    fn keep_journal(&mut self, path: &Path, min_work: u64) -> Result<JournalLoaded, JournalError> {
        let (journal, loaded) = Journal::open(path, W, H, min_work)?;
        self.journal = Some(journal);
        self.journal_in_table = false;
        Ok(loaded)
    }

    fn journal_error(&self) -> Option<JournalError> {
        self.journal.as_ref().and_then(Journal::error)
    }

    fn ask(
        &mut self,
        p: Parts,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<Found, Stopped> {
        let p = Position::<W, H>::from_parts(p);
        let run = |s: &mut Self| -> Result<Found, Stopped> {
            Ok(match ask {
                Ask::Score => Found::Score(s.solve_inner(&p)?),
                Ask::Sign => Found::Score(s.solve_weak_inner(&p)?),
                // A stop settles some columns, not the whole: never an error.
                Ask::Moves => Found::Moves(widen(s.analyze_inner(&p), None)),
                Ask::Best => {
                    let (score, moves) = s.best_moves_inner(&p)?;
                    Found::Best(score, widen(moves, false))
                }
                Ask::BestMove => Found::Move(s.best_move_inner(&p)?),
                Ask::Probe(alpha) => Found::Score(s.probe_inner(&p, alpha)?),
                Ask::Window(alpha, beta) => Found::Score(s.window_inner(&p, alpha, beta)?),
            })
        };
        match until {
            Some(deadline) => self.stoppable(deadline, run),
            None => Ok(Self::unstoppable(run(self))),
        }
    }
}

impl<const W: usize, const H: usize, const STATS: bool> Engine<W, H, STATS> {
    const CELLS: i32 = (W * H) as i32;
    /// Rejects at compile time boards too wide for a table entry's move.
    const VALID: () = assert!(W <= table::MAX_WIDTH, "too wide for a table entry's move");
    /// Width of a position key: every column's cells plus its sentinel.
    const KEY_BITS: u32 = Geometry::<W, H>::LAYOUT_BITS;
    /// Whether this board's keys allow a near table small enough to be
    /// worth having ([`NEAR_TABLE_MAX_MB`]).
    const NEAR_FITS: bool = Table::min_mb(Self::KEY_BITS) <= NEAR_TABLE_MAX_MB;

    /// An engine whose table takes about `mb` mebibytes (see
    /// [`Solver::try_with_table_mb`]).
    pub(super) fn try_with_table_mb(mb: usize) -> Result<Self, TableError> {
        let () = Self::VALID;
        let near = if mb >= NEAR_TABLE_FROM_MB && Self::NEAR_FITS {
            Some(Table::try_with_mb(NEAR_TABLE_MB, Self::KEY_BITS)?)
        } else {
            None
        };
        Ok(Engine {
            table: Table::try_with_mb(mb, Self::KEY_BITS)?,
            near,
            own_near: Vec::new(),
            searched: 0,
            searched_at_reset: 0,
            threads: 1,
            book: Self::built_in_book(),
            probes: Vec::with_capacity(MAX_PROBES),
            stop: StopHandle::default(),
            stoppable: false,
            journal: None,
            journal_in_table: false,
        })
    }

    /// See [`Solver::set_threads`].
    pub(super) fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
        self.own_near = if self.threads > 1 && Self::NEAR_FITS {
            (0..self.threads)
                .map(|_| Table::try_with_mb(NEAR_TABLE_MB, Self::KEY_BITS))
                .collect::<Result<_, _>>()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        // The new near tables lack the journal's bounds.
        self.journal_in_table = false;
    }

    /// The book built into the library for this board, if there is one
    /// (7x6 only).
    fn built_in_book() -> Option<Arc<Book>> {
        // Compared as numbers: the tests' engines run on boards too small for a BoardSize.
        let standard = BoardSize::STANDARD;
        (W == standard.width() && H == standard.height()).then(Book::standard)
    }

    /// Runs `f` with its searches stoppable by the handle or at `deadline`.
    fn stoppable<T>(
        &mut self,
        deadline: Option<Instant>,
        f: impl FnOnce(&mut Self) -> Result<T, Stopped>,
    ) -> Result<T, Stopped> {
        let stop = self.stop.clone();
        self.stoppable = true;
        let result = stop.with_deadline(deadline, || f(self));
        self.stoppable = false;
        result
    }

    /// The answer of a search nothing could stop.
    fn unstoppable<T>(result: Result<T, Stopped>) -> T {
        match result {
            Ok(answer) => answer,
            Err(Stopped) => unreachable!("only the *_until searches can be stopped"),
        }
    }

    /// What the searches of the call under way look at and report to, if
    /// it is stoppable.
    fn stop_signals(&self) -> Option<&Signals> {
        self.stoppable.then(|| self.stop.signals())
    }

    /// The score of `p` when no search is needed: a finished game, a win
    /// with the next move, or a position of the book.
    fn known_score(&self, p: &Position<W, H>) -> Option<i32> {
        Solver::<W, H>::settled_score(p).or_else(|| self.book.as_ref().and_then(|b| b.score(p)))
    }

    fn solve_inner(&mut self, p: &Position<W, H>) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score);
        }
        let n = p.moves_played() as i32;
        let (mut min, mut max) = Solver::<W, H>::score_range(n);
        let mut probes = 0;
        while min < max {
            let probe = Solver::<W, H>::next_probe(min, max, probes, n);
            probes += 1;
            let r = self.search(p, probe, probe + 1)?;
            if r <= probe {
                max = r;
            } else {
                min = r;
            }
        }
        Ok(min)
    }

    /// One null-window search of `p` at `alpha`, fail-soft: at most
    /// `alpha` bounds the score from above, more than `alpha` from below.
    /// Exact where no search is needed; outside the range a search could
    /// return, the end of that range, which answers the question.
    fn probe_inner(&mut self, p: &Position<W, H>, alpha: i32) -> Result<i32, Stopped> {
        self.window_inner(p, alpha, alpha + 1)
    }

    /// One search of `p` within `alpha..beta` (`alpha < beta`),
    /// fail-soft as [`probe_inner`](Self::probe_inner) is.
    fn window_inner(&mut self, p: &Position<W, H>, alpha: i32, beta: i32) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score);
        }
        let (min, max) = Solver::<W, H>::score_range(p.moves_played() as i32);
        if beta <= min {
            Ok(min)
        } else if alpha >= max {
            Ok(max)
        } else {
            self.search(p, alpha, beta)
        }
    }

    fn solve_weak_inner(&mut self, p: &Position<W, H>) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score.signum());
        }
        Ok(self.search(p, -1, 1)?.signum())
    }

    fn analyze_inner(&mut self, p: &Position<W, H>) -> [Option<Result<i32, Stopped>>; W] {
        let mut scores = [None; W];
        if p.is_game_over() {
            return scores;
        }
        let n = p.moves_played() as i32;
        for (col, score) in scores.iter_mut().enumerate() {
            if p.can_play(col) {
                *score = Some(if p.is_winning_move(col) {
                    Ok(Solver::<W, H>::win_score(n))
                } else {
                    self.solve_inner(&p.after(col)).map(|s| -s)
                });
            }
        }
        scores
    }

    fn best_move_inner(&mut self, p: &Position<W, H>) -> Result<Option<usize>, Stopped> {
        if p.is_game_over() {
            return Ok(None);
        }
        let score = self.solve_inner(p)?;
        for col in Solver::<W, H>::ORDER {
            if p.can_play(col) && self.reaches(p, col, score)? {
                return Ok(Some(col));
            }
        }
        // Some move reaches the score, so this is never reached; were it,
        // the slow way still gives an answer.
        debug_assert!(false, "no move reaches the score\n{p:?}");
        let mut scores = [None; W];
        for (score, analysed) in scores.iter_mut().zip(self.analyze_inner(p)) {
            *score = analysed.transpose()?;
        }
        Ok(Solver::<W, H>::best_of(&scores))
    }

    /// Whether playing `col` (playable) in `p` (not over), whose score is
    /// `score`, keeps that score: whether the position it leads to scores
    /// at most the score's negation, which one null-window search of that
    /// position settles.
    fn reaches(&mut self, p: &Position<W, H>, col: usize, score: i32) -> Result<bool, Stopped> {
        let n = p.moves_played() as i32;
        let child = p.after(col);
        Ok(if p.is_winning_move(col) {
            // The best any move can score: `solve` gave it too.
            true
        } else if child.is_game_over() {
            score <= 0
        } else if child.can_win_next() {
            score <= -Solver::<W, H>::win_score(n + 1)
        } else if let Some(known) = self.book.as_ref().and_then(|b| b.score(&child)) {
            -known >= score
        } else {
            self.search(&child, -score, -score + 1)? <= -score
        })
    }

    fn best_moves_inner(&mut self, p: &Position<W, H>) -> Result<(i32, [bool; W]), Stopped> {
        let mut moves = [false; W];
        let score = self.solve_inner(p)?;
        if !p.is_game_over() {
            for (col, best) in moves.iter_mut().enumerate() {
                *best = p.can_play(col) && self.reaches(p, col, score)?;
            }
        }
        Ok((score, moves))
    }

    /// Searches `p` within `alpha..beta` (see [`Search::negamax`]), with
    /// helper threads if it is worth it.
    fn search(&mut self, p: &Position<W, H>, alpha: i32, beta: i32) -> Result<i32, Stopped> {
        let before = self.searched;
        let result = self.search_unrecorded(p, alpha, beta)?;
        if self.probes.len() < MAX_PROBES {
            self.probes.push(Probe {
                alpha,
                beta,
                result,
                nodes: self.searched - before,
            });
        }
        Ok(result)
    }

    /// The tables thread `thread` searches with (0 is the main search):
    /// its own near table and the shared one when the threads have their
    /// own, else the shared tables alone.
    fn tables(&self, thread: usize) -> Tables<'_> {
        match self.own_near.get(thread) {
            Some(near) => Tables {
                far: &self.table,
                near,
                near_max_empty: OWN_NEAR_MAX_EMPTY,
                journal: self.journal.as_ref(),
            },
            None => Tables {
                far: &self.table,
                near: self.near.as_ref().unwrap_or(&self.table),
                near_max_empty: tuning::near_max_empty(W * H),
                journal: self.journal.as_ref(),
            },
        }
    }

    /// Puts the journal's bounds into the table, unless they are there.
    fn fill_from_journal(&mut self) {
        if self.journal_in_table {
            return;
        }
        if let Some(journal) = &self.journal {
            let tables = self.tables(0);
            journal.each(|key, kept| {
                let table = tables.for_empty(Self::CELLS - kept.moves as i32);
                table.put(key, kept.work, kept.lower, kept.upper, kept.best);
            });
        }
        self.journal_in_table = true;
    }

    /// [`search`](Self::search) without the record.
    fn search_unrecorded(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        self.fill_from_journal();
        if self.threads <= 1 || p.moves_played() >= tuning::threads_below_moves(Self::CELLS as u32)
        {
            let mut search = Search::<Position<W, H>, Table, STATS>::new(
                Geometry::<W, H>,
                self.tables(0),
                self.searched,
                self.stop_signals(),
            );
            let score = search.negamax(p, alpha, beta);
            let finished = search.finished();
            self.searched = search.nodes;
            return finished.then_some(score).ok_or(Stopped);
        }
        let tables: Vec<Tables> = (0..self.threads).map(|t| self.tables(t)).collect();
        let (score, nodes) = match self.stop_signals() {
            Some(stop) => {
                let found = parallel::search_together::<Position<W, H>, Table, STATS>(
                    &tables, p, alpha, beta, stop,
                );
                // The threads stopped each other through the flag: it says
                // again only what the user and the deadline say.
                self.stop.settle();
                found
            }
            None => parallel::search_together::<Position<W, H>, Table, STATS>(
                &tables,
                p,
                alpha,
                beta,
                &Signals::default(),
            ),
        };
        self.searched += nodes;
        score.ok_or(Stopped)
    }
}
