//! Lists the positions an opening book of a given depth holds, level by
//! level, and times the enumeration with two hash sets for finding
//! repeated positions: `ahash` (what the book uses) and the standard
//! library's SipHash.
//!
//! With `--cost K`, it also solves K runs of 20 neighbouring positions of
//! the deepest level, spread evenly over it, as `score4 book build` does
//! (one thread, 256 MiB table), and projects the build's cost from their
//! mean time.
//!
//! `--board WxH` lists another board's book (7x6 by default).
//!
//! `cargo run --release -p score4 --example book_plan -- 10 --cost 60`

use std::collections::hash_map::RandomState;
use std::time::{Duration, Instant};

use score4::book::build::{solvers, Plan};
use score4::wide::Shape;

fn timed<S: std::hash::BuildHasher + Default>(shape: &Shape, depth: u32) -> (Plan, Duration) {
    let start = Instant::now();
    let plan = Plan::with_hasher::<S>(shape, depth, usize::MAX).expect("no limit");
    (plan, start.elapsed())
}

fn usage() -> ! {
    eprintln!("book_plan: expected DEPTH (0 to 16) [--board WxH] [--cost RUNS]");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth = match args.first().map(|a| a.parse::<u32>()) {
        None => 8,
        Some(Ok(d)) if d <= 16 => d,
        Some(_) => usage(),
    };
    let (mut shape, mut cost_runs) = (Shape::standard(), None);
    let mut options = args.iter().skip(1);
    while let Some(option) = options.next() {
        let value = options.next().unwrap_or_else(|| usage());
        match option.as_str() {
            "--board" => shape = value.parse().unwrap_or_else(|_| usage()),
            "--cost" => cost_runs = Some(value.parse::<usize>().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    let shape = &shape;
    let (plan, _) = timed::<ahash::RandomState>(shape, depth);
    for moves in 0..=depth {
        println!("{moves:>2} moves: {:>9} positions", plan.level(moves).len());
    }
    println!("   in all: {:>9} positions", plan.len());
    // Alternate the two, three rounds each, so that drift hits both.
    let (mut fast, mut standard) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        fast.push(timed::<ahash::RandomState>(shape, depth).1);
        standard.push(timed::<RandomState>(shape, depth).1);
    }
    let best = |v: &[Duration]| v.iter().min().copied().unwrap_or_default();
    println!(
        "enumeration, best of 3: ahash {:.3} s, std SipHash {:.3} s",
        best(&fast).as_secs_f64(),
        best(&standard).as_secs_f64()
    );
    if let Some(runs) = cost_runs {
        let leaves = plan.leaves();
        let mut solver = solvers(shape, 1, 256).expect("a 256 MiB table").remove(0);
        let (mut solved, mut time) = (0usize, Duration::ZERO);
        for run in 0..runs.max(1) {
            let start = leaves.len() * run / runs.max(1);
            let slice = &leaves[start..(start + 20).min(leaves.len())];
            let clock = Instant::now();
            for p in slice {
                std::hint::black_box(solver.solve(p).expect("a book's leaves are in play"));
            }
            time += clock.elapsed();
            solved += slice.len();
        }
        let mean = time.as_secs_f64() / solved.max(1) as f64;
        println!(
            "solving: {solved} positions with {depth} moves, {mean:.4} s each on one thread; all {} of them: {:.1} core-hours",
            leaves.len(),
            mean * leaves.len() as f64 / 3600.0
        );
    }
}
