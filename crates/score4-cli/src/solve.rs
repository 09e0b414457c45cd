//! `score4 solve`: exact scores for positions.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io;
use std::time::Instant;

use score4::input::{check_line, LineError, Lines, Quoted, LINE_CAP};
use score4::{default_table_mb, with_board_size, Position, Probe, SolveError, Solver};

use crate::output::{self, Output, Stop, FAILED, OK, PARTLY};

/// Options of `score4 solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions in move notation (columns 1..W, "" for the empty board);
    /// read one per line from stdin if none. Only the first field of a line
    /// is read, so fixture files (`MOVES SCORE`) can be piped in as they are.
    positions: Vec<OsString>,
    /// Print only who wins: 1, 0 or -1 for the side to move.
    #[arg(long, conflicts_with = "analyze")]
    weak: bool,
    /// Print the score of each of the W moves instead (`-` for a full column).
    #[arg(long)]
    analyze: bool,
    /// Append the positions searched and the microseconds taken.
    #[arg(long)]
    stats: bool,
    /// Append every search the solve made, as ALPHA..BETA=RESULT/POSITIONS
    /// (a strong solve probes null windows; the searches that return the
    /// score itself are those that prove it).
    #[arg(long)]
    probes: bool,
    /// Transposition table size in MiB (a power of two is used as is,
    /// others are rounded down) [default: 4, or 32 with several threads]
    #[arg(long, value_name = "N", value_parser = crate::table_mb)]
    table_mb: Option<usize>,
    /// Threads searching each position in the first half of the game together.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=crate::MAX_THREADS))]
    threads: u16,
    /// Empty the table before each position, to measure each on its own
    /// (the same option as `score4 bench --fresh-table`).
    #[arg(long, alias = "clear-table")]
    fresh_table: bool,
    #[command(flatten)]
    board: crate::BoardArg,
    #[command(flatten)]
    book: crate::book::BookArg,
}

/// Solves every position asked for, one output line per input line, and
/// returns the exit status.
pub fn run(args: Args) -> u8 {
    with_board_size!(args.board.board, run_on(args))
}

/// [`run`] on the `W` x `H` board.
fn run_on<const W: usize, const H: usize>(args: Args) -> u8 {
    let threads = usize::from(args.threads);
    let table_mb = args.table_mb.unwrap_or(default_table_mb(threads));
    let mut solver = match Solver::<W, H>::try_with_table_mb(table_mb) {
        Ok(solver) => solver,
        Err(e) => {
            output::error(format_args!("--table-mb {table_mb}: {e}"));
            return FAILED;
        }
    };
    solver.set_threads(threads);
    if let Err(message) = args.book.apply(&mut solver) {
        output::error(message);
        return FAILED;
    }
    let mut out = Output::new();
    let mut status = OK;
    // Answers one input line: its output line, or an empty one and an
    // error naming the line.
    let mut answer = |label: &str, number: usize, line: Result<&str, LineError>| {
        let text = line.map_err(|e| e.to_string()).and_then(|line| {
            solve_line(&mut solver, &args, line)
                .map_err(|why| format!("{}: {why}", Quoted::new(first_field(line))))
        });
        let text = text.unwrap_or_else(|why| {
            output::error(format_args!("{label} {number}: {why}"));
            status = PARTLY;
            String::new()
        });
        out.line(&text)
    };
    let written: Result<(), Stop> = if args.positions.is_empty() {
        let mut lines = Lines::new(io::stdin().lock());
        loop {
            match lines.next_line() {
                Ok(Some((number, line))) => {
                    if let Err(stop) = answer("line", number, line) {
                        break Err(stop);
                    }
                }
                Ok(None) => break Ok(()),
                Err(e) => {
                    output::error(format_args!("reading stdin: {e}"));
                    return FAILED;
                }
            }
        }
    } else {
        args.positions
            .iter()
            .enumerate()
            .try_for_each(|(i, position)| {
                answer(
                    "argument",
                    i + 1,
                    check_line(position.as_encoded_bytes(), LINE_CAP),
                )
            })
    };
    match written {
        Ok(()) => status,
        Err(stop) => stop.status(status),
    }
}

/// The position of a line: its first field, or the empty board.
fn first_field(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// The output line for one input line, or why it cannot be solved.
fn solve_line<const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    args: &Args,
    line: &str,
) -> Result<String, String> {
    let moves = first_field(line);
    let p = Position::<W, H>::parse(moves).map_err(|e| e.to_string())?;
    SolveError::check(&p).map_err(|e| e.to_string())?;
    if args.fresh_table {
        solver.clear_table();
    }
    solver.reset_nodes();
    let start = Instant::now();
    let mut text = moves.to_string();
    if args.analyze {
        for score in solver.analyze(&p) {
            match score {
                Some(s) => write!(text, " {s}"),
                None => write!(text, " -"),
            }
            .map_err(|e| e.to_string())?;
        }
    } else {
        let score = if args.weak {
            solver.solve_weak(&p)
        } else {
            solver.solve(&p)
        };
        write!(text, " {score}").map_err(|e| e.to_string())?;
    }
    let micros = start.elapsed().as_micros();
    if args.stats {
        write!(text, " {} {micros}", solver.nodes()).map_err(|e| e.to_string())?;
    }
    if args.probes {
        for probe in solver.probes() {
            let Probe {
                alpha,
                beta,
                result,
                nodes,
            } = probe;
            write!(text, " {alpha}..{beta}={result}/{nodes}").map_err(|e| e.to_string())?;
        }
    }
    Ok(text)
}
