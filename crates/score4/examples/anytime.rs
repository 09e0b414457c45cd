//! Watches an anytime analysis: every column's proven range, in words, as
//! it narrows, with the positions searched and the time, until every
//! score is exact or the time runs out.
//!
//! `cargo run --release -p score4 --example anytime -- 9x6 5 10`
//! analyses the 9x6 position `5` for at most 10 seconds.
//!
//! With `--cost FILE` (7x6 positions, one per line), it instead compares
//! what the analysis costs with the plain one: the positions each
//! searches, summed over the file, each position with fresh tables and
//! no book.

use std::time::{Duration, Instant};

use score4::play::range_words_after;
use score4::solver::Goal;
use score4::wide::{self, Shape};
use score4::{Position, Solver};

fn watch(shape: Shape, moves: &str, seconds: f64) {
    let p = wide::Position::parse(&shape, moves).unwrap_or_else(|e| fail(&e.to_string()));
    let mut solver = wide::Solver::new(shape, 64).unwrap_or_else(|e| fail(&e.to_string()));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let words = |r| range_words_after(shape.cells(), p.moves_played(), r);
    let name = |col: usize| wide::notation::character(col + 1).unwrap_or('?');
    let show = |a: &wide::Analysis| {
        let columns: Vec<String> = a
            .columns
            .iter()
            .enumerate()
            .filter_map(|(col, r)| r.map(|r| format!("{}: {}", name(col), words(r))))
            .collect();
        let best = a.best().map_or(String::new(), |b| {
            let proven = if b.proven { "proven" } else { "so far" };
            format!("; best {} ({proven})", name(b.column))
        });
        println!(
            "{:6.2} s {:>13} positions  {}{best}",
            a.elapsed.as_secs_f64(),
            a.nodes,
            columns.join(" | ")
        );
    };
    let end = solver.analyze_anytime(
        &p,
        Goal::Everything,
        Some(deadline),
        Duration::from_secs(1),
        show,
    );
    println!("{}", if end.done { "done" } else { "out of time" });
}

fn cost(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let (mut plain_nodes, mut anytime_nodes, mut count) = (0u64, 0u64, 0);
    let (mut plain_time, mut anytime_time) = (Duration::ZERO, Duration::ZERO);
    let mut plain = Solver::<7, 6>::with_table_mb(16);
    let mut anytime = Solver::<7, 6>::with_table_mb(16);
    plain.drop_book();
    anytime.drop_book();
    for line in text.lines() {
        let Some(Ok(p)) = line.split_whitespace().next().map(str::parse::<Position>) else {
            continue;
        };
        plain.clear_table();
        plain.reset_nodes();
        let start = Instant::now();
        let scores = plain.analyze(&p);
        plain_time += start.elapsed();
        plain_nodes += plain.nodes();
        anytime.clear_table();
        let start = Instant::now();
        let a = anytime.analyze_anytime(
            &p,
            Goal::Everything,
            None,
            Duration::from_secs(3600),
            |_| {},
        );
        anytime_time += start.elapsed();
        anytime_nodes += a.nodes;
        assert_eq!(
            a.columns.map(|r| r.and_then(|r| r.exact())),
            scores,
            "{line}"
        );
        count += 1;
    }
    println!("{count} positions");
    println!(
        "plain analysis:   {plain_nodes:>12} positions searched, {:.2} s",
        plain_time.as_secs_f64()
    );
    println!(
        "anytime analysis: {anytime_nodes:>12} positions searched, {:.2} s",
        anytime_time.as_secs_f64()
    );
    println!(
        "ratio: {:.3}",
        anytime_nodes as f64 / plain_nodes.max(1) as f64
    );
}

fn fail(message: &str) -> ! {
    eprintln!("anytime: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--cost", path] => cost(path),
        [board, moves, rest @ ..] if rest.len() <= 1 => {
            let shape: Shape = board
                .parse()
                .unwrap_or_else(|e: score4::SizeError| fail(&e.to_string()));
            let seconds = match rest.first().map(|s| s.parse::<f64>()) {
                None => 10.0,
                Some(Ok(s)) if s > 0.0 && s < 1e9 => s,
                Some(_) => fail("SECONDS must be a number above 0"),
            };
            watch(shape, moves, seconds);
        }
        _ => fail("usage: anytime WxH MOVES [SECONDS] | anytime --cost FILE"),
    }
}
