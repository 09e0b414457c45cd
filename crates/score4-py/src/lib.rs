//! score4 for Python: the library's positions, solver, books and classic
//! engine as Python classes. This crate only converts: every rule, search
//! and message is the library's.
//!
//! Columns given or returned as integers are 0-based (list indices); move
//! strings are 1-based digits, the notation of the command line. Bad input
//! raises `ValueError` in the library's words. Searches release the GIL,
//! and Ctrl-C stops them (`KeyboardInterrupt`) through the library's
//! stoppable search. The anytime analysis (`Solver.analyze_anytime`)
//! returns what it proved by a timeout, and calls its Python callback on
//! the calling thread, taking the GIL only for it, while the library
//! searches on a thread of its own.

mod analysis;
mod args;
mod solver;
mod watch;

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use score4::book::{self, Book as RustBook};
use score4::classic::{self, Outcome, Request};
use score4::solver::Player;
use score4::wide::{notation, Position as WidePosition, Shape};
use score4::{Board, StopHandle};

use args::{count_arg, shape, Dims, Int};
use solver::Solver;
use watch::{FIRST_CHECK, MAX_CHECK};

pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The standard board, where an argument gives none.
pub(crate) const STANDARD: (usize, usize) = (7, 6);

/// The column a 0-based index names, as a move string writes it.
fn move_char(col: u8) -> char {
    notation::character(usize::from(col) + 1).unwrap_or('?')
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
#[derive(Clone)]
pub(crate) struct Position {
    pub(crate) shape: Shape,
    /// The moves played, 0-based columns.
    pub(crate) moves: Vec<u8>,
    /// The position they reach.
    pub(crate) reached: WidePosition,
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.shape == other.shape && self.moves == other.moves
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<Hs: std::hash::Hasher>(&self, h: &mut Hs) {
        (self.shape.width(), self.shape.height(), &self.moves).hash(h);
    }
}

impl Position {
    fn parse(moves: &str, shape: Shape) -> PyResult<Self> {
        let reached = WidePosition::parse(&shape, moves).map_err(value_error)?;
        // Every character named a column once the parse succeeded.
        let moves = moves
            .chars()
            .filter_map(notation::column)
            .map(|c| c as u8 - 1)
            .collect();
        Ok(Position {
            shape,
            moves,
            reached,
        })
    }

    fn width(&self) -> usize {
        self.shape.width()
    }

    fn to_move_player(&self) -> Player {
        Player::after_moves(self.moves.len() as u32)
    }

    fn column(&self, col: &Int) -> PyResult<usize> {
        col.to_usize().filter(|&c| c < self.width()).ok_or_else(|| {
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
    #[pyo3(signature = (moves = "", board = None), text_signature = "(moves='', board=(7, 6))")]
    fn new(moves: &str, board: Option<Dims>) -> PyResult<Self> {
        Position::parse(moves, shape_or_standard(board.as_ref())?)
    }

    /// The same as `Position(moves, board)`.
    #[staticmethod]
    #[pyo3(signature = (moves, board = None), text_signature = "(moves, board=(7, 6))")]
    fn from_moves(moves: &str, board: Option<Dims>) -> PyResult<Self> {
        Self::new(moves, board)
    }

    /// `(width, height)`.
    #[getter]
    fn board(&self) -> (usize, usize) {
        (self.shape.width(), self.shape.height())
    }

    /// The moves played, as 1-based column digits (`a` to `g` for columns
    /// 10 to 16).
    #[getter]
    fn moves(&self) -> String {
        self.moves.iter().map(|&c| move_char(c)).collect()
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
    fn play(&mut self, col: Int) -> PyResult<()> {
        let col = self.column(&col)?;
        let mut text = self.moves();
        text.push(move_char(col as u8));
        *self = Position::parse(&text, self.shape)?;
        Ok(())
    }

    /// The columns (0-based) a disc can be dropped in; none once the game is over.
    fn legal_moves(&self) -> Vec<usize> {
        if self.is_game_over() {
            return Vec::new();
        }
        (0..self.width())
            .filter(|&col| self.reached.can_play(&self.shape, col))
            .collect()
    }

    /// Whether column `col` (0-based) has room and the game goes on.
    fn can_play(&self, col: Int) -> PyResult<bool> {
        let col = self.column(&col)?;
        Ok(self.legal_moves().contains(&col))
    }

    /// Whether a disc in column `col` (0-based) makes four at once.
    ///
    /// >>> Position("445566").is_winning_move(6)
    /// True
    fn is_winning_move(&self, col: Int) -> PyResult<bool> {
        let col = self.column(&col)?;
        let (p, shape) = (&self.reached, &self.shape);
        Ok(p.ending(shape).is_none() && p.can_play(shape, col) && p.is_winning_move(shape, col))
    }

    /// Whether the side to move can make four with its next disc.
    fn can_win_next(&self) -> bool {
        self.reached.ending(&self.shape).is_none() && self.reached.can_win_next(&self.shape)
    }

    /// Whether someone has four in a row or the board is full.
    fn is_game_over(&self) -> bool {
        self.reached.ending(&self.shape).is_some()
    }

    /// 1 or 2 for the player with four in a row; None while the game goes
    /// on and for a draw.
    fn winner(&self) -> Option<u8> {
        let won = self.reached.opponent_has_won(&self.shape);
        won.then(|| match self.to_move_player() {
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
        let (first, all) = (self.reached.first_player(), self.reached.occupied());
        (0..self.shape.height())
            .rev()
            .map(|row| {
                (0..self.width())
                    .map(|col| {
                        let cell = self.shape.cell(col, row);
                        if all & cell == 0 {
                            0
                        } else if first & cell != 0 {
                            1
                        } else {
                            2
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The position seen in a mirror: column `c` becomes `width - 1 - c`.
    ///
    /// >>> Position("12").mirror().moves
    /// '76'
    fn mirror(&self) -> Position {
        let w = self.width() as u8;
        Position {
            shape: self.shape,
            moves: self.moves.iter().map(|&c| w - 1 - c).collect(),
            reached: self.reached.mirror(&self.shape),
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
        self.reached.drawing(&self.shape).to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position('{}', board=({}, {}))",
            self.moves(),
            self.shape.width(),
            self.shape.height()
        )
    }
}

/// The board `board` names, the standard one if none.
pub(crate) fn shape_or_standard(board: Option<&Dims>) -> PyResult<Shape> {
    match board {
        Some(b) => shape(b),
        None => Shape::new(STANDARD.0, STANDARD.1).map_err(value_error),
    }
}

/// A position given as a `Position`, or as a move string on `board`.
pub(crate) fn read_position(pos: &Bound<'_, PyAny>, board: Option<&Dims>) -> PyResult<Position> {
    // A string first, without building the error a failed extraction makes:
    // on end-game positions that would cost more than the search.
    if let Ok(text) = pos.cast::<PyString>() {
        return Position::parse(&text.to_cow()?, shape_or_standard(board)?);
    }
    if let Ok(p) = pos.extract::<Position>() {
        if board.is_some_and(|b| shape(b).ok() != Some(p.shape)) {
            return Err(PyValueError::new_err(
                "board= disagrees with the Position's own board",
            ));
        }
        return Ok(p);
    }
    match pos.extract::<String>() {
        Ok(moves) => Position::parse(&moves, shape_or_standard(board)?),
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected a Position or a move string such as \"4453\", not {}",
            pos.get_type().name()?
        ))),
    }
}

/// An opening book: the exact score of every position with at most
/// `depth` moves on one board.
#[pyclass(module = "score4", frozen)]
pub(crate) struct Book {
    pub(crate) book: Arc<RustBook>,
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
    #[pyo3(
        signature = (path, depth, board = None, threads = Int::Fits(1), table_mb = Int::Fits(64), progress = None),
        text_signature = "(path, depth, board=(7, 6), threads=1, table_mb=64, progress=None)"
    )]
    fn build(
        py: Python<'_>,
        path: PathBuf,
        depth: Int,
        board: Option<Dims>,
        threads: Int,
        table_mb: Int,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Book> {
        let options = book::build::Options {
            shape: shape_or_standard(board.as_ref())?,
            depth: count_arg("depth", &depth, 0..=u32::MAX as usize)? as u32,
            share: None,
            threads: count_arg("threads", &threads, 1..=score4::solver::MAX_THREADS)?,
            table_mb: count_arg("table_mb", &table_mb, 1..=score4::MAX_TABLE_MB)?,
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
        (self.book.shape().width(), self.book.shape().height())
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
        let p = match board {
            None if pos.is_instance_of::<PyString>() => {
                Position::parse(&pos.cast::<PyString>()?.to_cow()?, *self.book.shape())?
            }
            board => read_position(pos, board.as_ref())?,
        };
        if p.shape != *self.book.shape() {
            return Err(PyValueError::new_err(format!(
                "the book is for {}, not {}",
                self.book.shape(),
                p.shape
            )));
        }
        Ok(self.book.score_as_data(&p.shape, &p.reached))
    }

    fn __repr__(&self) -> String {
        format!(
            "<score4.Book of {}, depth {}, {} positions>",
            self.book.shape(),
            self.book.depth(),
            self.book.len()
        )
    }
}

/// The cells `engine_move` is given: a list (or any sequence) of cell
/// strings, or one string of them separated by spaces, as on the command
/// line.
fn read_cells(cells: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = cells.cast::<PyString>() {
        return Ok(text
            .to_cow()?
            .split_whitespace()
            .map(str::to_owned)
            .collect());
    }
    cells.extract::<Vec<String>>().map_err(|_| {
        let name = cells
            .get_type()
            .name()
            .map_or_else(|_| "that".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!(
            "cells must be a list of cell strings such as [\"o53\", \"y43\"], or one string \"o53 y43\", not {name}"
        ))
    })
}

/// The classic Score4 engine's move on the 7x6 board given by `cells`
/// (tokens such as `"o53"`: colour, row from the top, column; the engine
/// plays `o`), searching `level` plies: the column (0-based) that
/// `engine o53 y43 -level N` prints, or None when the game is over.
/// `cells` is a list of cell strings, or one string of them separated by
/// spaces.
///
/// >>> from score4 import engine_move
/// >>> engine_move(["o53", "y43"], level=7)
/// 5
/// >>> engine_move("o53 y43", level=7)
/// 5
#[pyfunction]
#[pyo3(signature = (cells, level = Int::Fits(7)), text_signature = "(cells, level=7)")]
fn engine_move(py: Python<'_>, cells: &Bound<'_, PyAny>, level: Int) -> PyResult<Option<usize>> {
    let cells = read_cells(cells)?;
    let level = count_arg("level", &level, 1..=classic::MAX_LEVEL as usize)? as u32;
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
    Shape::all().map(|s| (s.width(), s.height())).collect()
}

/// How this module was built: the compiler, and the x86-64 features its
/// code may use.
#[pyfunction]
fn _build_info() -> (&'static str, Vec<&'static str>) {
    let features = [
        ("avx", cfg!(target_feature = "avx")),
        ("avx2", cfg!(target_feature = "avx2")),
        ("bmi1", cfg!(target_feature = "bmi1")),
        ("bmi2", cfg!(target_feature = "bmi2")),
        ("f16c", cfg!(target_feature = "f16c")),
        ("fma", cfg!(target_feature = "fma")),
        ("lzcnt", cfg!(target_feature = "lzcnt")),
        ("movbe", cfg!(target_feature = "movbe")),
        ("popcnt", cfg!(target_feature = "popcnt")),
    ];
    let on = features.iter().filter(|(_, on)| *on).map(|(f, _)| *f);
    (env!("SCORE4_RUSTC"), on.collect())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_build_info, m)?)?;
    m.add_class::<Position>()?;
    m.add_class::<Solver>()?;
    m.add_class::<Book>()?;
    m.add_class::<analysis::Analysis>()?;
    m.add_function(wrap_pyfunction!(engine_move, m)?)?;
    m.add_function(wrap_pyfunction!(board_sizes, m)?)?;
    Ok(())
}
