//! The perfect solver for Python: one library solver per board, lent to
//! one search at a time, searching without the GIL.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTimeoutError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use score4::book::Book as RustBook;
use score4::solver::{Goal, Stopped};
use score4::wide::{self, Shape};
use score4::{ScoreRange, SolveError};

use crate::analysis::Analysis;
use crate::args::{count_arg, deadline, Dims, Int, Seconds};
use crate::watch::{unwatch, watch, FIRST_CHECK, MAX_CHECK};
use crate::{read_position, shape_or_standard, Book};

/// Which book a solver answers from.
#[derive(Clone)]
enum BookChoice {
    BuiltIn,
    None,
    File(Arc<RustBook>),
}

/// The library's solver of one board (it knows which), boxed: it holds
/// its board's masks.
type Current = Option<Box<wide::Solver>>;

/// The library solver and who has it.
struct Lending {
    /// The solver, while no search has it.
    current: Current,
    /// The thread searching with it, if one is.
    user: Option<ThreadId>,
}

/// The perfect solver. A Solver searches one position at a time: shared
/// by threads, each call waits (without the GIL) for the one before it;
/// solvers of their own in different threads search at once.
///
/// Scores are from the side to move: 0 a draw; a win completed by the
/// game's m-th disc (both sides' discs, from 1) scores
/// `1 + (width * height - m) // 2`, a loss the negative.
///
/// >>> from score4 import Solver
/// >>> solver = Solver()
/// >>> solver.solve("4453")
/// -2
/// >>> solver.solve_weak("4453")
/// -1
/// >>> solver.analyze("445566")
/// [17, 17, 18, 17, 17, 17, 18]
/// >>> solver.best_move("445566")
/// 2
/// >>> solver.best_moves("445566")
/// [2, 6]
/// >>> solver.solve("33", board=(5, 4))
/// 0
#[pyclass(module = "score4", frozen)]
pub(crate) struct Solver {
    table_mb: usize,
    threads: usize,
    book: BookChoice,
    lending: Mutex<Lending>,
    /// Signalled when the library solver comes back.
    returned: Condvar,
    nodes: AtomicU64,
}

/// The library solver lent to one search: given back when dropped, on
/// every way out (an error, a panic).
struct Lent<'a> {
    owner: &'a Solver,
    current: Current,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        let mut lending = self.owner.lock();
        lending.current = self.current.take();
        lending.user = None;
        self.owner.returned.notify_one();
    }
}

/// What a wait for the library solver came to.
enum Wait {
    Got(Current),
    /// The waiting thread has it already: a callback of its own search.
    Mine,
    /// Not yet: time to look at Python's signals.
    Later,
}

/// What a search is asked.
#[derive(Clone, Copy)]
enum Ask {
    Strong,
    Weak,
    Analyze,
    Best,
    AllBest,
}

/// A search's answer.
enum Found {
    Score(i32),
    Scores(Vec<Option<i32>>),
    Column(Option<usize>),
    Columns(Vec<usize>),
}

/// A new library solver for the board `shape` with a Solver's table
/// size, threads and book.
fn make(
    shape: Shape,
    table_mb: usize,
    threads: usize,
    book: &BookChoice,
) -> PyResult<Box<wide::Solver>> {
    let mut solver = wide::Solver::new(shape, table_mb)
        .map_err(|e| PyMemoryError::new_err(format!("table_mb {table_mb}: {e}")))?;
    solver.set_threads(threads);
    match book {
        BookChoice::BuiltIn => {}
        BookChoice::None => solver.drop_book(),
        BookChoice::File(book) => {
            if book.shape() == &shape {
                solver
                    .use_book(Arc::clone(book))
                    .map_err(crate::value_error)?
            } else {
                solver.drop_book()
            }
        }
    }
    Ok(Box::new(solver))
}

/// The lent library solver of the board `shape`, made if the one lent is
/// of another board.
fn solver_of<'a>(
    this: &Solver,
    lent: &'a mut Lent<'_>,
    shape: &Shape,
) -> PyResult<&'a mut wide::Solver> {
    if lent.current.as_ref().is_none_or(|s| s.shape() != shape) {
        // The old table goes before the new one is made.
        lent.current = None;
        lent.current = Some(make(*shape, this.table_mb, this.threads, &this.book)?);
    }
    lent.current
        .as_deref_mut()
        .ok_or_else(|| PyRuntimeError::new_err("no solver for this board"))
}

fn search_on(
    this: &Solver,
    lent: &mut Lent<'_>,
    py: Python<'_>,
    pos: &crate::Position,
    ask: Ask,
    deadline: Option<Instant>,
) -> PyResult<Found> {
    let p = pos.reached;
    let solver = solver_of(this, lent, &pos.shape)?;
    let handle = solver.stop_handle();
    let before = solver.nodes();
    let mut interval = FIRST_CHECK;
    let result = loop {
        handle.resume();
        let check = Instant::now() + interval;
        let id = match watch(&handle, deadline.map_or(check, |d| d.min(check))) {
            Ok(id) => id,
            Err(e) => break Err(e),
        };
        let found = py.detach(|| run(solver, &p, ask));
        unwatch(id);
        let found = match found {
            Ok(found) => found,
            Err(e) => break Err(crate::value_error(e)),
        };
        match found {
            Ok(found) => break Ok(found),
            Err(Stopped) if deadline.is_some_and(|d| Instant::now() >= d) => {
                break Err(PyTimeoutError::new_err(
                    "the search did not finish within the timeout",
                ))
            }
            Err(Stopped) => {
                if let Err(e) = py.check_signals() {
                    break Err(e);
                }
                interval = (interval * 2).min(MAX_CHECK);
            }
        }
    };
    handle.resume();
    this.nodes
        .fetch_add(solver.nodes().wrapping_sub(before), Ordering::Relaxed);
    result
}

/// How an anytime analysis is asked for.
struct Anytime<'a> {
    goal: Goal,
    deadline: Option<Instant>,
    /// The least time between two calls of `on_update` that report no
    /// narrowing.
    tick: Duration,
    on_update: Option<&'a Bound<'a, PyAny>>,
}

/// The anytime analysis of `pos`: the search runs without the GIL, which
/// is taken back only to look at Python's signals and to call
/// `on_update`; an exception from either stops the search and is raised.
fn anytime_on(
    this: &Solver,
    lent: &mut Lent<'_>,
    py: Python<'_>,
    pos: &crate::Position,
    ask: &Anytime<'_>,
) -> PyResult<Analysis> {
    let solver = solver_of(this, lent, &pos.shape)?;
    let handle = solver.stop_handle();
    let before = solver.nodes();
    let on_update = ask.on_update.map(|f| f.clone().unbind());
    let mut failed: Option<PyErr> = None;
    let mut told: Option<(Vec<Option<ScoreRange>>, bool)> = None;
    let mut told_at = Instant::now();
    let (goal, deadline, every) = (ask.goal, ask.deadline, ask.tick);
    // The library ticks often enough for Ctrl-C to be heard soon, whatever
    // tick the caller asked for.
    let tick = every.min(MAX_CHECK);
    let last = py.detach(|| {
        handle.resume();
        solver.analyze_anytime(&pos.reached, goal, deadline, tick, |a| {
            if failed.is_some() {
                return;
            }
            let changed = told
                .as_ref()
                .is_none_or(|(columns, done)| *columns != a.columns || *done != a.done);
            let due = changed || told_at.elapsed() >= every;
            let called = Python::attach(|py| {
                py.check_signals()?;
                match &on_update {
                    Some(f) if due => {
                        told = Some((a.columns.clone(), a.done));
                        told_at = Instant::now();
                        f.call1(py, (Analysis::of(pos, a),)).map(drop)
                    }
                    _ => Ok(()),
                }
            });
            if let Err(e) = called {
                failed = Some(e);
                handle.stop();
            }
        })
    });
    handle.resume();
    this.nodes
        .fetch_add(solver.nodes().wrapping_sub(before), Ordering::Relaxed);
    match failed {
        Some(e) => Err(e),
        None => Ok(Analysis::of(pos, &last)),
    }
}

/// One search, stoppable by the solver's handle; a finished game is an
/// error, except to an analysis, which gives it no columns.
fn run(
    solver: &mut wide::Solver,
    p: &wide::Position,
    ask: Ask,
) -> Result<Result<Found, Stopped>, SolveError> {
    Ok(match ask {
        Ask::Strong => solver.solve_until(p, None)?.map(Found::Score),
        Ask::Weak => solver.solve_weak_until(p, None)?.map(Found::Score),
        Ask::Best => solver
            .best_move_until(p, None)?
            .map(|col| Found::Column(Some(col))),
        Ask::AllBest => solver
            .best_moves_until(p, None)?
            .map(|(_, moves)| Found::Columns((0..moves.len()).filter(|&col| moves[col]).collect())),
        Ask::Analyze => match solver.analyze_until(p, None) {
            Ok(scores) => scores
                .into_iter()
                .map(Option::transpose)
                .collect::<Result<_, Stopped>>()
                .map(Found::Scores),
            Err(_) => Ok(Found::Scores(vec![None; solver.shape().width()])),
        },
    })
}

impl Solver {
    fn lock(&self) -> MutexGuard<'_, Lending> {
        self.lending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The library solver, once no other search has it; Python's signals
    /// are looked at while waiting, and `deadline` kept.
    fn lend(&self, py: Python<'_>, deadline: Option<Instant>) -> PyResult<Lent<'_>> {
        let me = std::thread::current().id();
        loop {
            let wait = py.detach(|| {
                let until = Instant::now() + MAX_CHECK;
                let until = deadline.map_or(until, |d| d.min(until));
                let mut lending = self.lock();
                loop {
                    match lending.user {
                        None => {
                            lending.user = Some(me);
                            return Wait::Got(lending.current.take());
                        }
                        Some(user) if user == me => return Wait::Mine,
                        Some(_) => {
                            let now = Instant::now();
                            if now >= until {
                                return Wait::Later;
                            }
                            lending = self
                                .returned
                                .wait_timeout(lending, until - now)
                                .unwrap_or_else(PoisonError::into_inner)
                                .0;
                        }
                    }
                }
            });
            match wait {
                Wait::Got(current) => {
                    return Ok(Lent {
                        owner: self,
                        current,
                    })
                }
                Wait::Mine => {
                    return Err(PyRuntimeError::new_err(
                        "this Solver is busy with a search in this thread: a callback \
                         cannot use the Solver that calls it (make another Solver)",
                    ))
                }
                Wait::Later if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Err(PyTimeoutError::new_err(
                        "the search did not finish within the timeout (the Solver was \
                         busy in another thread)",
                    ))
                }
                Wait::Later => py.check_signals()?,
            }
        }
    }

    fn search(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<&Dims>,
        ask: Ask,
        timeout: Option<&Seconds>,
    ) -> PyResult<Found> {
        let p = read_position(pos, board)?;
        let deadline = deadline(timeout)?;
        let mut lent = self.lend(py, deadline)?;
        search_on(self, &mut lent, py, &p, ask, deadline)
    }
}

#[pymethods]
impl Solver {
    /// A solver with a table of `table_mb` MiB, searching with `threads`
    /// threads; `book` is True (the built-in 7x6 book), False (search
    /// every position), a path to a book file, or a `Book`. The table is
    /// made here: one the system will not allocate is a MemoryError.
    #[new]
    #[pyo3(
        signature = (table_mb = Int::Fits(64), threads = Int::Fits(1), book = None),
        text_signature = "(table_mb=64, threads=1, book=True)"
    )]
    fn new(table_mb: Int, threads: Int, book: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let table_mb = count_arg("table_mb", &table_mb, 1..=score4::MAX_TABLE_MB)?;
        let threads = count_arg("threads", &threads, 1..=score4::solver::MAX_THREADS)?;
        let book = match book {
            None => BookChoice::BuiltIn,
            Some(b) => {
                if let Ok(flag) = b.extract::<bool>() {
                    if flag {
                        BookChoice::BuiltIn
                    } else {
                        BookChoice::None
                    }
                } else if let Ok(book) = b.cast::<Book>() {
                    BookChoice::File(Arc::clone(&book.get().book))
                } else if let Ok(path) = b.extract::<PathBuf>() {
                    BookChoice::File(Arc::new(RustBook::load(&path).map_err(crate::value_error)?))
                } else {
                    return Err(PyTypeError::new_err(
                        "book must be True, False, a path or a Book",
                    ));
                }
            }
        };
        // The standard board's solver is made now, so that a table too
        // large for the system is refused here, not at the first search.
        let current = make(shape_or_standard(None)?, table_mb, threads, &book)?;
        Ok(Solver {
            table_mb,
            threads,
            book,
            lending: Mutex::new(Lending {
                current: Some(current),
                user: None,
            }),
            returned: Condvar::new(),
            nodes: AtomicU64::new(0),
        })
    }

    /// The exact score of `pos` (a Position, or a move string on `board`),
    /// for the side to move. With `timeout` (seconds) raises TimeoutError
    /// if the search has not finished by then. A finished game is a
    /// ValueError.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn solve(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
    ) -> PyResult<i32> {
        match self.search(py, pos, board.as_ref(), Ask::Strong, timeout.as_ref())? {
            Found::Score(s) => Ok(s),
            _ => unreachable!("a strong solve scores"),
        }
    }

    /// Who wins: 1 (the side to move), 0 (a draw) or -1; faster than `solve`.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn solve_weak(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
    ) -> PyResult<i32> {
        match self.search(py, pos, board.as_ref(), Ask::Weak, timeout.as_ref())? {
            Found::Score(s) => Ok(s),
            _ => unreachable!("a weak solve scores"),
        }
    }

    /// The score of each move (index = 0-based column), None for a full
    /// column; every entry None once the game is over. With `timeout`,
    /// TimeoutError if not every score is found by then:
    /// `analyze_anytime` returns the bounds proven by a timeout instead.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn analyze(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
    ) -> PyResult<Vec<Option<i32>>> {
        match self.search(py, pos, board.as_ref(), Ask::Analyze, timeout.as_ref())? {
            Found::Scores(s) => Ok(s),
            _ => unreachable!("an analysis lists scores"),
        }
    }

    /// What can be proven about each move of `pos` by `timeout` (seconds;
    /// None: until every score is exact, or with `goal="best_move"` until
    /// the best move is proven), as an `Analysis`: each column's bounds,
    /// narrowing as the analysis goes on (every column's win, draw or loss
    /// first, centre first; then exact scores, the column that could still
    /// be best first). The analysis ends without an error at the timeout.
    ///
    /// `on_update(analysis)` is called with the state each time a bound
    /// narrows, and every `tick` seconds between with the progress
    /// (`nodes`, `seconds`). It runs in this thread while the search goes
    /// on without the GIL in another; an exception from it (or Ctrl-C)
    /// stops the analysis and is raised.
    #[pyo3(
        signature = (pos, board = None, timeout = None, on_update = None, tick = Seconds::Float(0.1), goal = "everything"),
        text_signature = "($self, pos, board=None, timeout=None, on_update=None, tick=0.1, goal='everything')"
    )]
    #[allow(clippy::too_many_arguments)]
    fn analyze_anytime(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
        on_update: Option<&Bound<'_, PyAny>>,
        tick: Seconds,
        goal: &str,
    ) -> PyResult<Analysis> {
        let p = read_position(pos, board.as_ref())?;
        let goal = match goal {
            "everything" => Goal::Everything,
            "best_move" => Goal::BestMove,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "bad goal '{goal}': expected 'everything' or 'best_move'"
                )))
            }
        };
        let tick = match tick.duration("tick")? {
            Some(t) if t.is_zero() => {
                return Err(PyValueError::new_err(
                    "bad tick 0: expected seconds, more than 0",
                ))
            }
            Some(t) => t,
            // One past what the clock counts never comes.
            None => Duration::MAX,
        };
        if let Some(f) = on_update {
            if !f.is_callable() {
                return Err(PyTypeError::new_err("on_update must be callable"));
            }
        }
        let ask = Anytime {
            goal,
            deadline: deadline(timeout.as_ref())?,
            tick,
            on_update,
        };
        let mut lent = self.lend(py, ask.deadline)?;
        anytime_on(self, &mut lent, py, &p, &ask)
    }

    /// A perfect move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; the centre-most of equals. A finished game is a
    /// ValueError.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn best_move(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
    ) -> PyResult<usize> {
        match self.search(py, pos, board.as_ref(), Ask::Best, timeout.as_ref())? {
            Found::Column(Some(c)) => Ok(c),
            // A game that goes on has a move.
            Found::Column(None) => Err(PyRuntimeError::new_err("no move found")),
            _ => unreachable!("a best move is a column"),
        }
    }

    /// Every perfect move (0-based columns, in order): those that keep the
    /// position's score, among which `best_move` picks the centre-most. A
    /// finished game is a ValueError.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<Seconds>,
    ) -> PyResult<Vec<usize>> {
        match self.search(py, pos, board.as_ref(), Ask::AllBest, timeout.as_ref())? {
            Found::Columns(c) => Ok(c),
            _ => unreachable!("the best moves are columns"),
        }
    }

    /// Empties the table: the next search starts from nothing, as a new
    /// solver's would (the table's memory is kept).
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        let mut lent = self.lend(py, None)?;
        // Clearing a large table takes a while: not with the GIL held.
        py.detach(|| {
            if let Some(solver) = lent.current.as_mut() {
                solver.clear_table();
            }
        });
        Ok(())
    }

    /// Positions searched by this solver since it was made or
    /// `reset_nodes()` was last called.
    #[getter]
    fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Sets `nodes` back to 0 (the table is kept: see `reset()`).
    fn reset_nodes(&self) {
        self.nodes.store(0, Ordering::Relaxed);
    }
}
