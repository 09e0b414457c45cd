//! The library's integration tests, one module per topic, compiled into a
//! single test binary: one link instead of one per file, and one pool of
//! test threads, so that a long test runs beside the others instead of
//! after them. The tests that must be alone in their process (the
//! process-wide counters of a measuring solver, the resident-set measure) keep
//! binaries of their own beside this folder.

mod anytime;
mod board_sizes;
mod book;
mod book_crash;
mod journal;
mod model;
mod oracle;
mod parsers;
mod perfect;
mod solver;
mod stop;
mod wide;
