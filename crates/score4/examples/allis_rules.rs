//! How often Allis' rule set (`solver::rules`) proves that the side that
//! just moved at least draws, against how often that is true and how often
//! the solver's static bounds prove it, with the cost of each test.
//!
//! Positions are read from FILE (the first word of each line, as
//! `scripts/random-positions` writes them) and grouped by their number of
//! empty cells. With an even number, the question is whether the side to
//! move scores at most 0; with an odd one, at least 0 (a move that makes
//! it the side that just moved). The exact answer comes from the solver
//! (a weak solve, no book, a 64 MiB table kept across positions). The
//! cost of each static test is its time over the whole file, repeated
//! REPEAT times (default 20), per position. The last two columns are the
//! other side's claim (at least 0 with an even number, at most 0 with an
//! odd one), which only the odd threat proves: how often it is true, and
//! how often the rules prove it.
//!
//! `cargo run --release -p score4 --example allis_rules -- 7x6 FILE [--repeat REPEAT] [--no-exact]`

use std::collections::BTreeMap;
use std::time::Instant;

use score4::solver::rules;
use score4::{Position, Solver};

fn usage() -> ! {
    eprintln!(
        "allis_rules: expected WxH (7x6, 8x5, 6x8, 9x5, 8x6) FILE [--repeat REPEAT] [--no-exact]"
    );
    std::process::exit(2);
}

/// The claim the rules make on `p`: at most 0 with an even number of
/// empty cells, at least 0 with an odd one.
fn rules_prove<const W: usize, const H: usize>(p: &Position<W, H>) -> bool {
    if (W * H - p.moves_played() as usize).is_multiple_of(2) {
        rules::mover_at_most_draws(p)
    } else {
        rules::mover_at_least_draws(p)
    }
}

/// The other side's claim, which only Allis' odd threat proves: at least
/// 0 with an even number of empty cells, at most 0 with an odd one.
fn other_prove<const W: usize, const H: usize>(p: &Position<W, H>) -> bool {
    if (W * H - p.moves_played() as usize).is_multiple_of(2) {
        rules::mover_at_least_draws(p)
    } else {
        rules::mover_at_most_draws(p)
    }
}

/// Counts for one number of empty cells.
#[derive(Default)]
struct Tally {
    positions: usize,
    true_claims: usize,
    by_rules: usize,
    by_bounds: usize,
    by_either: usize,
    other_true: usize,
    other_by_rules: usize,
}

/// Nanoseconds per position of `test` over `positions`, `repeat` times.
fn cost<const W: usize, const H: usize>(
    positions: &[Position<W, H>],
    repeat: usize,
    test: impl Fn(&Position<W, H>) -> bool,
) -> f64 {
    let start = Instant::now();
    let mut proved = 0usize;
    for _ in 0..repeat {
        for p in positions {
            proved += usize::from(test(std::hint::black_box(p)));
        }
    }
    std::hint::black_box(proved);
    start.elapsed().as_nanos() as f64 / (repeat * positions.len()).max(1) as f64
}

fn measure<const W: usize, const H: usize>(lines: &[String], repeat: usize, exact: bool) {
    let positions: Vec<Position<W, H>> = lines
        .iter()
        .map(|moves| {
            moves.parse().unwrap_or_else(|e| {
                eprintln!("allis_rules: {moves:?}: {e}");
                std::process::exit(1);
            })
        })
        .collect();
    let mut solver = Solver::<W, H>::with_table_mb(64);
    solver.drop_book();
    let mut tallies: BTreeMap<usize, Tally> = BTreeMap::new();
    let mut by_empty: BTreeMap<usize, Vec<Position<W, H>>> = BTreeMap::new();
    let solve_start = Instant::now();
    for p in &positions {
        let empty = W * H - p.moves_played() as usize;
        let even = empty.is_multiple_of(2);
        let t = tallies.entry(empty).or_default();
        by_empty.entry(empty).or_default().push(*p);
        t.positions += 1;
        let (by_rules, by_bounds) = (rules_prove(p), rules::bounds_prove(p));
        t.by_rules += usize::from(by_rules);
        t.by_bounds += usize::from(by_bounds);
        t.by_either += usize::from(by_rules || by_bounds);
        let other = other_prove(p);
        t.other_by_rules += usize::from(other);
        if exact {
            let sign = solver.solve_weak(p);
            let holds = if even { sign <= 0 } else { sign >= 0 };
            let other_holds = if even { sign >= 0 } else { sign <= 0 };
            if ((by_rules || by_bounds) && !holds) || (other && !other_holds) {
                eprintln!("allis_rules: a wrong proof on {p:?}");
                std::process::exit(1);
            }
            t.true_claims += usize::from(holds);
            t.other_true += usize::from(other_holds);
        }
    }
    let solve_time = solve_start.elapsed();
    let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "{W}x{H} empty positions true% rules% bounds% either% rules-ns bounds-ns other-true% other-rules% (exact solves {:.1}s)",
        solve_time.as_secs_f64()
    );
    for (empty, t) in &tallies {
        let ps = &by_empty[empty];
        let rules_ns = cost(ps, repeat, rules_prove);
        let bounds_ns = cost(ps, repeat, rules::bounds_prove);
        let truth = |n| {
            if exact {
                format!("{:.1}", pct(n, t.positions))
            } else {
                "-".into()
            }
        };
        println!(
            "{W}x{H} {empty} {} {} {:.1} {:.1} {:.1} {rules_ns:.0} {bounds_ns:.0} {} {:.1}",
            t.positions,
            truth(t.true_claims),
            pct(t.by_rules, t.positions),
            pct(t.by_bounds, t.positions),
            pct(t.by_either, t.positions),
            truth(t.other_true),
            pct(t.other_by_rules, t.positions),
        );
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let board = args.next().unwrap_or_else(|| usage());
    let (mut file, mut repeat, mut exact) = (None, 20, true);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-exact" => exact = false,
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => repeat = n,
                None => usage(),
            },
            _ if file.is_none() => file = Some(arg),
            _ => usage(),
        }
    }
    let Some(path) = file else { usage() };
    let lines: Vec<String> = match std::fs::read_to_string(&path) {
        Ok(text) => text
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(String::from)
            .collect(),
        Err(e) => {
            eprintln!("allis_rules: {path}: {e}");
            std::process::exit(1);
        }
    };
    match board.as_str() {
        "7x6" => measure::<7, 6>(&lines, repeat, exact),
        "8x5" => measure::<8, 5>(&lines, repeat, exact),
        "6x8" => measure::<6, 8>(&lines, repeat, exact),
        "9x5" => measure::<9, 5>(&lines, repeat, exact),
        "8x6" => measure::<8, 6>(&lines, repeat, exact),
        _ => usage(),
    }
}
