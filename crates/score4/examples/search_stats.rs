//! Where a strong solve's positions go, by moves played: every event the
//! `search-stats` feature counts, summed over the positions read from
//! stdin (the first field of each line: moves, columns from 1; an empty
//! line is the empty board), each solved without the book from an empty
//! table.
//!
//! `cut -d' ' -f1 fixtures/solver/ply9-14.txt | cargo run --release -p score4
//! --features search-stats --example search_stats -- [TABLE_MB] [THREADS]`

use std::io::BufRead;

use score4::solver::stats::{self, Event};
use score4::{default_table_mb, Position, Solver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| match args.get(i).map(|a| a.parse::<usize>()) {
        None => default,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("search_stats: expected [TABLE_MB] [THREADS], positive numbers");
            std::process::exit(2);
        }
    };
    let threads = number(1, 1);
    let mut solver = Solver::<7, 6>::try_with_table_mb(number(0, default_table_mb(threads)))
        .unwrap_or_else(|e| {
            eprintln!("search_stats: {e}");
            std::process::exit(2);
        });
    solver.set_threads(threads);
    solver.drop_book();
    stats::take();
    let mut solved = 0;
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.unwrap_or_else(|e| {
            eprintln!("search_stats: cannot read stdin: {e}");
            std::process::exit(2);
        });
        let moves = line.split_whitespace().next().unwrap_or("");
        let p: Position = match moves.parse() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("search_stats: line {}: {e}", i + 1);
                std::process::exit(2);
            }
        };
        solver.clear_table();
        solver.solve(&p);
        solved += 1;
    }
    let counts = stats::take();
    println!("{solved} positions, {} searched", solver.nodes());
    print!("| moves |");
    for e in Event::ALL {
        print!(" {} |", e.name());
    }
    println!();
    println!("|---:|{}", "---:|".repeat(Event::ALL.len()));
    let mut total = [0u64; Event::ALL.len()];
    for (moves, depth) in counts.iter().enumerate() {
        if depth[Event::Entered] == 0 {
            continue;
        }
        print!("| {moves} |");
        for (k, e) in Event::ALL.into_iter().enumerate() {
            total[k] += depth[e];
            print!(" {} |", depth[e]);
        }
        println!();
    }
    print!("| all |");
    for t in total {
        print!(" {t} |");
    }
    println!();
}
