//! "Does the side to move win?" asked of the same positions of the
//! proof-number search (`solver::proof`) and of the solver's alpha-beta
//! search (one null-window probe above 0, `Solver::probe`), and prints
//! each one's positions and time, and whether they agree.
//!
//! Positions are read from FILE (the first word of each line, as the
//! fixtures hold them), else the empty board is asked. Each search starts
//! from an empty table for each position (the solver's 64 MiB, the
//! proof-number search's ENTRIES, default 4 million), without a book. A position
//! the proof-number search does not decide within LIMIT expanded positions
//! (default 20 million) is counted as undecided.
//!
//! `--proof-only` skips the alpha-beta search. With `--alpha A` both are asked whether the score is above A instead
//! (0, "does it win?", by default).
//!
//! The alpha-beta probe runs on THREADS threads (default 1; the
//! proof-number search has one).
//!
//! `cargo run --release -p score4 --example proof_number -- 7x6 [FILE] [--limit LIMIT] [--threads THREADS]`

use std::time::{Duration, Instant};

use score4::solver::proof::ProofSearch;
use score4::{Position, Solver};

fn usage() -> ! {
    eprintln!("proof_number: expected WxH (7x6, 8x5, 6x8, 9x5, 8x6, 6x7, 7x7, 10x4, 11x4, 12x4) [FILE] [--limit LIMIT] [--leaves E] [--bounds] [--fallback] [--threads THREADS] [--entries ENTRIES] [--alpha A] [--proof-only]");
    std::process::exit(2);
}

/// Prints a line; a reader that has gone (a pipe into `head`) ends the
/// program quietly.
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    if writeln!(std::io::stdout().lock(), "{line}").is_err() {
        std::process::exit(0);
    }
}

/// What one search found for one position: its answer, positions, time.
type Run = (Option<bool>, u64, Duration);

/// What the command line asks.
struct Options {
    limit: u64,
    leaves: Option<u32>,
    bounds: bool,
    fallback: bool,
    threads: usize,
    entries: usize,
    alpha: i32,
    proof_only: bool,
}

fn compare<const W: usize, const H: usize>(lines: &[String], o: &Options) {
    let Options {
        limit,
        leaves,
        bounds,
        fallback,
        threads,
        entries,
        alpha,
        proof_only,
    } = *o;
    let mut totals = [(0u64, Duration::ZERO); 2];
    let (mut agreed, mut undecided) = (0, 0);
    for moves in lines {
        let p: Position<W, H> = match moves.parse() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("proof_number: {moves:?}: {e}");
                std::process::exit(1);
            }
        };
        let ab: Run = if proof_only {
            (None, 0, Duration::ZERO)
        } else {
            let mut solver = Solver::<W, H>::with_table_mb(64);
            solver.drop_book();
            solver.set_threads(threads);
            let start = Instant::now();
            let won = solver.probe(&p, alpha).above(alpha);
            (won, solver.nodes(), start.elapsed())
        };
        let pn: Run = {
            let mut search = ProofSearch::<W, H>::new(entries);
            if let Some(empty) = leaves {
                let mut solver = Solver::<W, H>::with_table_mb(64);
                solver.drop_book();
                search = search.with_leaves(solver, empty);
            }
            if bounds {
                search = search.with_static_bounds();
            }
            let mut probe = fallback.then(|| {
                let mut solver = Solver::<W, H>::with_table_mb(64);
                solver.drop_book();
                solver
            });
            let start = Instant::now();
            let mut won = search.above(&p, alpha, limit);
            let mut made = search.positions();
            if let (None, Some(solver)) = (won, &mut probe) {
                won = solver.probe(&p, alpha).above(alpha);
                made += solver.nodes();
            }
            (won, made, start.elapsed())
        };
        let shown = |r: &Run| match r.0 {
            Some(true) => "above",
            Some(false) => "not above",
            None => "undecided",
        };
        say(format_args!(
            "{} alpha-beta {} {} {:.3}s proof-number {} {} {:.3}s",
            if moves.is_empty() { "(empty)" } else { moves },
            shown(&ab),
            ab.1,
            ab.2.as_secs_f64(),
            shown(&pn),
            pn.1,
            pn.2.as_secs_f64()
        ));
        match pn.0 {
            None => undecided += 1,
            Some(w) if proof_only || Some(w) == ab.0 => agreed += 1,
            Some(_) => {
                eprintln!("proof_number: the searches disagree on {moves:?}");
                std::process::exit(1);
            }
        }
        for (t, r) in totals.iter_mut().zip([ab, pn]) {
            t.0 += r.1;
            t.1 += r.2;
        }
    }
    say(format_args!(
        "{W}x{H}: {} positions asked, {agreed} agreed, {undecided} undecided by the proof-number search; \
         alpha-beta {} positions {:.3}s, proof-number {} positions {:.3}s",
        lines.len(),
        totals[0].0,
        totals[0].1.as_secs_f64(),
        totals[1].0,
        totals[1].1.as_secs_f64()
    ));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let board = args.next().unwrap_or_else(|| usage());
    let mut file = None;
    let mut o = Options {
        limit: 20_000_000,
        leaves: None,
        bounds: false,
        fallback: false,
        threads: 1,
        entries: 4 << 20,
        alpha: 0,
        proof_only: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bounds" => o.bounds = true,
            "--proof-only" => o.proof_only = true,
            "--fallback" => o.fallback = true,
            "--leaves" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => o.leaves = Some(n),
                None => usage(),
            },
            "--limit" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => o.limit = n,
                None => usage(),
            },
            "--alpha" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => o.alpha = n,
                None => usage(),
            },
            "--entries" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n >= 1 => o.entries = n,
                _ => usage(),
            },
            "--threads" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n >= 1 => o.threads = n,
                _ => usage(),
            },
            _ if file.is_none() => file = Some(arg),
            _ => usage(),
        }
    }
    let lines: Vec<String> = match &file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => text
                .lines()
                .filter_map(|l| l.split_whitespace().next())
                .map(String::from)
                .collect(),
            Err(e) => {
                eprintln!("proof_number: {path}: {e}");
                std::process::exit(1);
            }
        },
        None => vec![String::new()],
    };
    match board.as_str() {
        "7x6" => compare::<7, 6>(&lines, &o),
        "8x5" => compare::<8, 5>(&lines, &o),
        "6x8" => compare::<6, 8>(&lines, &o),
        "9x5" => compare::<9, 5>(&lines, &o),
        "8x6" => compare::<8, 6>(&lines, &o),
        "6x7" => compare::<6, 7>(&lines, &o),
        "7x7" => compare::<7, 7>(&lines, &o),
        "10x4" => compare::<10, 4>(&lines, &o),
        "11x4" => compare::<11, 4>(&lines, &o),
        "12x4" => compare::<12, 4>(&lines, &o),
        _ => usage(),
    }
}
