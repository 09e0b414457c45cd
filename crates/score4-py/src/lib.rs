//! score4 for Python: the library's positions, solver, books and classic
//! engine as Python classes. This crate only converts: every rule, search
//! and message is the library's.
//!
//! Columns given or returned as integers are 0-based (list indices); move
//! strings are 1-based digits, the notation of the command line. Bad input
//! raises `ValueError` in the library's words. Searches release the GIL,
//! and Ctrl-C stops them (`KeyboardInterrupt`) through the library's
//! stoppable search.

use std::any::Any;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use score4::book::{self, Book as RustBook};
use score4::classic::{self, Outcome, Request};
use score4::solver::{Player, Stopped};
use score4::{with_board_size, Board, BoardSize, SolveError, StopHandle};

type RustPosition<const W: usize, const H: usize> = score4::Position<W, H>;
type RustSolver<const W: usize, const H: usize> = score4::Solver<W, H>;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A board as Python gives it, `(width, height)`: signed, so that a
/// negative one is a ValueError naming it rather than an OverflowError.
type Dims = (i64, i64);

/// A board size from Python's `(width, height)`.
fn board_size((w, h): Dims) -> PyResult<BoardSize> {
    match (usize::try_from(w), usize::try_from(h)) {
        (Ok(w), Ok(h)) => BoardSize::new(w, h).map_err(value_error),
        _ => Err(PyValueError::new_err(format!(
            "board ({w}, {h}) is not supported: a width and a height cannot be negative"
        ))),
    }
}

/// A whole number argument in `range`, else a ValueError naming it.
fn count_arg(name: &str, value: i64, range: std::ops::RangeInclusive<usize>) -> PyResult<usize> {
    usize::try_from(value)
        .ok()
        .filter(|v| range.contains(v))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "bad {name} {value}: expected {} to {}",
                range.start(),
                range.end()
            ))
        })
}

/// The position after `moves` (0-based columns, checked when they were played).
fn position<const W: usize, const H: usize>(moves: &[u8]) -> RustPosition<W, H> {
    let mut p = RustPosition::new();
    for &c in moves {
        p.play(usize::from(c));
    }
    p
}

/// A Connect Four position: a board size and the moves played from the
/// empty board.
///
/// Integer columns are 0-based, as list indices; move strings are 1-based
/// digits, as on the command line (`"4453"`: the centre column twice, then
/// columns 5 and 3).
///
/// >>> from score4 import Position
/// >>> p = Position.from_moves("4453")
/// >>> p.moves, p.board, p.to_move
/// ('4453', (7, 6), 1)
/// >>> p.legal_moves()
/// [0, 1, 2, 3, 4, 5, 6]
/// >>> q = p.copy(); q.play(2); q.moves
/// '44533'
/// >>> p == Position("4453")
/// True
#[pyclass(module = "score4", from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Position {
    size: BoardSize,
    moves: Vec<u8>,
}

fn check_moves<const W: usize, const H: usize>(text: &str) -> PyResult<Vec<u8>> {
    RustPosition::<W, H>::parse(text).map_err(value_error)?;
    Ok(text.bytes().map(|b| b - b'1').collect())
}

fn legal<const W: usize, const H: usize>(moves: &[u8]) -> Vec<usize> {
    position::<W, H>(moves).playable_columns().collect()
}

fn winning_move<const W: usize, const H: usize>(moves: &[u8], col: usize) -> bool {
    let p = position::<W, H>(moves);
    !p.is_game_over() && p.can_play(col) && p.is_winning_move(col)
}

fn wins_next<const W: usize, const H: usize>(moves: &[u8]) -> bool {
    let p = position::<W, H>(moves);
    !p.is_game_over() && p.can_win_next()
}

fn over<const W: usize, const H: usize>(moves: &[u8]) -> bool {
    position::<W, H>(moves).is_game_over()
}

fn has_won<const W: usize, const H: usize>(moves: &[u8]) -> bool {
    position::<W, H>(moves).opponent_has_won()
}

fn array<const W: usize, const H: usize>(moves: &[u8]) -> Vec<Vec<u32>> {
    let p = position::<W, H>(moves);
    let first = p.first_player();
    let all = p.occupied();
    (0..H)
        .rev()
        .map(|row| {
            (0..W)
                .map(|col| {
                    let cell = score4::Geometry::<W, H>::cell(col, row);
                    if !all.contains(cell) {
                        0
                    } else if first.contains(cell) {
                        1
                    } else {
                        2
                    }
                })
                .collect()
        })
        .collect()
}

fn drawing<const W: usize, const H: usize>(moves: &[u8]) -> String {
    position::<W, H>(moves).to_string()
}

impl Position {
    fn width(&self) -> usize {
        self.size.width()
    }

    fn to_move_player(&self) -> Player {
        Player::after_moves(self.moves.len() as u32)
    }

    fn column(&self, col: i64) -> PyResult<usize> {
        usize::try_from(col)
            .ok()
            .filter(|&c| c < self.width())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "column {col} is out of range 0..{} (Python columns are 0-based)",
                    self.width() - 1
                ))
            })
    }
}

/// The arguments that make a Position again: its moves and board.
type Remade = (String, (usize, usize));

#[pymethods]
impl Position {
    /// The position after `moves` (1-based column digits) on a board of
    /// `board = (width, height)`.
    #[new]
    #[pyo3(signature = (moves = "", board = (7, 6)))]
    fn new(moves: &str, board: Dims) -> PyResult<Self> {
        let size = board_size(board)?;
        let moves = with_board_size!(size, check_moves(moves))?;
        Ok(Position { size, moves })
    }

    /// The same as `Position(moves, board)`.
    #[staticmethod]
    #[pyo3(signature = (moves, board = (7, 6)))]
    fn from_moves(moves: &str, board: Dims) -> PyResult<Self> {
        Self::new(moves, board)
    }

    /// `(width, height)`.
    #[getter]
    fn board(&self) -> (usize, usize) {
        (self.size.width(), self.size.height())
    }

    /// The moves played, as 1-based column digits.
    #[getter]
    fn moves(&self) -> String {
        self.moves.iter().map(|&c| char::from(b'1' + c)).collect()
    }

    /// How many discs are on the board.
    #[getter]
    fn moves_played(&self) -> usize {
        self.moves.len()
    }

    /// The player to move: 1 (who moved first) or 2.
    #[getter]
    fn to_move(&self) -> u8 {
        match self.to_move_player() {
            Player::First => 1,
            Player::Second => 2,
        }
    }

    /// Drops a disc of the side to move in column `col` (0-based).
    ///
    /// >>> p = Position("44"); p.play(2); p.moves
    /// '443'
    fn play(&mut self, col: i64) -> PyResult<()> {
        let col = self.column(col)?;
        let mut text = self.moves();
        text.push(char::from(b'1' + col as u8));
        self.moves = with_board_size!(self.size, check_moves(&text))?;
        Ok(())
    }

    /// The columns (0-based) a disc can be dropped in; none once the game is over.
    fn legal_moves(&self) -> Vec<usize> {
        if self.is_game_over() {
            return Vec::new();
        }
        with_board_size!(self.size, legal(&self.moves))
    }

    /// Whether column `col` (0-based) has room and the game goes on.
    fn can_play(&self, col: i64) -> PyResult<bool> {
        let col = self.column(col)?;
        Ok(self.legal_moves().contains(&col))
    }

    /// Whether a disc in column `col` (0-based) makes four at once.
    ///
    /// >>> Position("445566").is_winning_move(6)
    /// True
    fn is_winning_move(&self, col: i64) -> PyResult<bool> {
        let col = self.column(col)?;
        Ok(with_board_size!(self.size, winning_move(&self.moves, col)))
    }

    /// Whether the side to move can make four with its next disc.
    fn can_win_next(&self) -> bool {
        with_board_size!(self.size, wins_next(&self.moves))
    }

    /// Whether someone has four in a row or the board is full.
    fn is_game_over(&self) -> bool {
        with_board_size!(self.size, over(&self.moves))
    }

    /// 1 or 2 for the player with four in a row; None while the game goes
    /// on and for a draw.
    fn winner(&self) -> Option<u8> {
        with_board_size!(self.size, has_won(&self.moves)).then(|| match self.to_move_player() {
            Player::First => 2,
            Player::Second => 1,
        })
    }

    /// The board as rows of cells, the top row first: 0 empty, 1 the first
    /// player's disc, 2 the second's.
    ///
    /// >>> Position("44", board=(4, 4)).to_array()
    /// [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 0, 1]]
    fn to_array(&self) -> Vec<Vec<u32>> {
        with_board_size!(self.size, array(&self.moves))
    }

    /// The position seen in a mirror: column `c` becomes `width - 1 - c`.
    ///
    /// >>> Position("12").mirror().moves
    /// '76'
    fn mirror(&self) -> Position {
        let w = self.width() as u8;
        Position {
            size: self.size,
            moves: self.moves.iter().map(|&c| w - 1 - c).collect(),
        }
    }

    /// An independent copy.
    fn copy(&self) -> Position {
        self.clone()
    }

    fn __copy__(&self) -> Position {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Position {
        self.clone()
    }

    /// Pickled as the call that makes it again: `Position(moves, board)`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Remade)> {
        let class = py.get_type::<Position>().into_any();
        Ok((class, (self.moves(), self.board())))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.extract::<Position>().is_ok_and(|o| o == *self)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }

    fn __str__(&self) -> String {
        with_board_size!(self.size, drawing(&self.moves))
    }

    fn __repr__(&self) -> String {
        format!(
            "Position('{}', board=({}, {}))",
            self.moves(),
            self.size.width(),
            self.size.height()
        )
    }
}

/// A position given as a `Position`, or as a move string on `board`.
fn read_position(pos: &Bound<'_, PyAny>, board: Option<Dims>) -> PyResult<Position> {
    // A string first, without building the error a failed extraction makes:
    // on end-game positions that would cost more than the search.
    if let Ok(text) = pos.cast::<PyString>() {
        return Position::new(&text.to_cow()?, board.unwrap_or((7, 6)));
    }
    if let Ok(p) = pos.extract::<Position>() {
        if board.is_some_and(|b| board_size(b).ok() != Some(p.size)) {
            return Err(PyValueError::new_err(
                "board= disagrees with the Position's own board",
            ));
        }
        return Ok(p);
    }
    match pos.extract::<String>() {
        Ok(moves) => Position::new(&moves, board.unwrap_or((7, 6))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected a Position or a move string such as \"4453\", not {}",
            pos.get_type().name()?
        ))),
    }
}

/// An opening book: the exact score of every position with at most
/// `depth` moves on one board.
#[pyclass(module = "score4", frozen)]
struct Book {
    book: Arc<RustBook>,
}

fn book_score<const W: usize, const H: usize>(book: &RustBook, moves: &[u8]) -> Option<i32> {
    book.score(&position::<W, H>(moves))
}

#[pymethods]
impl Book {
    /// Reads a book file (as `score4 book build` writes), checked whole.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Book> {
        let book = RustBook::load(&path).map_err(value_error)?;
        Ok(Book {
            book: Arc::new(book),
        })
    }

    /// Builds the book of every position with at most `depth` moves on
    /// `board`, saves it at `path` and returns it. `progress`, if given, is
    /// called as `progress(done, total)` as the leaves are solved. A build
    /// stopped (by Ctrl-C, say) resumes from `path + ".partial"`.
    #[staticmethod]
    #[pyo3(signature = (path, depth, board = (7, 6), threads = 1, table_mb = 64, progress = None))]
    fn build(
        py: Python<'_>,
        path: PathBuf,
        depth: i64,
        board: Dims,
        threads: i64,
        table_mb: i64,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Book> {
        let options = book::build::Options {
            size: board_size(board)?,
            depth: count_arg("depth", depth, 0..=u32::MAX as usize)? as u32,
            share: None,
            threads: count_arg("threads", threads, 1..=score4::solver::MAX_THREADS)?,
            table_mb: count_arg("table_mb", table_mb, 1..=score4::MAX_TABLE_MB)?,
            out: path,
        };
        // Ctrl-C and an exception from `progress` stop the build at the
        // next position solved; what it solved stays in its checkpoint.
        // Without a callback the GIL is taken only now and then, not for
        // each of what may be millions of positions.
        let mut failed: Option<PyErr> = None;
        let mut looked = Instant::now();
        let built = py.detach(|| {
            book::build::build_stoppable(&options, |p| {
                if progress.is_none() && looked.elapsed() < FIRST_CHECK {
                    return ControlFlow::Continue(());
                }
                looked = Instant::now();
                let result = Python::attach(|py| {
                    py.check_signals()?;
                    match &progress {
                        Some(cb) => cb.call1(py, (p.done, p.total)).map(drop),
                        None => Ok(()),
                    }
                });
                match result {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        failed.get_or_insert(e);
                        ControlFlow::Break(())
                    }
                }
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let built = built.map_err(value_error)?;
        Ok(Book {
            book: Arc::new(built.book),
        })
    }

    /// `(width, height)` of the book's board.
    #[getter]
    fn board(&self) -> (usize, usize) {
        (self.book.size().width(), self.book.size().height())
    }

    /// The most moves a position in the book has.
    #[getter]
    fn depth(&self) -> u32 {
        self.book.depth()
    }

    fn __len__(&self) -> usize {
        self.book.len()
    }

    /// The exact score of `pos` if the book holds it, else None.
    #[pyo3(signature = (pos, board = None))]
    fn score(&self, pos: &Bound<'_, PyAny>, board: Option<Dims>) -> PyResult<Option<i32>> {
        // A move string is on the book's board unless `board` says
        // otherwise; a Position is on its own.
        let board = match board {
            None if pos.is_instance_of::<PyString>() => {
                let (w, h) = self.board();
                Some((w as i64, h as i64))
            }
            board => board,
        };
        let p = read_position(pos, board)?;
        if p.size != self.book.size() {
            return Err(PyValueError::new_err(format!(
                "the book is for {}, not {}",
                self.book.size(),
                p.size
            )));
        }
        Ok(with_board_size!(p.size, book_score(&self.book, &p.moves)))
    }

    fn __repr__(&self) -> String {
        format!(
            "<score4.Book of {}, depth {}, {} positions>",
            self.book.size(),
            self.book.depth(),
            self.book.len()
        )
    }
}

/// Which book a solver answers from.
#[derive(Clone)]
enum BookChoice {
    BuiltIn,
    None,
    File(Arc<RustBook>),
}

/// The perfect solver. One per thread: a Solver searches one position at a
/// time (solvers in different threads search at once: the GIL is released).
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
/// >>> solver.solve("33", board=(5, 4))
/// 0
#[pyclass(module = "score4")]
struct Solver {
    table_mb: usize,
    threads: usize,
    book: BookChoice,
    /// The solver of the board last asked about, made on first use.
    current: Option<(BoardSize, Box<dyn Any + Send + Sync>)>,
    nodes: u64,
}

/// What a search is asked.
#[derive(Clone, Copy)]
enum Ask {
    Strong,
    Weak,
    Analyze,
    Best,
}

/// A search's answer.
enum Found {
    Score(i32),
    Scores(Vec<Option<i32>>),
    Column(Option<usize>),
}

/// Searches in flight, each with the moment its stop handle is to be
/// pulled, watched by one thread for the whole module: the search runs in
/// the calling thread without the GIL (no thread is started per call, which
/// would cost more than a whole end-game solve), and is stopped now and
/// then so that its caller can take the GIL back and let Python see a
/// pending signal (Ctrl-C) before it goes on from where the table left it.
struct Watches {
    next_id: u64,
    due: Vec<(u64, StopHandle, Instant)>,
}

static WATCHES: Mutex<Watches> = Mutex::new(Watches {
    next_id: 0,
    due: Vec::new(),
});
/// The process whose watcher runs: a child made by `fork` inherits the
/// statics but not the thread, so it starts its own.
static WATCHER_PID: AtomicU32 = AtomicU32::new(0);
/// Wakes the watcher when a search is added.
static WAKE: Condvar = Condvar::new();

/// The first look at the signals comes this soon into a search, the later
/// ones ever further apart, up to [`MAX_CHECK`]: a short search is never
/// stopped, a long one restarts from its table a few times a second.
const FIRST_CHECK: Duration = Duration::from_millis(50);
const MAX_CHECK: Duration = Duration::from_millis(200);

fn watches() -> std::sync::MutexGuard<'static, Watches> {
    WATCHES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The watcher: stops each search when it is due, and sleeps until the
/// next one is (or until a search is added), never polling.
fn watcher() {
    let mut w = watches();
    loop {
        let now = Instant::now();
        for (_, handle, at) in &w.due {
            if now >= *at {
                handle.stop();
            }
        }
        // A search already stopped stays listed until its caller takes it off.
        let next = w
            .due
            .iter()
            .map(|(_, _, at)| *at)
            .filter(|at| *at > now)
            .min();
        w = match next {
            None => WAKE
                .wait(w)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            Some(at) => {
                WAKE.wait_timeout(w, at - now)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0
            }
        };
    }
}

fn watch(handle: &StopHandle, at: Instant) -> u64 {
    let pid = std::process::id();
    if WATCHER_PID.swap(pid, Ordering::SeqCst) != pid {
        let _ = std::thread::Builder::new()
            .name("score4-watch".into())
            .spawn(watcher);
    }
    let mut w = watches();
    w.next_id += 1;
    let id = w.next_id;
    w.due.push((id, handle.clone(), at));
    WAKE.notify_one();
    id
}

fn unwatch(id: u64) {
    watches().due.retain(|(i, _, _)| *i != id);
}

fn search_on<const W: usize, const H: usize>(
    this: &mut Solver,
    py: Python<'_>,
    moves: &[u8],
    ask: Ask,
    timeout: Option<f64>,
) -> PyResult<Found> {
    let p = position::<W, H>(moves);
    if !matches!(ask, Ask::Analyze) {
        SolveError::check(&p).map_err(value_error)?;
    }
    let size = BoardSize::of::<W, H>();
    if this.current.as_ref().is_none_or(|(s, _)| *s != size) {
        // The old table goes before the new one is made.
        this.current = None;
        let mut solver =
            RustSolver::<W, H>::try_with_table_mb(this.table_mb).map_err(value_error)?;
        solver.set_threads(this.threads);
        match &this.book {
            BookChoice::BuiltIn => {}
            BookChoice::None => solver.drop_book(),
            BookChoice::File(book) if book.size() == size => {
                solver.use_book(Arc::clone(book)).map_err(value_error)?
            }
            BookChoice::File(_) => solver.drop_book(),
        }
        this.current = Some((size, Box::new(solver)));
    }
    let solver = this
        .current
        .as_mut()
        .and_then(|(_, s)| s.downcast_mut::<RustSolver<W, H>>())
        .ok_or_else(|| PyRuntimeError::new_err("no solver for this board"))?;
    let deadline = match timeout {
        None => None,
        // A timeout past what the clock can count never comes.
        Some(t) if t.is_finite() && t >= 0.0 => Duration::try_from_secs_f64(t)
            .ok()
            .and_then(|d| Instant::now().checked_add(d)),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "bad timeout {t}: expected seconds, 0 or more"
            )))
        }
    };
    let handle = solver.stop_handle();
    let before = solver.nodes();
    let mut interval = FIRST_CHECK;
    let result = loop {
        handle.resume();
        let check = Instant::now() + interval;
        let id = watch(&handle, deadline.map_or(check, |d| d.min(check)));
        let found = py.detach(|| run(solver, &p, ask));
        unwatch(id);
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
    this.nodes += solver.nodes().wrapping_sub(before);
    result
}

/// One search, stoppable by the solver's handle.
fn run<const W: usize, const H: usize>(
    solver: &mut RustSolver<W, H>,
    p: &RustPosition<W, H>,
    ask: Ask,
) -> Result<Found, Stopped> {
    Ok(match ask {
        Ask::Strong => Found::Score(solver.solve_until(p, None)?),
        Ask::Weak => Found::Score(solver.solve_weak_until(p, None)?),
        Ask::Best => Found::Column(solver.best_move_until(p, None)?),
        Ask::Analyze => Found::Scores(
            solver
                .analyze_until(p, None)
                .into_iter()
                .map(Option::transpose)
                .collect::<Result<_, Stopped>>()?,
        ),
    })
}

impl Solver {
    fn search(
        &mut self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        ask: Ask,
        timeout: Option<f64>,
    ) -> PyResult<Found> {
        let p = read_position(pos, board)?;
        with_board_size!(p.size, search_on(self, py, &p.moves, ask, timeout))
    }
}

#[pymethods]
impl Solver {
    /// A solver with a table of `table_mb` MiB, searching with `threads`
    /// threads; `book` is True (the built-in 7x6 book), False (search
    /// every position), a path to a book file, or a `Book`.
    #[new]
    #[pyo3(signature = (table_mb = 64, threads = 1, book = None))]
    fn new(table_mb: i64, threads: i64, book: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let table_mb = count_arg("table_mb", table_mb, 1..=score4::MAX_TABLE_MB)?;
        let threads = count_arg("threads", threads, 1..=score4::solver::MAX_THREADS)?;
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
                    BookChoice::File(Arc::new(RustBook::load(&path).map_err(value_error)?))
                } else {
                    return Err(PyTypeError::new_err(
                        "book must be True, False, a path or a Book",
                    ));
                }
            }
        };
        Ok(Solver {
            table_mb,
            threads,
            book,
            current: None,
            nodes: 0,
        })
    }

    /// The exact score of `pos` (a Position, or a move string on `board`),
    /// for the side to move. With `timeout` (seconds) raises TimeoutError
    /// if the search has not finished by then.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn solve(
        &mut self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<f64>,
    ) -> PyResult<i32> {
        match self.search(py, pos, board, Ask::Strong, timeout)? {
            Found::Score(s) => Ok(s),
            _ => unreachable!("a strong solve scores"),
        }
    }

    /// Who wins: 1 (the side to move), 0 (a draw) or -1; faster than `solve`.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn solve_weak(
        &mut self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<f64>,
    ) -> PyResult<i32> {
        match self.search(py, pos, board, Ask::Weak, timeout)? {
            Found::Score(s) => Ok(s),
            _ => unreachable!("a weak solve scores"),
        }
    }

    /// The score of each move (index = 0-based column), None for a full
    /// column; every entry None once the game is over.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn analyze(
        &mut self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<f64>,
    ) -> PyResult<Vec<Option<i32>>> {
        match self.search(py, pos, board, Ask::Analyze, timeout)? {
            Found::Scores(s) => Ok(s),
            _ => unreachable!("an analysis lists scores"),
        }
    }

    /// A perfect move (0-based column): the fastest win, else a draw, else
    /// the slowest loss; the centre-most of equals.
    #[pyo3(signature = (pos, board = None, timeout = None))]
    fn best_move(
        &mut self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        board: Option<Dims>,
        timeout: Option<f64>,
    ) -> PyResult<Option<usize>> {
        match self.search(py, pos, board, Ask::Best, timeout)? {
            Found::Column(c) => Ok(c),
            _ => unreachable!("a best move is a column"),
        }
    }

    /// Empties the table: the next search starts from nothing, as a new
    /// solver's would (the table's memory is kept).
    fn reset(&mut self) {
        fn clear<const W: usize, const H: usize>(solver: &mut (dyn Any + Send + Sync)) {
            if let Some(s) = solver.downcast_mut::<RustSolver<W, H>>() {
                s.clear_table();
            }
        }
        if let Some((size, solver)) = self.current.as_mut() {
            with_board_size!(*size, clear(solver.as_mut()));
        }
    }

    /// Positions searched by this solver so far.
    #[getter]
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The classic Score4 engine's move on the 7x6 board given by `cells`
/// (tokens such as `"o53"`: colour, row from the top, column; the engine
/// plays `o`), searching `level` plies: the column (0-based) that
/// `engine o53 y43 -level N` prints, or None when the game is over.
///
/// >>> from score4 import engine_move
/// >>> engine_move(["o53", "y43"], level=7)
/// 5
#[pyfunction]
#[pyo3(signature = (cells, level = 7))]
fn engine_move(py: Python<'_>, cells: Vec<String>, level: i64) -> PyResult<Option<usize>> {
    let level = count_arg("level", level, 1..=classic::MAX_LEVEL as usize)? as u32;
    // Cells only: the protocol's flags and its skipping of other tokens
    // belong to the command line, not to a list of cells.
    let request = Request {
        board: Board::from_cells(&cells).map_err(value_error)?,
        level,
        debug: false,
        perfect: false,
    };
    // The search runs on a thread of its own, so that this one can take
    // the GIL now and then and let Python see Ctrl-C, which stops it.
    let handle = StopHandle::default();
    let (tx, rx) = std::sync::mpsc::channel();
    // Behind a lock only so that the wait can leave the GIL.
    let rx = Mutex::new(rx);
    let answer = std::thread::scope(|scope| {
        let search = || {
            let found = classic::Search::try_for_level(level)
                .map(|mut s| s.answer_until(&request.board, level, false, &handle));
            let _ = tx.send(found);
        };
        scope.spawn(search);
        loop {
            let wait = || {
                rx.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .recv_timeout(MAX_CHECK)
            };
            match py.detach(wait) {
                Ok(found) => break found,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        // The scope waits for the thread, which stops at once.
                        handle.stop();
                        return Err(e);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err("the engine's search failed"));
                }
            }
        }
        .map_err(value_error)?
        .map_err(|_| PyRuntimeError::new_err("the engine's search was stopped"))
    })?;
    Ok(match answer.outcome {
        Outcome::Move { column, .. } => Some(column),
        Outcome::YouWin | Outcome::IWin | Outcome::NoMove => None,
    })
}

/// The board sizes supported, as `(width, height)`.
#[pyfunction]
fn board_sizes() -> Vec<(usize, usize)> {
    BoardSize::all().map(|s| (s.width(), s.height())).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Position>()?;
    m.add_class::<Solver>()?;
    m.add_class::<Book>()?;
    m.add_function(wrap_pyfunction!(engine_move, m)?)?;
    m.add_function(wrap_pyfunction!(board_sizes, m)?)?;
    Ok(())
}
