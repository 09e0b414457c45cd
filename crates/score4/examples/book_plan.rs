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
//! `cargo run --release -p score4 --example book_plan -- 10 --cost 60`

use std::collections::hash_map::RandomState;
use std::time::{Duration, Instant};

use score4::book::build::{solvers, Plan};
use score4::wide::Shape;

fn timed<S: std::hash::BuildHasher + Default>(depth: u32) -> (Plan, Duration) {
    let start = Instant::now();
    let plan = Plan::with_hasher::<S>(&Shape::standard(), depth, usize::MAX).expect("no limit");
    (plan, start.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cost_runs = match args.get(2).map(String::as_str) {
        Some("--cost") => args.get(3).and_then(|k| k.parse::<usize>().ok()),
        _ => None,
    };
    let depth = match args.get(1).map(|a| a.parse::<u32>()) {
        None => 8,
        Some(Ok(d)) if d <= 16 => d,
        Some(_) => {
            eprintln!("book_plan: expected DEPTH (0 to 16) [--cost RUNS]");
            std::process::exit(2);
        }
    };
    let (plan, _) = timed::<ahash::RandomState>(depth);
    for moves in 0..=depth {
        println!("{moves:>2} moves: {:>9} positions", plan.level(moves).len());
    }
    println!("   in all: {:>9} positions", plan.len());
    // Alternate the two, three rounds each, so that drift hits both.
    let (mut fast, mut standard) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        fast.push(timed::<ahash::RandomState>(depth).1);
        standard.push(timed::<RandomState>(depth).1);
    }
    let best = |v: &[Duration]| v.iter().min().copied().unwrap_or_default();
    println!(
        "enumeration, best of 3: ahash {:.3} s, std SipHash {:.3} s",
        best(&fast).as_secs_f64(),
        best(&standard).as_secs_f64()
    );
    if let Some(runs) = cost_runs {
        let leaves = plan.leaves();
        let mut solver = solvers(&Shape::standard(), 1, 256)
            .expect("a 256 MiB table")
            .remove(0);
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
