//! Instruction counts of the bitboard primitives and the perfect solver
//! under callgrind, on small fixed samples of the labelled sets. Needs
//! `iai-callgrind-runner` (same version) on the path.

mod samples;

use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};
use score4::fixture::Labelled;
use score4::{Geometry, Position, Solver};

fn position() -> Position {
    "4453342256671".parse().expect("valid moves")
}

#[library_benchmark]
#[bench::midgame(position())]
fn win_detection(p: Position) -> bool {
    black_box(Geometry::<7, 6>::has_four(p.current()) || p.can_win_next())
}

#[library_benchmark]
#[bench::midgame(position())]
fn playable_moves(p: Position) -> u32 {
    black_box(p.playable().count() + p.non_losing_moves().count())
}

/// The first few positions of set `index`, solved from an empty table.
fn sample(index: usize) -> Vec<Labelled> {
    samples::samples(5).swap_remove(index).1
}

#[library_benchmark]
#[bench::ply33_40(sample(0))]
#[bench::ply23_32(sample(1))]
#[bench::ply15_22(sample(2))]
fn solve(set: Vec<Labelled>) -> i32 {
    let mut solver = Solver::<7, 6>::with_table_mb(4);
    // The search is measured, not the opening book.
    solver.drop_book();
    let mut sum = 0;
    for labelled in &set {
        sum += solver.solve(&labelled.position);
    }
    black_box(sum)
}

library_benchmark_group!(
    name = solver;
    benchmarks = win_detection, playable_moves, solve
);

main!(library_benchmark_groups = solver);
