//! Wall-clock benchmarks of the bitboard primitives and the perfect solver
//! on fixed samples of each labelled set. Instruction counts of the same
//! work come from `solver_iai`.

mod samples;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use score4::{Geometry, Position, Solver};

type G = Geometry<7, 6>;

fn primitives(c: &mut Criterion) {
    let p: Position = "4453342256671".parse().expect("valid moves");
    c.bench_function("has_four", |b| {
        b.iter(|| G::has_four(black_box(p.current())))
    });
    c.bench_function("winning_cells", |b| b.iter(|| black_box(p).winning_cells()));
    c.bench_function("playable", |b| b.iter(|| black_box(p).playable()));
    c.bench_function("non_losing_moves", |b| {
        b.iter(|| black_box(p).non_losing_moves())
    });
}

fn solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    for (name, set) in samples::samples(usize::MAX) {
        let mut solver = Solver::<7, 6>::new();
        // The search is measured, not the opening book.
        solver.drop_book();
        group.bench_function(name, |b| {
            b.iter(|| {
                for labelled in &set {
                    solver.clear_table();
                    assert_eq!(solver.solve(&labelled.position), labelled.score);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, primitives, solve);
criterion_main!(benches);
