//! Where a strong solve's positions go, by moves played: every event a
//! measuring solver counts, summed over the positions read from
//! stdin (the first field of each line: moves, columns from 1; an empty
//! line is the empty board), each solved without the book from an empty
//! table.
//!
//! `cut -d' ' -f1 fixtures/solver/ply9-14.txt | cargo run --release -p
//! score4-stats -- [TABLE_MB] [THREADS] [WxH]`
//!
//! The board is 7x6 unless a `WxH` argument names another; the table is
//! the solver's default for the board and the threads.

use std::io::BufRead;

use score4::solver::stats::{self, Event};
use score4::{default_table_mb, with_board_size, BoardSize, Position, Solver};

fn fail(message: &str) -> ! {
    eprintln!("score4-stats: {message}");
    std::process::exit(2);
}

fn main() {
    let mut size = BoardSize::STANDARD;
    let mut numbers = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg.contains('x') {
            size = arg.parse().unwrap_or_else(|e| fail(&format!("{arg}: {e}")));
        } else {
            match arg.parse::<usize>() {
                Ok(n) if n > 0 && numbers.len() < 2 => numbers.push(n),
                _ => fail("expected [TABLE_MB] [THREADS] [WxH], positive numbers"),
            }
        }
    }
    let threads = numbers.get(1).copied().unwrap_or(1);
    let table_mb = numbers.first().copied();
    with_board_size!(size, run(table_mb, threads));
}

fn run<const W: usize, const H: usize>(table_mb: Option<usize>, threads: usize) {
    let mb = table_mb.unwrap_or(default_table_mb(threads, W * H));
    let mut solver =
        Solver::<W, H>::measuring_with_table_mb(mb).unwrap_or_else(|e| fail(&e.to_string()));
    solver.set_threads(threads);
    solver.drop_book();
    stats::take();
    let mut solved = 0;
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.unwrap_or_else(|e| fail(&format!("cannot read stdin: {e}")));
        let moves = line.split_whitespace().next().unwrap_or("");
        let p: Position<W, H> = moves
            .parse()
            .unwrap_or_else(|e| fail(&format!("line {}: {e}", i + 1)));
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
