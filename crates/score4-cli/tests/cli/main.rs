//! The `score4` binary as its users run it, one module per command or
//! concern, compiled into a single test binary: one link instead of one
//! per file, and one pool of test threads for all of them.

mod common;

mod bench;
mod board;
mod book;
mod book_faults;
mod docs_examples;
mod faults;
mod journal;
mod play;
mod protocol;
mod serve;
mod solve;
mod split;
