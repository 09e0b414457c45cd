//! Connect Four (Score4) on bitboards: a position model, a drop-in
//! replacement for the classic Score4 engine, and a perfect solver.
//!
//! Read it top-down:
//! - [`bitboard`]: the bit layout every other module derives its masks from.
//! - [`position`]: a position as two bitboards, the move notation, keys and mirrors.
//! - [`score`]: what a score means: who wins, and with which disc.
//! - [`board`]: the Score4 engine's two-colour board and its cell tokens.
//! - [`render`](mod@render): both boards drawn as the Score4 console driver draws them.
//! - [`heuristic`]: the classic engine's static evaluation on bitboards.
//! - [`classic`]: the classic engine: its protocol (request, answer, exit
//!   status) and its depth-limited search.
//! - [`error`]: what can be wrong with user input, and why a position
//!   cannot be solved.
//! - [`input`]: reading untrusted text: capped lines, and user text
//!   quoted safely in messages.
//! - [`solver`]: the perfect solver, over its transposition table
//!   ([`solver::table`]), in memory from `mem`.
//! - [`split`]: a strong solve split into searches near the root, kept on
//!   disk: resumed after a kill, or shared over machines.
//! - [`size`]: board sizes chosen at run time, and reaching the code
//!   compiled for each.
//! - [`wide`]: every other board up to 128 bits, its size as data: shape,
//!   notation, position and solver.
//! - [`book`]: the opening book: exact scores of every early position,
//!   its file, and how it is built.
//! - [`fixture`] and [`bench`](mod@bench): labelled position sets and timing them.
//! - [`rng`]: a small seeded generator, for samples that can be repeated.
//! - [`game`] and [`play`]: a game with undo and redo, and the opponents
//!   that every face of the game offers.
//!
//! ```
//! use score4::Position;
//! let p: Position = "4453".parse().unwrap();
//! assert!(!p.can_win_next());
//! ```

#![warn(missing_docs)]

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod book;
mod checksum;
pub mod classic;
pub mod clock;
pub mod error;
pub mod fixture;
pub mod game;
pub mod heuristic;
pub mod input;
pub mod layout;
mod mem;
pub mod play;
pub mod position;
pub mod render;
pub mod rng;
pub mod score;
pub mod size;
pub mod solver;
pub mod split;
pub mod wide;

pub use bitboard::{Bitboard, Geometry};
pub use board::{Board, Colour};
pub use error::ParseError;
pub use error::SolveError;
pub use mem::TableError;
pub use position::Ending;
pub use position::Position;
pub use size::{BoardSize, SizeError};
pub use solver::{
    default_table_mb, Analysis, Goal, Probe, Proven, ScoreRange, Solver, StopHandle, Stopped,
    DEFAULT_SHARED_TABLE_MB, DEFAULT_TABLE_MB, MAX_PROBES, MAX_TABLE_MB,
};
