//! `score4 split`: a long solve kept on disk as it goes (resumed by running
//! the same command again), or shared over machines in rounds of jobs.

use std::io;
use std::path::PathBuf;
use std::time::Instant;

use score4::default_table_mb;
use score4::input::Lines;
use score4::split::{Job, Loaded, Plan, Split, SplitError};
use score4::wide::{Shape, Solver};

use crate::output::{self, Output, FAILED, OK};

/// What `score4 split` does.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Solve ROOT, searching the positions DEPTH moves down one by one and
    /// appending each result to FILE as it is found; run again with the
    /// same arguments, it goes on from what FILE holds. Prints the score.
    Solve {
        #[command(flatten)]
        searching: Searching,
        #[command(flatten)]
        probing: Probing,
        /// Say on stderr each search as it is recorded: `split: MOVES ALPHA
        /// BOUND POSITIONS SECONDS`.
        #[arg(long)]
        progress: bool,
    },
    /// Read the record files and print the root's score as `score S`, or
    /// the jobs (`MOVES ALPHA`, one per line) the next round needs.
    Plan {
        #[command(flatten)]
        split: SplitArgs,
        #[command(flatten)]
        probing: Probing,
        /// Record files of this split (from every machine).
        #[arg(value_name = "FILE")]
        records: Vec<PathBuf>,
    },
    /// Run the jobs read from stdin (lines `MOVES ALPHA` from `plan`),
    /// appending each result to FILE; prints `MOVES ALPHA BOUND POSITIONS`
    /// for each.
    Run(Searching),
}

/// The arguments of the commands that search: the split, this machine's
/// record file and how each search runs.
#[derive(clap::Args)]
pub struct Searching {
    #[command(flatten)]
    split: SplitArgs,
    /// This machine's record file: created if missing, else read and
    /// appended to.
    #[arg(long, value_name = "FILE")]
    records: PathBuf,
    #[command(flatten)]
    search: SearchArgs,
}

/// The split: its root, depth and board (the identity every record file
/// carries).
#[derive(clap::Args)]
pub struct SplitArgs {
    /// The position to solve, as moves from the empty board (`-` or "" for
    /// the empty board).
    #[arg(value_name = "ROOT")]
    root: String,
    /// How many moves below the root the independent searches start.
    #[arg(long, value_name = "D", default_value_t = 2, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(0..=8))]
    depth: u32,
    #[command(flatten)]
    board: crate::BoardArg,
}

/// Which windows the root is probed with.
#[derive(clap::Args)]
pub struct Probing {
    /// Probe the root first at score S ("above S - 1?", then "above S?"):
    /// right, it is proven with the fewest searches; wrong, it costs time,
    /// never the answer. Plan every round of a solve with the same guess.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    guess: Option<i32>,
}

impl Probing {
    fn apply(&self, split: &mut Split) -> Result<(), String> {
        match self.guess {
            Some(guess) => split.set_guess(guess).map_err(|e| format!("--{e}")),
            None => Ok(()),
        }
    }
}

/// How each search runs.
#[derive(clap::Args)]
pub struct SearchArgs {
    /// Transposition table size in MiB [default: 4, or 32 with several
    /// threads; 256 for one thread on boards of more than 42 cells].
    #[arg(long, value_name = "N", value_parser = crate::table_mb, allow_negative_numbers = true)]
    table_mb: Option<usize>,
    /// Threads searching each position together.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u16).range(1..=crate::MAX_THREADS))]
    threads: u16,
    #[command(flatten)]
    journal: crate::journal::JournalArg,
}

/// Runs the command and returns the exit status.
pub fn run(command: Command) -> u8 {
    match run_on(command) {
        Ok(status) => status,
        Err(e) => {
            output::error(format_args!("split: {e}"));
            FAILED
        }
    }
}

fn run_on(command: Command) -> Result<u8, String> {
    let new_split = |args: &SplitArgs| {
        Split::new(args.board.shape(), &args.root, args.depth).map_err(|e| e.to_string())
    };
    match command {
        Command::Solve {
            searching:
                Searching {
                    split,
                    records,
                    search,
                },
            probing,
            progress,
        } => {
            let shape = split.board.shape();
            let mut split = new_split(&split)?;
            probing.apply(&mut split)?;
            let mut solver = solver(shape, &search)?;
            let (mut recorder, loaded) = split.open(&records).map_err(|e| e.to_string())?;
            say_loaded(&records, loaded);
            let mut since = Instant::now();
            let score = split
                .solve_observed(&mut solver, &mut recorder, |job, bound, positions| {
                    if progress {
                        output::note(format_args!(
                            "split: {job} {bound} {positions} {:.1}",
                            since.elapsed().as_secs_f64()
                        ));
                    }
                    since = Instant::now();
                })
                .map_err(|e| e.to_string())?;
            output::note(format_args!(
                "split: {} positions searched by this run",
                solver.nodes()
            ));
            let printed = Output::new().finish(&format!("{score}\n"), OK);
            crate::journal::failure(&solver).map_or(Ok(printed), Err)
        }
        Command::Plan {
            split,
            probing,
            records,
        } => {
            let mut split = new_split(&split)?;
            probing.apply(&mut split)?;
            for path in &records {
                let loaded = split.load(path).map_err(|e| e.to_string())?;
                say_loaded(path, loaded);
            }
            let text = match split.plan() {
                Plan::Score(score) => format!("score {score}\n"),
                Plan::Jobs(jobs) => jobs.iter().map(|job| format!("{job}\n")).collect(),
            };
            Ok(Output::new().finish(&text, OK))
        }
        Command::Run(Searching {
            split,
            records,
            search,
        }) => {
            let shape = split.board.shape();
            let mut split = new_split(&split)?;
            let mut solver = solver(shape, &search)?;
            let (mut recorder, _) = split.open(&records).map_err(|e| e.to_string())?;
            let mut out = Output::new();
            let mut lines = Lines::new(io::stdin().lock()).stopping_at_long_lines();
            while let Some((number, line)) = lines
                .next_line()
                .map_err(|e| format!("reading stdin: {e}"))?
            {
                let line = line.map_err(|e| format!("line {number}: {e}"))?;
                if line.trim().is_empty() {
                    continue;
                }
                let job: Job = split.job(line).map_err(|e| format!("line {number}: {e}"))?;
                solver.reset_nodes();
                let bound = split
                    .run(&job, &mut solver, &mut recorder)
                    .map_err(|e: SplitError| e.to_string())?;
                let line = format!("{job} {bound} {}", solver.nodes());
                if let Err(stop) = out.line(&line) {
                    return Ok(stop.status(OK));
                }
            }
            crate::journal::failure(&solver).map_or(Ok(OK), Err)
        }
    }
}

fn solver(shape: Shape, search: &SearchArgs) -> Result<Solver, String> {
    let threads = usize::from(search.threads);
    let mb = search
        .table_mb
        .unwrap_or(default_table_mb(threads, shape.cells()));
    let mut solver = Solver::new(shape, mb).map_err(|e| format!("--table-mb {mb}: {e}"))?;
    solver.set_threads(threads);
    search.journal.apply(&mut solver)?;
    Ok(solver)
}

/// Says on stderr what a record file held, if anything.
fn say_loaded(path: &std::path::Path, loaded: Loaded) {
    if loaded.records > 0 || loaded.damaged > 0 {
        output::note(format_args!(
            "split: {}: {} results read, {} damaged lines skipped",
            score4::input::quoted_path(path),
            loaded.records,
            loaded.damaged
        ));
    }
}
