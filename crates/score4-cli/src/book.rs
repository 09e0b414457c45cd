//! `score4 book`: build, merge, check and describe opening books.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use score4::book::build::BuildError;
use score4::book::build::{solve_all, solvers, Plan, MAX_POSITIONS};
use score4::book::checkpoint::{BuildId, Checkpoint, CheckpointError};
use score4::book::{canonical_key, Book, Kind};
use score4::input::Quoted;
use score4::{with_board_size, BoardSize, Position, Solver};

use crate::output::{self, Output, FAILED, OK, PARTLY};

/// The subcommands of `score4 book`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Compute a book: the exact score of every position with at most
    /// DEPTH moves. Resumable: a killed run goes on from OUT.partial.
    Build(BuildArgs),
    /// Join the parts built with --shard into one book.
    Merge(MergeArgs),
    /// Check a book: every position present, and a sample re-solved by search.
    Check(CheckArgs),
    /// Describe a book file: board, depth, kind, positions, size.
    Info(InfoArgs),
}

/// Options of `score4 book build`.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// Every position with at most this many moves.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(0..=64))]
    depth: u32,
    #[command(flatten)]
    board: crate::BoardArg,
    /// Solving threads, each with its own table [default: every core]
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=crate::MAX_THREADS))]
    threads: Option<u16>,
    /// Build only share I of N (from 1): a part for `score4 book merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Table size of each thread in MiB.
    #[arg(long, value_name = "MB", default_value_t = 256, value_parser = crate::table_mb)]
    table_mb: usize,
    /// The book (or part) to write; OUT.partial holds the work done so far.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Options of `score4 book merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The parts, one per share (any order).
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The book to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Options of `score4 book check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The book to check.
    file: PathBuf,
    /// How many positions to re-solve by search, chosen at random.
    #[arg(long, value_name = "K", default_value_t = 20)]
    sample: usize,
    /// Seed of the random choice.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

/// Options of `score4 book info`.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// The book to describe.
    file: PathBuf,
}

/// Runs a `book` subcommand and returns the exit status.
pub fn run(command: Command) -> u8 {
    let result = match command {
        Command::Build(args) => with_board_size!(args.board.board, build(&args)),
        Command::Merge(args) => merge(&args),
        Command::Check(args) => check(&args),
        Command::Info(args) => info(&args),
    };
    match result {
        Ok((text, status)) => Output::new().finish(&text, status),
        Err(message) => {
            output::error(format_args!("book: {message}"));
            FAILED
        }
    }
}

/// Parses `I/N`: share I (from 1) of N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || "expected I/N with 1 <= I <= N <= 65535, such as 2/8".to_string();
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.parse::<usize>(), n.parse::<usize>());
    match (i, n) {
        (Ok(i), Ok(n)) if (1..=n).contains(&i) && n <= usize::from(u16::MAX) => Ok((i, n)),
        _ => Err(bad()),
    }
}

/// Reads and checks a book file.
pub fn load(path: &Path) -> Result<Book, String> {
    let name = Quoted::new(path.as_os_str().as_encoded_bytes());
    let bytes = fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    Book::from_bytes(bytes).map_err(|e| format!("{name}: {e}"))
}

/// Writes `book` to `path` whole or not at all: a temporary file beside
/// it, renamed into place.
fn save(book: &Book, path: &Path) -> Result<(), String> {
    let name = Quoted::new(path.as_os_str().as_encoded_bytes());
    let temporary = with_suffix(path, ".tmp");
    let write = || -> io::Result<()> {
        let mut file = File::create(&temporary)?;
        file.write_all(&book.to_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&temporary);
        format!("cannot write {name}: {e}")
    })
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

type Done = Result<(String, u8), String>;

/// `book build` on the `W` x `H` board.
fn build<const W: usize, const H: usize>(args: &BuildArgs) -> Done {
    let start = Instant::now();
    let plan = Plan::<W, H>::try_new(args.depth, MAX_POSITIONS).map_err(|e| e.to_string())?;
    let (index, count) = args.shard.unwrap_or((1, 1));
    let share = plan.share(index, count);
    let partial = with_suffix(&args.out, ".partial");
    let partial_name = Quoted::new(partial.as_os_str().as_encoded_bytes()).to_string();
    let id = BuildId {
        size: BoardSize::of::<W, H>(),
        depth: args.depth,
        share: args.shard.map(|(i, n)| (i as u16, n as u16)),
    };
    let mut checkpoint =
        Checkpoint::open(&partial, id, share).map_err(|e| checkpoint_error(&partial_name, e))?;
    let todo: Vec<Position<W, H>> = share
        .iter()
        .filter(|p| !checkpoint.contains(canonical_key(p)))
        .copied()
        .collect();
    let threads = args.threads.map_or_else(crate::all_cores, usize::from);
    let solvers = solvers::<W, H>(threads, args.table_mb)
        .map_err(|e| format!("--table-mb {}: {e}", args.table_mb))?;
    let bar = ProgressBar::new(share.len() as u64).with_style(
        ProgressStyle::with_template(
            "{pos}/{len} positions with {msg} moves [{bar:30}] {rate} {elapsed_precise}, about {eta} left",
        )
        .map(|style| {
            style.with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            })
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(args.depth.to_string());
    bar.set_position((share.len() - todo.len()) as u64);
    bar.reset_eta();
    let solving = Instant::now();
    let mut failure = None;
    solve_all(&todo, solvers, |key, score| {
        match checkpoint.record(key, score) {
            Ok(()) => {
                bar.inc(1);
                true
            }
            Err(e) => {
                failure = Some(checkpoint_error(&partial_name, e));
                false
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    let solve_time = solving.elapsed().as_secs_f64();
    let book = match args.shard {
        None => plan.complete(|k| checkpoint.score(k)),
        Some(_) => plan.part(index, count, |k| checkpoint.score(k)),
    }
    .map_err(|e| e.to_string())?;
    // The scores came from a file: the book must read back before the
    // checkpoint holding them is removed.
    Book::from_bytes(book.to_bytes())
        .map_err(|e| format!("the finished book does not check ({e}); the checkpoint is kept"))?;
    save(&book, &args.out)?;
    // The book is saved: a checkpoint left behind only costs disk space.
    let _ = checkpoint.remove();
    let what = match book.kind() {
        Kind::Book => "book".to_string(),
        Kind::Part { index, count } => format!("share {index}/{count}"),
    };
    let text = format!(
        "{}: {what} of {}, depth {}, {} positions; searched {} positions with {} moves in {:.1} s ({:.1} per second, {} thread{}), {:.1} s in all\n",
        args.out.display(),
        book.size(),
        book.depth(),
        book.len(),
        todo.len(),
        args.depth.min((W * H) as u32),
        solve_time,
        todo.len() as f64 / solve_time.max(1e-9),
        threads,
        if threads == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
    );
    Ok((text, OK))
}

/// One line naming the checkpoint `name` and what went wrong with it.
fn checkpoint_error(name: &str, e: CheckpointError) -> String {
    match e {
        CheckpointError::Io { action, source } => format!("cannot {action} {name}: {source}"),
        other => format!("{name} {other}"),
    }
}

/// `book merge`.
fn merge(args: &MergeArgs) -> Done {
    let parts = args
        .parts
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let size = parts[0].size();
    let depth = parts[0].depth();
    let book = with_board_size!(size, merge_on(depth, &parts))?;
    save(&book, &args.out)?;
    Ok((
        format!(
            "{}: book of {}, depth {}, {} positions from {} parts\n",
            args.out.display(),
            book.size(),
            book.depth(),
            book.len(),
            parts.len()
        ),
        OK,
    ))
}

fn merge_on<const W: usize, const H: usize>(depth: u32, parts: &[Book]) -> Result<Book, String> {
    Plan::<W, H>::try_new(depth, MAX_POSITIONS)
        .and_then(|plan| plan.merge(parts))
        .map_err(|e| e.to_string())
}

/// `book check`.
fn check(args: &CheckArgs) -> Done {
    let book = Arc::new(load(&args.file)?);
    with_board_size!(book.size(), check_on(&book, args))
}

fn check_on<const W: usize, const H: usize>(book: &Book, args: &CheckArgs) -> Done {
    // A whole book holds every position of its plan: listing more than it
    // holds proves it incomplete without listing them all.
    let limit = match book.kind() {
        Kind::Book => book.len().min(MAX_POSITIONS),
        Kind::Part { .. } => MAX_POSITIONS,
    };
    let plan = Plan::<W, H>::try_new(book.depth(), limit).map_err(|e| match e {
        BuildError::TooLarge { .. } if book.kind() == Kind::Book => {
            format!(
                "{}: incomplete: a book of depth {} holds more than its {} positions",
                args.file.display(),
                book.depth(),
                book.len()
            )
        }
        e => e.to_string(),
    })?;
    let expected: Vec<&Position<W, H>> = match book.kind() {
        Kind::Book => plan.positions().collect(),
        Kind::Part { index, count } => plan
            .share(usize::from(index), usize::from(count))
            .iter()
            .collect(),
    };
    let missing = expected.iter().filter(|p| book.score(*p).is_none()).count();
    let extra = book.len().saturating_sub(expected.len() - missing);
    let mut solver = Solver::<W, H>::try_with_table_mb(64).map_err(|e| e.to_string())?;
    solver.drop_book();
    let mut text = String::new();
    let mut wrong = 0;
    let mut state = args.seed.max(1);
    let sample = args.sample.min(expected.len());
    let start = Instant::now();
    for _ in 0..sample {
        // xorshift64*: a fixed, seedable choice, so a check can be repeated.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let pick = state.wrapping_mul(0x2545_F491_4F6C_DD1D) % expected.len() as u64;
        let p = expected[pick as usize];
        let (stored, searched) = (book.score(p), solver.solve(p));
        if stored != Some(searched) {
            wrong += 1;
            text.push_str(&format!(
                "disagree: position with {} moves (key {}): book {stored:?}, search {searched}\n",
                p.moves_played(),
                canonical_key(p)
            ));
        }
    }
    text.push_str(&format!(
        "{}: {} positions, {missing} missing, {extra} not expected; {sample} re-solved by search in {:.1} s, {wrong} disagree\n",
        args.file.display(),
        book.len(),
        start.elapsed().as_secs_f64()
    ));
    let status = if missing + extra + wrong == 0 {
        OK
    } else {
        PARTLY
    };
    Ok((text, status))
}

/// `book info`.
fn info(args: &InfoArgs) -> Done {
    let book = load(&args.file)?;
    let kind = match book.kind() {
        Kind::Book => "book".to_string(),
        Kind::Part { index, count } => format!("share {index}/{count}"),
    };
    let bytes = book.to_bytes().len();
    Ok((
        format!(
            "board {}\ndepth {}\nkind {kind}\npositions {}\nbytes {bytes}\n",
            book.size(),
            book.depth(),
            book.len()
        ),
        OK,
    ))
}

/// `--book FILE` and `--no-book`, for every command that solves.
#[derive(clap::Args)]
pub struct BookArg {
    /// Answer the positions this book holds from it instead of the
    /// built-in 7x6 book.
    #[arg(long, value_name = "FILE", conflicts_with = "no_book")]
    book: Option<PathBuf>,
    /// Search every position from scratch, even those a book holds.
    #[arg(long)]
    no_book: bool,
}

impl BookArg {
    /// Gives `solver` the book asked for.
    pub fn apply<const W: usize, const H: usize>(
        &self,
        solver: &mut Solver<W, H>,
    ) -> Result<(), String> {
        if self.no_book {
            solver.drop_book();
        } else if let Some(path) = &self.book {
            let book = load(path)?;
            let name = Quoted::new(path.as_os_str().as_encoded_bytes());
            if book.kind() != Kind::Book {
                return Err(format!(
                    "{name} is one share of a book: merge the shares first"
                ));
            }
            solver
                .use_book(Arc::new(book))
                .map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }
}
