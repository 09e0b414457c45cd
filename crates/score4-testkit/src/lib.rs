//! What score4's test suites share, so that each model and each fixture
//! reader is written once: the slow, obviously correct models the fast code
//! is compared with, the fixture files and where they are, a seeded random
//! generator (failures replay), a runner for the `score4` binary and
//! scratch directories that clean up after themselves.
//!
//! A development crate only: nothing here is part of score4's interface.
//! The library's own unit tests cannot use its models (they see another
//! build of score4's types), so they keep theirs in `solver::plain`; its
//! scratch directories they can use.

pub mod classic;
pub mod cli;
pub mod fixtures;
pub mod naive;
pub mod positions;
pub mod reference;
pub mod rng;
pub mod scratch;

pub use rng::Rng;
pub use scratch::Scratch;
