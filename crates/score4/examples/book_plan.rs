//! Lists the positions an opening book of a given depth holds, level by
//! level, and times the enumeration with two hash sets for finding
//! repeated positions: `ahash` (what the book uses) and the standard
//! library's SipHash.
//!
//! `cargo run --release -p score4 --example book_plan -- 10`

use std::collections::hash_map::RandomState;
use std::time::{Duration, Instant};

use score4::book::build::Plan;

fn timed<S: std::hash::BuildHasher + Default>(depth: u32) -> (Plan<7, 6>, Duration) {
    let start = Instant::now();
    let plan = Plan::<7, 6>::with_hasher::<S>(depth);
    (plan, start.elapsed())
}

fn main() {
    let depth = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => 8,
        Some(Ok(d)) if d <= 16 => d,
        Some(_) => {
            eprintln!("book_plan: expected a depth from 0 to 16");
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
}
