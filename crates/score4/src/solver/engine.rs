//! The state around the search (tables, threads, book, journal, stop
//! handle) and the loops that turn searches into answers: a score from
//! null windows, every move's score, the best moves.
//!
//! An [`Engine`] is written once, over the search's [`Node`] and [`Store`]
//! traits, and serves both kinds of board: the compiled sizes (a
//! [`Position<W, H>`] and its `u64` [`Table`]) and the sizes given as data
//! (see [`wide`](crate::wide)).
//!
//! Every type of the crate takes its size as const parameters, so that each
//! compiled size's search is as fast as the standard one's. Were
//! [`Solver`]'s methods that search, each program choosing the size at run
//! time would compile the whole search again for every size. So a
//! [`Solver`] is a handle to an engine behind the object-safe
//! [`AnyEngine`]: the engines of the supported sizes are built by
//! [`built_for`], one non-generic function whose code is compiled here (a
//! [`Compiled`] engine for the sizes of `with_compiled_size!`, the engine
//! of sizes as data for the others), and the handle only turns its typed
//! position and answer into plain ones.
//! [`built_for`] also serves the sizes past [`BoardSize`]'s limits (for
//! [`wide::Solver`](crate::wide::Solver)), a few of them compiled (two in
//! 64 bits here, those past 64 bits in `wide::compiled`). Boards
//! too small for a [`BoardSize`] (for tests) build their
//! engine where they are used, and so does a measuring solver (see
//! [`build_measuring`]), which only measuring programs ask for.

use crate::clock::Instant;
use std::path::Path;
use std::sync::Arc;

use super::journal::{Journal, JournalError, JournalLoaded, Kept};
use super::node::{Key, Node, Store};
use super::proof::ProofSearch;
use super::search::{proven_bounds, table_key, Search, Tables};
use super::stop::Proven;
use super::stop::Signals;
use super::table::{self, Table};
use super::tuning::{
    self, NEAR_TABLE_FROM_MB, NEAR_TABLE_MAX_KEY_BITS, NEAR_TABLE_MAX_MB, NEAR_TABLE_MAX_WIDTH,
    NEAR_TABLE_MB, OWN_NEAR_MAX_EMPTY,
};
#[cfg(doc)]
use super::Solver;
use super::{parallel, Probe, StopHandle, Stopped, MAX_PROBES, MAX_THREADS};
use crate::bitboard::Geometry;
use crate::book::{Book, BookError};
use crate::layout::Layout;
use crate::mem::TableError;
use crate::position::{Ending, Position};
use crate::size::BoardSize;

/// The most columns an answer carries across the boundary: every width.
pub(crate) const MAX_COLUMNS: usize = crate::wide::shape::MAX_WIDTH;

/// A position without its size, as it crosses the boundary: the side to
/// move's discs, every disc, and the moves played, in the Fhourstones
/// layout of every size.
pub(crate) type Parts = (u128, u128, u32);

/// What a [`Solver`] asks of its engine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ask {
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
pub(crate) enum Found {
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
pub(crate) trait AnyEngine: Send + Sync {
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
        built_for(crate::wide::Shape::any(W, H), mb)
    } else {
        boxed::<W, H>(mb)
    }
}

/// Calls `f::<W, H>(args...)` on the compiled sizes up to 64 bits, and
/// evaluates `otherwise` on the other supported sizes: the one list of
/// them (those past 64 bits are `wide::compiled`'s).
///
/// Each compiled size costs every compile of the library about a second
/// (docs/testing.md), so only the sizes where search time matters are
/// compiled: the standard board and its neighbours, and every size whose
/// empty board takes more than a few seconds to solve as data (the long
/// solves, the split solves and their journals). The others run the
/// search of sizes as data ([`wide`](crate::wide)): the same search over
/// masks held as data, up to 1.4 times the time a position, which on
/// them is seconds at most (docs/solver.md, docs/board-sizes.md).
macro_rules! with_compiled_size {
    ($dims:expr, $f:ident ($($arg:expr),*), $otherwise:expr) => {{
        let dims: (usize, usize) = $dims;
        match dims {
            (7, 6) => $f::<7, 6>($($arg),*),
            // The library's unit tests compile the standard size only: they
            // test the engine and the search, not this list, and each size
            // compiled lengthens their build (docs/testing.md); the other
            // sizes run as data there. So does the browser's WebAssembly,
            // whose download each size compiled enlarges, for solves of
            // minutes to hours that are not a page's work (docs/web.md).
            // Every other build compiles the list.
            #[cfg(any(test, target_family = "wasm"))]
            _ => $otherwise,
            #[cfg(not(any(test, target_family = "wasm")))]
            rest => match rest {
                (6, 7) => $f::<6, 7>($($arg),*),
                (7, 7) => $f::<7, 7>($($arg),*),
                (8, 6) => $f::<8, 6>($($arg),*),
                (6, 8) => $f::<6, 8>($($arg),*),
                (8, 7) => $f::<8, 7>($($arg),*),
                (7, 8) => $f::<7, 8>($($arg),*),
                (9, 5) => $f::<9, 5>($($arg),*),
                (9, 6) => $f::<9, 6>($($arg),*),
                (6, 9) => $f::<6, 9>($($arg),*),
                (5, 11) => $f::<5, 11>($($arg),*),
                (4, 14) => $f::<4, 14>($($arg),*),
                (4, 15) => $f::<4, 15>($($arg),*),
                (8, 5) => $f::<8, 5>($($arg),*),
                (9, 4) => $f::<9, 4>($($arg),*),
                (5, 9) => $f::<5, 9>($($arg),*),
                (5, 10) => $f::<5, 10>($($arg),*),
                (4, 12) => $f::<4, 12>($($arg),*),
                (4, 13) => $f::<4, 13>($($arg),*),
                // Wider than nine columns, in 64 bits: the sizes solved
                // here for hours (docs/board-sizes.md).
                (12, 4) => $f::<12, 4>($($arg),*),
                (10, 5) => $f::<10, 5>($($arg),*),
                _ => $otherwise,
            },
        }
    }};
}

/// Whether `size`'s search is compiled (see `with_compiled_size!` and
/// `with_compiled_wide_size!`).
pub(crate) fn is_compiled(width: usize, height: usize) -> bool {
    const fn yes<const W: usize, const H: usize>() -> bool {
        true
    }
    with_compiled_size!(
        (width, height),
        yes(),
        crate::wide::compiled::with_compiled_wide_size!((width, height), yes(), false)
    )
}

/// The engine of a board of any supported size: the one place that names
/// every compiled size's search, so that its code is compiled here only
/// (those past 64 bits through `shape_engine`); the other sizes get the
/// engine of sizes as data.
#[inline(never)]
pub(crate) fn built_for(
    shape: crate::wide::Shape,
    mb: usize,
) -> Result<Box<dyn AnyEngine>, TableError> {
    with_compiled_size!(
        (shape.width(), shape.height()),
        boxed(mb),
        crate::wide::search::shape_engine(shape, mb)
    )
}

fn boxed<const W: usize, const H: usize>(mb: usize) -> Result<Box<dyn AnyEngine>, TableError> {
    Ok(Box::new(Compiled::<W, H, false>::try_with_table_mb(mb)?))
}

/// The engine of a measuring solver, whose searches count their events
/// (see [`stats`](super::stats)): compiled where it is asked for, not
/// here, as only measuring programs ask for it.
pub(super) fn build_measuring<const W: usize, const H: usize>(
    mb: usize,
) -> Result<Box<dyn AnyEngine>, TableError> {
    Ok(Box::new(Compiled::<W, H, true>::try_with_table_mb(mb)?))
}

/// The engine of the compiled `W` x `H` board: its positions are
/// [`Position<W, H>`]. A measuring engine's (`STATS`) searches count their
/// events.
pub(super) struct Compiled<const W: usize, const H: usize, const STATS: bool>(Engine<Table, STATS>);

impl<const W: usize, const H: usize, const STATS: bool> Compiled<W, H, STATS> {
    /// Rejects at compile time boards too wide for a table entry's move.
    const VALID: () = assert!(W <= table::MAX_WIDTH, "too wide for a table entry's move");

    /// An engine whose table takes about `mb` mebibytes (see
    /// [`Solver::try_with_table_mb`]).
    pub(super) fn try_with_table_mb(mb: usize) -> Result<Self, TableError> {
        let () = Self::VALID;
        let mut engine = Engine::try_with_table_mb(&Geometry::<W, H>, mb)?;
        // Compared as numbers: the tests' engines run on boards too small for a BoardSize.
        let standard = BoardSize::STANDARD;
        if W == standard.width() && H == standard.height() {
            engine.book = Some(Book::standard());
        }
        Ok(Compiled(engine))
    }
}

/// `a`'s entries and the rest `fill`.
fn widen<T: Copy>(a: &[T], fill: T) -> [T; MAX_COLUMNS] {
    let mut wide = [fill; MAX_COLUMNS];
    wide[..a.len()].copy_from_slice(a);
    wide
}

impl<const W: usize, const H: usize, const STATS: bool> AnyEngine for Compiled<W, H, STATS> {
    fn set_threads(&mut self, threads: usize) {
        self.0.set_threads(threads);
    }

    fn use_book(&mut self, book: Arc<Book>) -> Result<(), BookError> {
        book.check_board(&crate::wide::Shape::any(W, H))?;
        self.0.book = Some(book);
        Ok(())
    }

    fn drop_book(&mut self) {
        self.0.book = None;
    }

    fn book(&self) -> Option<&Book> {
        self.0.book.as_deref()
    }

    fn table_bytes(&self) -> usize {
        self.0.table_bytes()
    }

    fn nodes(&self) -> u64 {
        self.0.nodes()
    }

    fn reset_nodes(&mut self) {
        self.0.reset_nodes();
    }

    fn probes(&self) -> &[Probe] {
        &self.0.probes
    }

    fn touch_table(&mut self) {
        self.0.touch_table();
    }

    fn clear_table(&mut self) {
        self.0.clear_table();
    }

    fn stop_handle(&self) -> StopHandle {
        self.0.stop.clone()
    }

    fn keep_journal(&mut self, path: &Path, min_work: u64) -> Result<JournalLoaded, JournalError> {
        self.0.keep_journal(path, min_work)
    }

    fn journal_error(&self) -> Option<JournalError> {
        self.0.journal_error()
    }

    fn ask(
        &mut self,
        p: Parts,
        ask: Ask,
        until: Option<Option<Instant>>,
    ) -> Result<Found, Stopped> {
        let p = Position::<W, H>::from_parts(p);
        // The sign of the boards where a proof-number search proves it
        // with far fewer positions (tuning::PROOF_SIGN_BOARDS), in a
        // strong solve that cannot be stopped (the proof-number search
        // does not watch the stop flag) and that is not measuring.
        if matches!(ask, Ask::Score) && until.is_none() && !STATS && proves_sign(&p, self.0.threads)
        {
            return self.0.run(until, |engine| {
                Ok(Found::Score(solve_with_proof_sign(engine, &p)?))
            });
        }
        self.0.run(until, |engine| engine.answer(&p, ask))
    }
}

/// A strong solve of `p` whose sign probe a proof-number search answers.
fn solve_with_proof_sign<const W: usize, const H: usize, const STATS: bool>(
    engine: &mut Engine<Table, STATS>,
    p: &Position<W, H>,
) -> Result<i32, Stopped> {
    let mut proof = ProofSearch::<W, H>::new(tuning::PROOF_ENTRIES).with_static_bounds();
    let mut sign = |alpha| {
        let before = proof.positions();
        let above = proof.above(p, alpha, u64::MAX)?;
        Some((above, proof.positions() - before))
    };
    engine.solve_inner_with(p, &mut sign, false)
}

/// Whether a strong solve of `p` on `threads` threads asks its sign of the
/// proof-number search ([`tuning::PROOF_SIGN_BOARDS`],
/// [`tuning::PROOF_SIGN_MIN_EMPTY`]).
fn proves_sign<const W: usize, const H: usize>(p: &Position<W, H>, threads: usize) -> bool {
    tuning::PROOF_SIGN_BOARDS
        .iter()
        .any(|&(w, h, most)| (w, h) == (W, H) && threads <= most)
        && Position::<W, H>::CELLS - p.moves_played() >= tuning::PROOF_SIGN_MIN_EMPTY
}

/// The solver's state on one board, whatever its kind: its tables
/// (`S`), node count, book, journal and stop handle; the positions it is
/// asked about are any [`Node`] of that board. A measuring engine's
/// (`STATS`) searches count their events.
pub(crate) struct Engine<S, const STATS: bool> {
    /// The board's width and height, for the journal.
    width: usize,
    height: usize,
    /// Cells of the board.
    cells: u32,
    /// Width of a position key: every column's cells plus its sentinel.
    key_bits: u32,
    table: S,
    /// With a large `table`: the table of positions near the end, used
    /// when the threads have none of their own.
    near: Option<S>,
    /// With several threads: each thread's own table of positions near
    /// the end (see [`set_threads`](Self::set_threads)), the main
    /// search's first.
    own_near: Vec<S>,
    /// Positions searched over the solver's life.
    searched: u64,
    /// The value of `searched` at the last `reset_nodes`.
    searched_at_reset: u64,
    /// Threads searching each large position together.
    threads: usize,
    /// Exact scores of the opening, answered without search.
    pub(crate) book: Option<Arc<Book>>,
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

impl<S: Store, const STATS: bool> Engine<S, STATS> {
    /// An engine for the board of `layout` whose table takes about `mb`
    /// mebibytes (see [`Solver::try_with_table_mb`]), with no book.
    pub(crate) fn try_with_table_mb(layout: &impl Layout, mb: usize) -> Result<Self, TableError> {
        let key_bits = layout.stride() * layout.width() as u32;
        let mut engine = Engine {
            width: layout.width(),
            height: layout.height(),
            cells: layout.cells(),
            key_bits,
            table: S::try_with_mb(mb, key_bits)?,
            near: None,
            own_near: Vec::new(),
            searched: 0,
            searched_at_reset: 0,
            threads: 1,
            book: None,
            probes: Vec::with_capacity(MAX_PROBES),
            stop: StopHandle::default(),
            stoppable: false,
            journal: None,
            journal_in_table: false,
        };
        if mb >= NEAR_TABLE_FROM_MB && engine.near_fits() {
            engine.near = Some(S::try_with_mb(NEAR_TABLE_MB, key_bits)?);
        }
        Ok(engine)
    }

    /// Whether a near table pays on this board: at most nine columns
    /// ([`NEAR_TABLE_MAX_WIDTH`]) and keys of one word
    /// ([`NEAR_TABLE_MAX_KEY_BITS`]) whose least table is small enough
    /// ([`NEAR_TABLE_MAX_MB`]).
    fn near_fits(&self) -> bool {
        self.width <= NEAR_TABLE_MAX_WIDTH
            && self.key_bits <= NEAR_TABLE_MAX_KEY_BITS
            && S::min_mb(self.key_bits) <= NEAR_TABLE_MAX_MB
    }

    /// See [`Solver::set_threads`].
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
        self.own_near = if self.threads > 1 && self.near_fits() {
            (0..self.threads)
                .map(|_| S::try_with_mb(NEAR_TABLE_MB, self.key_bits))
                .collect::<Result<_, _>>()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        // The new near tables lack the journal's bounds.
        self.journal_in_table = false;
    }

    /// See [`Solver::table_bytes`].
    pub(crate) fn table_bytes(&self) -> usize {
        let own: usize = self.own_near.iter().map(S::bytes).sum();
        self.table.bytes() + self.near.as_ref().map_or(0, S::bytes) + own
    }

    /// See [`Solver::nodes`].
    pub(crate) fn nodes(&self) -> u64 {
        self.searched - self.searched_at_reset
    }

    /// See [`Solver::reset_nodes`].
    pub(crate) fn reset_nodes(&mut self) {
        self.searched_at_reset = self.searched;
        self.probes.clear();
    }

    /// See [`Solver::probes`].
    pub(crate) fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// See [`Solver::touch_table`].
    pub(crate) fn touch_table(&mut self) {
        self.table.touch();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.touch();
        }
    }

    /// See [`Solver::clear_table`].
    pub(crate) fn clear_table(&mut self) {
        self.table.clear();
        for near in self.near.iter_mut().chain(&mut self.own_near) {
            near.clear();
        }
        self.journal_in_table = false;
    }

    /// See [`Solver::stop_handle`].
    pub(crate) fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    /// See [`Solver::keep_journal`].
    pub(crate) fn keep_journal(
        &mut self,
        path: &Path,
        min_work: u64,
    ) -> Result<JournalLoaded, JournalError> {
        let (journal, loaded) =
            Journal::open(path, self.width, self.height, self.key_bits, min_work)?;
        self.journal = Some(journal);
        self.journal_in_table = false;
        Ok(loaded)
    }

    /// See [`Solver::journal_error`].
    pub(crate) fn journal_error(&self) -> Option<JournalError> {
        self.journal.as_ref().and_then(Journal::error)
    }

    /// Runs `run`, stoppable (by the handle or at the deadline) when
    /// `until` is given.
    pub(crate) fn run<T>(
        &mut self,
        until: Option<Option<Instant>>,
        run: impl FnOnce(&mut Self) -> Result<T, Stopped>,
    ) -> Result<T, Stopped> {
        match until {
            Some(deadline) => self.stoppable(deadline, run),
            None => Ok(Self::unstoppable(run(self))),
        }
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

    /// Adds a search's `nodes` positions to the count, and makes the stop
    /// handle's running count, which only this engine's searches move,
    /// equal to it again (see [`StopHandle::settle_count`]).
    fn count(&mut self, nodes: u64) {
        self.searched += nodes;
        self.stop.settle_count(self.searched);
    }

    /// What the searches of the call under way look at and report to, if
    /// it is stoppable.
    fn stop_signals(&self) -> Option<&Signals> {
        self.stoppable.then(|| self.stop.signals())
    }

    /// The score of `p` when no search is needed: a finished game, a win
    /// with the next move, or a position of the book.
    fn known_score<N: Node>(&self, p: &N) -> Option<i32> {
        settled_score(p).or_else(|| self.book.as_ref().and_then(|b| p.book_score(b)))
    }

    /// Answers `ask` about `p`.
    pub(crate) fn answer<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        ask: Ask,
    ) -> Result<Found, Stopped> {
        Ok(match ask {
            // The call's own solve shows its progress on the handle, where
            // another thread can read it during the call.
            Ask::Score => Found::Score(self.solve_inner_with(p, &mut |_| None, self.stoppable)?),
            Ask::Sign => Found::Score(self.solve_weak_inner(p)?),
            // A stop settles some columns, not the whole: never an error.
            Ask::Moves => Found::Moves(widen(self.analyze_inner(p).as_ref(), None)),
            Ask::Best => {
                let (score, moves) = self.best_moves_inner(p)?;
                Found::Best(score, widen(moves.as_ref(), false))
            }
            Ask::BestMove => Found::Move(self.best_move_inner(p)?),
            Ask::Probe(alpha) => Found::Score(self.probe_inner(p, alpha)?),
            Ask::Window(alpha, beta) => Found::Score(self.window_inner(p, alpha, beta)?),
        })
    }

    pub(crate) fn solve_inner<N: Node<Key = S::Key>>(&mut self, p: &N) -> Result<i32, Stopped> {
        self.solve_inner_with(p, &mut |_| None, false)
    }

    /// [`solve_inner`](Self::solve_inner), asking `sign` first at the
    /// probe of the sign: whether the score is above that probe, and the
    /// positions it took to tell, or none to leave it to the search. With
    /// `publish`, the range proven and the question asked go to the stop
    /// handle before each probe ([`StopHandle::proven`]).
    pub(crate) fn solve_inner_with<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        sign: &mut dyn FnMut(i32) -> Option<(bool, u64)>,
        publish: bool,
    ) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score);
        }
        let n = p.moves_played() as i32;
        let layout = p.layout();
        let (mut min, mut max) = score_range(&layout, n);
        let sign_probe = tuning::sign_probe(layout.cells() as usize, layout.height(), n);
        let mut probes = 0;
        let result = loop {
            if min >= max {
                break Ok(min);
            }
            let probe = next_probe(&layout, min, max, probes, n);
            probes += 1;
            if publish {
                self.stop.publish(Some(Proven {
                    lower: min,
                    upper: max,
                    asking: probe,
                }));
            }
            let asked = if probe == sign_probe && min < 0 && max > 0 {
                sign(probe)
            } else {
                None
            };
            let r = match asked {
                // The answer at the window's edge, as a fail-hard search
                // would give it.
                Some((above, nodes)) => {
                    self.count(nodes);
                    let r = probe + i32::from(above);
                    self.record_probe(probe, probe + 1, r, nodes);
                    r
                }
                None => match self.search(p, probe, probe + 1) {
                    Ok(r) => r,
                    Err(stopped) => break Err(stopped),
                },
            };
            if r <= probe {
                max = r;
            } else {
                min = r;
            }
        };
        if publish {
            self.stop.publish(None);
        }
        result
    }

    /// One null-window search of `p` at `alpha`, fail-soft: at most
    /// `alpha` bounds the score from above, more than `alpha` from below.
    /// Exact where no search is needed; outside the range a search could
    /// return, the end of that range, which answers the question.
    fn probe_inner<N: Node<Key = S::Key>>(&mut self, p: &N, alpha: i32) -> Result<i32, Stopped> {
        self.window_inner(p, alpha, alpha + 1)
    }

    /// One search of `p` within `alpha..beta` (`alpha < beta`),
    /// fail-soft as [`probe_inner`](Self::probe_inner) is.
    pub(crate) fn window_inner<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score);
        }
        let (min, max) = score_range(&p.layout(), p.moves_played() as i32);
        if beta <= min {
            Ok(min)
        } else if alpha >= max {
            Ok(max)
        } else {
            self.search(p, alpha, beta)
        }
    }

    pub(crate) fn solve_weak_inner<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
    ) -> Result<i32, Stopped> {
        if let Some(score) = self.known_score(p) {
            return Ok(score.signum());
        }
        Ok(self.search(p, -1, 1)?.signum())
    }

    /// Every column's score, `None` for a full one (and all of them when
    /// the game is over); a stop leaves the columns not settled by then
    /// `Err(Stopped)`.
    #[allow(clippy::type_complexity)]
    pub(crate) fn analyze_inner<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
    ) -> PerColumn<N, Option<Result<i32, Stopped>>> {
        let layout = p.layout();
        let mut scores = layout.per_column(None);
        if p.is_game_over() {
            return scores;
        }
        let n = p.moves_played() as i32;
        for (col, score) in scores.as_mut()[..layout.width()].iter_mut().enumerate() {
            if p.can_play(col) {
                *score = Some(if p.is_winning_move(col) {
                    Ok(layout.win_score(n))
                } else {
                    self.solve_inner(&p.after(col)).map(|s| -s)
                });
            }
        }
        scores
    }

    pub(crate) fn best_move_inner<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
    ) -> Result<Option<usize>, Stopped> {
        if p.is_game_over() {
            return Ok(None);
        }
        let score = self.solve_inner(p)?;
        let layout = p.layout();
        for &col in layout.centre_first() {
            if p.can_play(col) && self.reaches(p, col, score)? {
                return Ok(Some(col));
            }
        }
        // Some move reaches the score, so this is never reached; were it,
        // the slow way still gives an answer.
        debug_assert!(false, "no move reaches the score");
        let mut scores = layout.per_column(None);
        for (score, analysed) in scores
            .as_mut()
            .iter_mut()
            .zip(self.analyze_inner(p).as_ref())
        {
            *score = analysed.transpose()?;
        }
        Ok(best_of(layout.centre_first(), scores.as_ref()))
    }

    /// Whether playing `col` (playable) in `p` (not over), whose score is
    /// `score`, keeps that score: whether the position it leads to scores
    /// at most the score's negation, which one null-window search of that
    /// position settles.
    fn reaches<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        col: usize,
        score: i32,
    ) -> Result<bool, Stopped> {
        let n = p.moves_played() as i32;
        let child = p.after(col);
        Ok(if p.is_winning_move(col) {
            // The best any move can score: `solve` gave it too.
            true
        } else if child.is_game_over() {
            score <= 0
        } else if child.can_win_next() {
            score <= -p.layout().win_score(n + 1)
        } else if let Some(known) = self.book.as_ref().and_then(|b| child.book_score(b)) {
            -known >= score
        } else {
            self.search(&child, -score, -score + 1)? <= -score
        })
    }

    /// The score and, by column, whether each move keeps it.
    pub(crate) fn best_moves_inner<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
    ) -> Result<(i32, PerColumn<N, bool>), Stopped> {
        let layout = p.layout();
        let mut moves = layout.per_column(false);
        let score = self.solve_inner(p)?;
        if !p.is_game_over() {
            for (col, best) in moves.as_mut()[..layout.width()].iter_mut().enumerate() {
                *best = p.can_play(col) && self.reaches(p, col, score)?;
            }
        }
        Ok((score, moves))
    }

    /// Searches `p` within `alpha..beta` (see [`Search::negamax`]), with
    /// helper threads if it is worth it.
    fn search<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        let before = self.searched;
        let result = self.search_unrecorded(p, alpha, beta)?;
        self.record_probe(alpha, beta, result, self.searched - before);
        Ok(result)
    }

    /// Keeps one search's window, result and positions for
    /// [`probes`](Self::probes), up to [`MAX_PROBES`].
    fn record_probe(&mut self, alpha: i32, beta: i32, result: i32, nodes: u64) {
        if self.probes.len() < MAX_PROBES {
            self.probes.push(Probe {
                alpha,
                beta,
                result,
                nodes,
            });
        }
    }

    /// The tables thread `thread` searches with (0 is the main search):
    /// its own near table and the shared one when the threads have their
    /// own, else the shared tables alone.
    fn tables(&self, thread: usize) -> Tables<'_, S> {
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
                near_max_empty: tuning::near_max_empty(self.cells as usize),
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
                let table = tables.for_empty(self.cells as i32 - kept.moves as i32);
                table.put(
                    S::Key::from_journal(key),
                    kept.work,
                    kept.lower,
                    kept.upper,
                    kept.best,
                );
            });
        }
        self.journal_in_table = true;
    }

    /// [`search`](Self::search) without the record.
    fn search_unrecorded<N: Node<Key = S::Key>>(
        &mut self,
        p: &N,
        alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        self.fill_from_journal();
        if self.threads <= 1 || p.moves_played() >= tuning::threads_below_moves(self.cells) {
            let mut search =
                Search::<N, S, STATS>::new(p.layout(), self.tables(0), self.stop_signals());
            let score = search.negamax(p, alpha, beta);
            let (finished, nodes) = (search.finished(), search.nodes);
            self.count(nodes);
            if finished {
                self.keep_answer(p, alpha, beta, score, nodes);
            }
            return finished.then_some(score).ok_or(Stopped);
        }
        let tables: Vec<Tables<S>> = (0..self.threads).map(|t| self.tables(t)).collect();
        let (score, nodes) = match self.stop_signals() {
            Some(stop) => {
                let found = parallel::search_together::<N, S, STATS>(&tables, p, alpha, beta, stop);
                // The threads stopped each other through the flag: it says
                // again only what the user and the deadline say.
                self.stop.settle();
                found
            }
            None => parallel::search_together::<N, S, STATS>(
                &tables,
                p,
                alpha,
                beta,
                &Signals::default(),
            ),
        };
        self.count(nodes);
        if let Some(score) = score {
            self.keep_answer(p, alpha, beta, score, nodes);
        }
        score.ok_or(Stopped)
    }

    /// Appends the answer of a finished search of `p` within `alpha..beta`
    /// (fail-soft) to the journal, whatever it cost. The search keeps the
    /// subtrees that cost `min_work`; a question answered cheaply from the
    /// journal's bounds of its children (a position whose replies other
    /// jobs have each refuted) is not among them, though it is what the
    /// run was asked, and without it a search of its parent cannot cut at
    /// it by looking its children up, and tries its other moves first,
    /// for hours. One line a question: a costly root's bound is then
    /// kept twice, which the journal merges on reading.
    fn keep_answer<N: Node<Key = S::Key>>(
        &self,
        p: &N,
        alpha: i32,
        beta: i32,
        score: i32,
        work: u64,
    ) {
        let Some(journal) = self.journal.as_ref() else {
            return;
        };
        let n = p.moves_played() as i32;
        let (min, max) = score_range(&p.layout(), n);
        let (lower, upper) = proven_bounds(score, alpha, beta, min, max);
        let kept = Kept {
            moves: n as u32,
            lower,
            upper,
            best: None,
            work,
        };
        journal.keep(table_key(p, self.cells).0.in_journal(), kept);
    }
}

/// One value for each column of `N`'s board.
pub(crate) type PerColumn<N, T> = <<N as Node>::Layout as Layout>::PerColumn<T>;

/// The score of a finished game from the side to move, or `None` if the
/// game goes on.
pub(crate) fn finished_score<N: Node>(p: &N) -> Option<i32> {
    // The winning move was the last, played after all but one.
    let n = p.moves_played() as i32;
    p.ending().map(|ending| match ending {
        Ending::Lost => -p.layout().win_score(n - 1),
        Ending::Won => p.layout().win_score(n - 1),
        Ending::Draw => 0,
    })
}

/// The score of `p` when it needs neither search nor book: a finished
/// game, or a win with the next move.
pub(crate) fn settled_score<N: Node>(p: &N) -> Option<i32> {
    finished_score(p).or_else(|| {
        p.can_win_next()
            .then(|| p.layout().win_score(p.moves_played() as i32))
    })
}

/// The range the score of a position not [settled](settled_score) after
/// `moves` moves lies in: the opponent wins at best with its next move,
/// the side to move at best with the move after that.
pub(crate) fn score_range(layout: &impl Layout, moves: i32) -> (i32, i32) {
    (-layout.win_score(moves + 1), layout.win_score(moves + 2))
}

/// The window a strong solve of a position with `moves` moves played
/// probes next on this board ([`tuning::next_probe`], with this board's
/// [`tuning::sign_probe`]): one place for the direct solve, the split one
/// and the anytime analysis.
pub(crate) fn next_probe(layout: &impl Layout, min: i32, max: i32, probes: u32, moves: i32) -> i32 {
    let sign = tuning::sign_probe(layout.cells() as usize, layout.height(), moves);
    tuning::next_probe(min, max, probes, moves, sign)
}

/// The best move among analysed scores (by column) of a board whose
/// columns are `order` centre first: the highest score, the centre-most
/// among equals.
pub(crate) fn best_of(order: &[usize], scores: &[Option<i32>]) -> Option<usize> {
    let mut best: Option<(i32, usize)> = None;
    for &col in order {
        if let Some(s) = scores[col] {
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, col));
            }
        }
    }
    best.map(|(_, col)| col)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn the_proof_number_sign_is_asked_where_tuning_says() {
        let empty = Position::<6, 8>::new();
        assert!(proves_sign(&empty, 1));
        assert!(proves_sign(&empty, 2));
        assert!(!proves_sign(&empty, 3));
        assert!(proves_sign(&Position::<8, 6>::new(), 1));
        assert!(!proves_sign(&Position::<8, 6>::new(), 2));
        assert!(!proves_sign(&Position::<7, 6>::new(), 1));
        let deep: Position<6, 8> = "123456".parse().unwrap();
        let near: Position<6, 8> = "1234".parse().unwrap();
        let cells = Position::<6, 8>::CELLS;
        assert_eq!(
            proves_sign(&deep, 1),
            cells - 6 >= tuning::PROOF_SIGN_MIN_EMPTY
        );
        assert_eq!(
            proves_sign(&near, 1),
            cells - 4 >= tuning::PROOF_SIGN_MIN_EMPTY
        );
    }

    /// Strong solves whose sign the proof-number search proves give the
    /// alpha-beta search's scores, on 6x8 positions 8 moves in (seconds
    /// in all; the solver asks it nearer the root, where a solve takes
    /// longer), each with fresh tables.
    #[test]
    fn signs_proved_by_proof_numbers_give_the_alpha_beta_scores() {
        let mut engine = Engine::<Table, false>::try_with_table_mb(&Geometry::<6, 8>, 16).unwrap();
        let mut rng = Rng::new(0x57_68);
        let mut checked = 0;
        while checked < 8 {
            let (_, p) = crate::position::random_game::<6, 8>(&mut rng, 8);
            // A position with a win at once never reaches the sign probe.
            if p.moves_played() < 8 || p.can_win_next() {
                continue;
            }
            checked += 1;
            engine.clear_table();
            let with_proof = solve_with_proof_sign(&mut engine, &p).unwrap();
            engine.clear_table();
            let alpha_beta = engine.solve_inner(&p).unwrap();
            assert_eq!(with_proof, alpha_beta, "{p:?}");
        }
    }
}
