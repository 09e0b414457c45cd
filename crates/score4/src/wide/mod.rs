//! Boards of any size up to 128 bits, chosen at run time: widths 4 to 16,
//! and heights as far as `width * (height + 1) <= 128` allows.
//!
//! The sizes that fit 64 bits and nine columns are compiled one by one
//! (see [`size`](crate::size)); compiling every size up to 128 bits that
//! way would multiply the build by the dozens of sizes. Here the size is
//! data instead: a [`Shape`] holds the dimensions and the masks derived
//! from them, computed once, and one search, compiled once, serves every
//! size. The layout is the same Fhourstones layout, in a `u128`; the
//! search takes its low `u64` on boards whose layout fits one. A few
//! sizes past 64 bits, those of solves of many hours, are compiled too.
//!
//! - [`shape`]: the dimensions and masks.
//! - [`notation`]: one character a move on every width, `1`-`9` then `a`-`g`.
//! - [`position`]: a position as two sets of cells and a move count.
//! - [`table`] and [`search`]: the solver. [`Solver`] takes every size
//!   up to 128 bits: the compiled search on a compiled size, the search
//!   of sizes as data on the others; the faces that offer every board
//!   (`score4 solve`, `bench`, `serve`) go through it.
//! - `node`: a position beside its shape, as the search takes it.
//! - `compiled`: the few sizes past 64 bits of long solves, whose masks
//!   are constants in `u128`s.
//!
//! ```
//! use score4::wide::{Position, Shape, Solver};
//! let shape: Shape = "11x4".parse().unwrap();
//! let p = Position::parse(&shape, "66").unwrap();
//! assert!(p.can_play(&shape, 10));
//! ```

pub(crate) mod compiled;
mod node;
pub mod notation;
pub mod position;
pub mod search;
pub mod shape;
pub mod table;

pub(crate) use node::placed;
pub use position::Position;
pub use search::{Analysis, Solver};
pub use shape::Shape;
