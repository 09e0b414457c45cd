//! `score4 solve`: exact scores for positions.

use std::ffi::OsString;
use std::fmt::{self, Write as _};
use std::io;
use std::time::{Duration, Instant};

use score4::input::{check_line, LineError, Lines, Quoted, LINE_CAP};
use score4::solver::{Goal, Question, ScoreRange, Verdict};
use score4::wide::notation::Base;
use score4::{default_table_mb, wide, Probe, SolveError};

use crate::output::{self, Output, Stop, FAILED, OK, PARTLY, UNSETTLED};

/// How a score reads, shown under `score4 solve --help`.
const SCORES: &str = "\
Scores (the default output, MOVES SCORE) are for the side to move:
  0    a draw with best play from both sides;
  > 0  the side to move wins, and the sooner, the higher: a win with the
       winner's k-th disc scores 22 - k on 7x6 (21 discs each), so 18 is
       a win with its 4th disc;
  < 0  the side to move loses: a loss to the opponent's k-th disc scores
       k - 22 on 7x6.
On any board a win scores D + 1 - k, where D is the discs the winner has
in all: half the cells, the first player having the odd one.
Columns are numbered 1..W from the left, in positions and in answers.

Examples:
  $ score4 solve 4453
  4453 -2
  $ score4 solve --best 4453
  4453 3 6 7
  $ score4 solve --explain 4453
  4453: the first player (to move) loses to the second player's 20th disc (score -2); best moves 3, 6 and 7

With --timeout S, a position not settled in S seconds is printed with the
bounds proven on its score by then, LO..HI (both included), where the
score would be: `4 -3..5`; with --analyze, each column not settled is
LO..HI (`4 1 -3..5 0 ...`); with --weak, the sign's bounds (`4 0..1`).
The exit status is then 3, unless a position was refused (1).";

/// Options of `score4 solve`.
#[derive(clap::Args)]
#[command(after_help = SCORES)]
pub struct Args {
    /// Positions in move notation (columns 1..W, "" for the empty board);
    /// read one per line from stdin if none. Only the first field of a line
    /// is read, so fixture files (`MOVES SCORE`) can be piped in as they
    /// are; an argument is one position and has no spaces.
    positions: Vec<OsString>,
    /// Print only who wins: 1, 0 or -1 for the side to move.
    #[arg(long, conflicts_with_all = ["analyze", "best", "explain"])]
    weak: bool,
    /// Print the score of each of the W moves instead (`-` for a full column).
    #[arg(long, conflicts_with_all = ["best", "explain"])]
    analyze: bool,
    /// Print the best moves instead: every column (1..W) whose move keeps
    /// the position's score, in increasing order. The engine's `-perfect`
    /// plays the one nearest the centre.
    #[arg(long, conflicts_with_all = ["explain", "stats", "probes"])]
    best: bool,
    /// Say in words who wins, with which disc, and the best moves, one
    /// line per position.
    #[arg(long, conflicts_with_all = ["stats", "probes"])]
    explain: bool,
    /// Append the positions searched and the microseconds taken.
    #[arg(long)]
    stats: bool,
    /// Append every search the solve made, as ALPHA..BETA=RESULT/POSITIONS
    /// (a strong solve probes null windows; the searches that return the
    /// score itself are those that prove it).
    #[arg(long)]
    probes: bool,
    /// Transposition table size in MiB (a power of two is used as is,
    /// others are rounded down) [default: 4, or 32 with several threads;
    /// 256 for one thread on boards of more than 42 cells]
    #[arg(long, value_name = "N", value_parser = crate::table_mb, allow_negative_numbers = true)]
    table_mb: Option<usize>,
    /// Threads searching each position in the first half of the game together.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u16).range(1..=crate::MAX_THREADS))]
    threads: u16,
    /// Give each position at most S seconds (decimals allowed): one not
    /// settled by then is printed with the bounds proven on its score,
    /// LO..HI (see below), and the exit status is 3.
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          conflicts_with_all = ["best", "explain", "probes"],
          value_parser = |s: &str| crate::seconds(s, 0.001..=MAX_TIMEOUT_S))]
    timeout: Option<Duration>,
    /// While a position is solved, print on stderr every S seconds
    /// (decimals allowed) what is proven so far: the range its score lies
    /// in, the question the search is answering ("above A?", one null
    /// window at a time) and the positions searched. For long solves.
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          conflicts_with_all = ["weak", "analyze", "best", "explain", "timeout"],
          value_parser = |s: &str| crate::seconds(s, 0.001..=MAX_TIMEOUT_S))]
    progress: Option<Duration>,
    /// Empty the table before each position, to measure each on its own
    /// (the same option as `score4 bench --fresh-table`).
    #[arg(long, alias = "clear-table")]
    fresh_table: bool,
    #[command(flatten)]
    base: crate::BaseArg,
    /// Solve with the search whose size is data (that of most boards past
    /// 64 bits and nine columns), whatever the size: to compare it with a
    /// compiled size's search.
    #[arg(long)]
    size_as_data: bool,
    #[command(flatten)]
    board: crate::BoardArg,
    #[command(flatten)]
    book: crate::book::BookArg,
    #[command(flatten)]
    journal: crate::journal::JournalArg,
}

/// Solves every position asked for, one output line per input line, and
/// returns the exit status.
pub fn run(args: Args) -> u8 {
    let shape = args.board.shape();
    let threads = usize::from(args.threads);
    let table_mb = args
        .table_mb
        .unwrap_or(default_table_mb(threads, shape.cells()));
    let made = if args.size_as_data {
        wide::Solver::as_data(shape, table_mb)
    } else {
        wide::Solver::new(shape, table_mb)
    };
    let mut solver = match made {
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
    if let Err(message) = args.journal.apply(&mut solver) {
        output::error(message);
        return FAILED;
    }
    let (mut status, written) = answer_all(&args, |moves| solve_moves(&mut solver, &args, moves));
    if let Some(e) = solver.journal_error() {
        // Every answer is right; only the journal stopped keeping them.
        output::error(format_args!("--journal {e}"));
        status = FAILED;
    }
    match written {
        Ok(()) => status,
        Err(stop) => stop.status(status),
    }
}

/// Answers every position asked for with `solve`, one output line per
/// input line: the status so far, and whether the output went on to the end.
fn answer_all(
    args: &Args,
    mut solve: impl FnMut(&str) -> Result<(String, bool), String>,
) -> (u8, Result<(), Stop>) {
    let mut out = Output::new();
    let mut status = OK;
    // Answers one input line: its output line, or an empty one and an
    // error naming the line. An argument is a position as a whole; a line
    // of stdin is read up to its first space.
    let mut answer = |label: &str, number: usize, line: Result<&str, LineError>| {
        let answered = line.map_err(|e| e.to_string()).and_then(|line| {
            let moves = if label == ARGUMENT {
                whole_argument(line)?
            } else {
                first_field(line)
            };
            solve(moves).map_err(|why| format!("{}: {why}", Quoted::new(moves)))
        });
        let text = match answered {
            Ok((text, settled)) => {
                // A refusal says more than a position left unsettled.
                if !settled && status == OK {
                    status = UNSETTLED;
                }
                text
            }
            Err(why) => {
                output::error(format_args!("{label} {number}: {why}"));
                status = PARTLY;
                String::new()
            }
        };
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
                    return (FAILED, Ok(()));
                }
            }
        }
    } else {
        args.positions
            .iter()
            .enumerate()
            .try_for_each(|(i, position)| {
                answer(
                    ARGUMENT,
                    i + 1,
                    check_line(position.as_encoded_bytes(), LINE_CAP),
                )
            })
    };
    (status, written)
}

/// The position `moves` as `--base` reads it, in the notation.
fn in_notation<'a>(args: &Args, moves: &'a str) -> Result<std::borrow::Cow<'a, str>, String> {
    let base = args.base.base();
    base.to_notation(moves).map_err(|e| match base {
        Base::Zero => format!("{e} (--base 0)"),
        Base::One => e.to_string(),
    })
}

/// A column (from 1) as the notation writes it: `1` to `9`, then `a` to `g`.
fn column_name(column: usize) -> char {
    wide::notation::character(column).unwrap_or('?')
}

/// The longest `--timeout`, in seconds: a week.
const MAX_TIMEOUT_S: f64 = 604_800.0;

/// How often a search under `--timeout` reports while no bound narrows:
/// never, as nothing reads the reports (the goal says when to stop).
const TIMEOUT_TICK: Duration = Duration::from_secs(3600);

/// How errors name a position given as an argument.
const ARGUMENT: &str = "argument";

/// The position of a line: its first field, or the empty board.
fn first_field(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// The position an argument holds, which is all of it: an argument with
/// spaces is not read as its first field, as a line is, since `solve "4 4
/// 5 3"` would silently answer for the position `4`.
fn whole_argument(argument: &str) -> Result<&str, String> {
    if argument.contains(char::is_whitespace) {
        return Err(format!(
            "{}: a position has no spaces (give each position as one argument, such as 4453)",
            Quoted::new(argument)
        ));
    }
    Ok(argument)
}

/// What is asked of every position.
fn question(args: &Args) -> Question {
    if args.weak {
        Question::Sign
    } else if args.analyze {
        Question::Moves
    } else if args.best || args.explain {
        Question::Best
    } else {
        Question::Score
    }
}

/// The output line for one position and whether it is settled (not
/// only bounded, under `--timeout`), or why it cannot be solved.
fn solve_moves(
    solver: &mut wide::Solver,
    args: &Args,
    moves: &str,
) -> Result<(String, bool), String> {
    let shape = *solver.shape();
    let p = wide::Position::parse(&shape, &in_notation(args, moves)?).map_err(|e| e.to_string())?;
    p.check_in_play(&shape).map_err(|e| e.to_string())?;
    if args.fresh_table {
        solver.clear_table();
    }
    solver.reset_nodes();
    let start = Instant::now();
    let failed = |e: SolveError| e.to_string();
    let (mut text, settled) = match args.timeout {
        Some(timeout) => {
            let (fields, settled) = bounded(solver, &p, args, start + timeout);
            (format!("{moves}{fields}"), settled)
        }
        None => {
            let text = match question(args) {
                Question::Score => match args.progress {
                    Some(every) => format!("{moves} {}", with_progress(solver, &p, moves, every)?),
                    None => format!("{moves} {}", solver.solve(&p).map_err(failed)?),
                },
                Question::Sign => format!("{moves} {}", solver.solve_weak(&p).map_err(failed)?),
                Question::Moves => {
                    let mut text = moves.to_string();
                    for score in solver.analyze(&p).map_err(failed)? {
                        match score {
                            Some(s) => write!(text, " {s}"),
                            None => write!(text, " -"),
                        }
                        .map_err(|e| e.to_string())?;
                    }
                    text
                }
                Question::Best => {
                    let (score, best) = solver.best_moves(&p).map_err(failed)?;
                    if args.explain {
                        explain(shape.cells(), p.moves_played(), moves, score, &best)?
                    } else {
                        let mut text = moves.to_string();
                        for column in best_columns(&best) {
                            write!(text, " {}", column_name(column)).map_err(|e| e.to_string())?;
                        }
                        text
                    }
                }
            };
            (text, true)
        }
    };
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
    Ok((text, settled))
}

/// The score of `p`, solved while another thread prints on stderr, every
/// `every`, what the solve has proven so far (`--progress`).
fn with_progress(
    solver: &mut wide::Solver,
    p: &wide::Position,
    moves: &str,
    every: Duration,
) -> Result<i32, String> {
    let handle = solver.stop_handle();
    let before = handle.positions();
    let start = Instant::now();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // Until the solve ends and drops the sender.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(every)
            {
                let Some(proven) = handle.proven() else {
                    continue;
                };
                output::note(format_args!(
                    "progress: {}: {:.1} s, {} positions, score {}..{}, asking above {}?",
                    Quoted::new(moves),
                    start.elapsed().as_secs_f64(),
                    handle.positions().saturating_sub(before),
                    proven.lower,
                    proven.upper,
                    proven.asking
                ));
            }
        });
        let score = solver.solve_until(p, None);
        drop(done);
        match score {
            Ok(Ok(score)) => Ok(score),
            Ok(Err(stopped)) => Err(stopped.to_string()),
            Err(e) => Err(e.to_string()),
        }
    })
}

/// The fields after the position under `--timeout`, and whether they are
/// settled: what the question asks, as far as the anytime analysis proves
/// it by `deadline`. It stops as soon as the answer is settled: the
/// position's score (or its sign) needs only the best column's exact
/// score and the others' bounds under it.
fn bounded(
    solver: &mut wide::Solver,
    p: &wide::Position,
    args: &Args,
    deadline: Instant,
) -> (String, bool) {
    let of_position = |r: ScoreRange| if args.weak { sign_range(r) } else { r };
    let settled = |a: &wide::Analysis| {
        if args.analyze {
            a.done
        } else {
            a.score().is_some_and(|r| of_position(r).exact().is_some())
        }
    };
    if !args.analyze {
        // A position of the book needs no search, as without --timeout.
        let shape = *solver.shape();
        if let Some(score) = solver.book().and_then(|book| book.score_as_data(&shape, p)) {
            let r = of_position(ScoreRange {
                lower: score,
                upper: score,
            });
            return (format!(" {}", Range(r)), true);
        }
    }
    let goal = match (args.analyze, args.weak) {
        (true, _) => Goal::Everything,
        (false, true) => Goal::Sign,
        (false, false) => Goal::Score,
    };
    let analysis = solver.analyze_anytime(p, goal, Some(deadline), TIMEOUT_TICK, |_| {});
    let fields = if args.analyze {
        analysis
            .columns
            .iter()
            .map(|c| c.map_or(" -".to_string(), |r| format!(" {}", Range(r))))
            .collect()
    } else {
        // A game that goes on has a column to play.
        analysis
            .score()
            .map_or(String::new(), |r| format!(" {}", Range(of_position(r))))
    };
    (fields, settled(&analysis))
}

/// The bounds on the sign (1, 0 or -1) that bounds on a score give.
fn sign_range(r: ScoreRange) -> ScoreRange {
    ScoreRange {
        lower: r.lower.signum(),
        upper: r.upper.signum(),
    }
}

/// A range as `solve --timeout` prints it: the score once exact, else
/// `LO..HI`.
struct Range(ScoreRange);

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.exact() {
            Some(score) => write!(f, "{score}"),
            None => write!(f, "{}..{}", self.0.lower, self.0.upper),
        }
    }
}

/// The columns, numbered from 1, whose flag is set.
fn best_columns(best: &[bool]) -> impl Iterator<Item = usize> + '_ {
    (1..).zip(best).filter(|(_, &b)| b).map(|(c, _)| c)
}

/// The line of `--explain` for a position of `cells` cells after `n`
/// moves: who wins with which disc, the score, and the best moves.
fn explain(cells: usize, n: u32, moves: &str, score: i32, best: &[bool]) -> Result<String, String> {
    let verdict = Verdict::after(cells, n, score)
        .ok_or_else(|| format!("no game from here scores {score}"))?;
    let columns: Vec<String> = best_columns(best)
        .map(|c| column_name(c).to_string())
        .collect();
    let best = match columns.as_slice() {
        [one] => format!("best move {one}"),
        [first @ .., last] => format!("best moves {} and {last}", first.join(", ")),
        [] => return Err("no move keeps the score".to_string()),
    };
    let label = if moves.is_empty() {
        "the empty board"
    } else {
        moves
    };
    Ok(format!("{label}: {verdict} (score {score}); {best}"))
}
