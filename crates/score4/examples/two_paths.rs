//! Solves the same positions with a board's compiled search and with the
//! search of sizes as data (`wide::Solver::new` against
//! `wide::Solver::as_data`), alternating, and prints each path's
//! positions and time: what compiling a size buys.
//!
//! Positions are read from FILE (the first word of each line, as the
//! fixtures hold them), else the empty board is solved. Each path gets a
//! 256 MiB table, cleared before each position, and no book.
//!
//! `cargo run --release -p score4 --example two_paths -- 9x4 [FILE] [--rounds N]`

use std::time::Instant;

use score4::wide::{Position, Shape, Solver};

fn usage() -> ! {
    eprintln!("two_paths: expected WxH [FILE] [--rounds N]");
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let shape: Shape = match args.next().map(|a| a.parse()) {
        Some(Ok(shape)) => shape,
        Some(Err(e)) => {
            eprintln!("two_paths: {e}");
            std::process::exit(2);
        }
        None => usage(),
    };
    let (mut file, mut rounds) = (None, 1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => rounds = n,
                None => usage(),
            },
            _ if file.is_none() => file = Some(arg),
            _ => usage(),
        }
    }
    let positions: Vec<Position> = match &file {
        Some(path) => {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
                eprintln!("two_paths: {path}: {e}");
                std::process::exit(1);
            });
            text.lines()
                .filter_map(|line| line.split(' ').next())
                .map(|moves| {
                    Position::parse(&shape, moves).unwrap_or_else(|e| {
                        eprintln!("two_paths: {path}: {moves}: {e}");
                        std::process::exit(1);
                    })
                })
                .collect()
        }
        None => vec![Position::new()],
    };
    for round in 1..=rounds {
        for (name, as_data) in [("compiled", false), ("as data", true)] {
            let made = if as_data {
                Solver::as_data(shape, 256)
            } else {
                Solver::new(shape, 256)
            };
            let mut solver = made.unwrap_or_else(|e| {
                eprintln!("two_paths: {e}");
                std::process::exit(1);
            });
            solver.drop_book();
            let start = Instant::now();
            let mut sum = 0;
            for p in &positions {
                solver.clear_table();
                sum += solver.solve(p).unwrap_or_else(|e| {
                    eprintln!("two_paths: {e}");
                    std::process::exit(1);
                });
            }
            println!(
                "{shape} round {round} {name}: {} positions searched, scores summing to {sum}, {:.2} s",
                solver.nodes(),
                start.elapsed().as_secs_f64()
            );
        }
    }
}
