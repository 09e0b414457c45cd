//! Wall-clock benchmarks of the classic engine: the static score and whole
//! searches at the levels drivers use. Instruction counts, which do not
//! depend on machine load, come from `engine_iai` and `scripts/bench-engine`.

mod positions;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use score4::classic::Search;
use score4::heuristic;

fn score(c: &mut Criterion) {
    let mut group = c.benchmark_group("score");
    for (name, board) in positions::boards() {
        group.bench_function(name, |b| {
            b.iter(|| heuristic::score(black_box(board.orange()), black_box(board.yellow())))
        });
    }
    group.finish();
}

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    for level in [7, 9, 12] {
        for (name, board) in positions::boards() {
            group.bench_with_input(BenchmarkId::new(name, level), &board, |b, board| {
                // A fresh table per answer, as the command-line engine has.
                b.iter(|| Search::for_level(level).answer(black_box(board), level, false))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, score, search);
criterion_main!(benches);
