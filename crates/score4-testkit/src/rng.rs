//! The library's seeded generator, so that a failing random test replays
//! and tests draw as the library's own samples do.

pub use score4::rng::Rng;
