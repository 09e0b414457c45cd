//! The clock deadlines are read from.
//!
//! Native builds use the standard library's `Instant`. WebAssembly in a
//! browser has no system clock behind `std::time::Instant` (it panics
//! there), so those builds take `web_time`'s, which reads the page's
//! `performance.now()`. Every deadline in the library's API is this
//! `Instant`, the standard one on every native target.

#[cfg(not(target_family = "wasm"))]
pub use std::time::Instant;
#[cfg(target_family = "wasm")]
pub use web_time::Instant;
