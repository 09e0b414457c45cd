//! `score4 book`: build, merge, check and describe opening books. The
//! work is the library's (`score4::book`); this module reads the flags,
//! draws the progress bar and prints.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use score4::book::build::{self, BuildError, Options, Progress};
use score4::book::{check, Book, CheckError, FileError, Kind};
use score4::wide::Shape;

use crate::output::{self, Output, FAILED, OK, PARTLY};

/// The subcommands of `score4 book`.
// Parsed once a run: the size of its largest variant (the board's masks,
// a `Shape`) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(clap::Subcommand)]
pub enum Command {
    /// Compute a book: the exact score of every position with at most
    /// DEPTH moves. Resumable: a killed run goes on from OUT.partial.
    Build(BuildArgs),
    /// Join the parts built with --share into one book.
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
    #[arg(long, value_name = "D", allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    depth: u32,
    #[command(flatten)]
    board: crate::BoardArg,
    /// Solving threads, each with its own table [default: every core]
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = clap::value_parser!(u16).range(1..=crate::MAX_THREADS))]
    threads: Option<u16>,
    /// Build only share I of N (from 1): a part for `score4 book merge`
    /// (`--shard` is the same option).
    #[arg(long, alias = "shard", value_name = "I/N", value_parser = parse_share)]
    share: Option<(u16, u16)>,
    /// Table size of each thread in MiB.
    #[arg(long, value_name = "MB", default_value_t = 256, value_parser = crate::table_mb,
          allow_negative_numbers = true)]
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
    #[arg(
        long,
        value_name = "K",
        default_value_t = 20,
        allow_negative_numbers = true,
        value_parser = |s: &str| crate::whole::<usize>(s, 0..=usize::MAX as u64)
    )]
    sample: usize,
    /// Seed of the random choice.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 1,
        allow_negative_numbers = true,
        value_parser = crate::seed
    )]
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
        Command::Build(args) => build(&args),
        Command::Merge(args) => merge(&args),
        Command::Check(args) => check_book(&args),
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
fn parse_share(text: &str) -> Result<(u16, u16), String> {
    let bad = || "expected I/N with 1 <= I <= N <= 65535, such as 2/8".to_string();
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    match (i.parse::<u16>(), n.parse::<u16>()) {
        (Ok(i), Ok(n)) if (1..=n).contains(&i) => Ok((i, n)),
        _ => Err(bad()),
    }
}

type Done = Result<(String, u8), String>;

/// What a book is, as the commands name it.
fn kind_name(kind: Kind) -> String {
    match kind {
        Kind::Book => "book".to_string(),
        Kind::Share { index, count } => format!("share {index}/{count}"),
    }
}

/// The bar `book build` draws on stderr.
fn progress_bar(total: usize, done: usize, depth: u32) -> ProgressBar {
    let bar = ProgressBar::new(total as u64).with_style(
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
    bar.set_message(depth.to_string());
    bar.set_position(done as u64);
    bar.reset_eta();
    bar
}

/// `book build`.
fn build(args: &BuildArgs) -> Done {
    let start = Instant::now();
    let options = Options {
        shape: args.board.shape(),
        depth: args.depth,
        share: args.share,
        threads: args.threads.map_or_else(crate::all_cores, usize::from),
        table_mb: args.table_mb,
        out: args.out.clone(),
    };
    let mut bar: Option<ProgressBar> = None;
    let built = build::build(&options, |Progress { done, total }| match &bar {
        Some(bar) => bar.set_position(done as u64),
        None => bar = Some(progress_bar(total, done, args.depth)),
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let built = built.map_err(|e| match e {
        BuildError::Table { table_mb, source } => format!("--table-mb {table_mb}: {source}"),
        e => e.to_string(),
    })?;
    let book = &built.book;
    let solve_time = built.solving.as_secs_f64();
    let text = format!(
        "{}: {} of {}, depth {}, {} positions; searched {} positions with {} moves in {:.1} s ({:.1} per second, {} thread{}), {:.1} s in all\n",
        args.out.display(),
        kind_name(book.kind()),
        book.shape(),
        book.depth(),
        book.len(),
        built.searched,
        built.leaf_moves,
        solve_time,
        built.searched as f64 / solve_time.max(1e-9),
        built.threads,
        if built.threads == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
    );
    Ok((text, OK))
}

/// `book merge`.
fn merge(args: &MergeArgs) -> Done {
    let book = build::merge(&args.parts, &args.out).map_err(|e| e.to_string())?;
    Ok((
        format!(
            "{}: book of {}, depth {}, {} positions from {} parts\n",
            args.out.display(),
            book.shape(),
            book.depth(),
            book.len(),
            args.parts.len()
        ),
        OK,
    ))
}

/// `book check`.
fn check_book(args: &CheckArgs) -> Done {
    let book = Book::load(&args.file).map_err(|e| e.to_string())?;
    let report = check(&book, args.sample, args.seed).map_err(|e| match e {
        e @ (CheckError::Incomplete { .. } | CheckError::ShareTooLarge { .. }) => {
            format!("{}: {e}", args.file.display())
        }
        e => e.to_string(),
    })?;
    let mut text = String::new();
    for d in &report.disagreements {
        let stored = d.stored.map_or("missing".to_string(), |s| s.to_string());
        text.push_str(&format!(
            "disagree: position with {} moves (key {}): book {stored}, search {}\n",
            d.moves, d.key, d.searched
        ));
    }
    text.push_str(&format!(
        "{}: {} positions, {} missing, {} not expected; {} re-solved by search in {:.1} s, {} disagree\n",
        args.file.display(),
        report.positions,
        report.missing,
        report.extra,
        report.sampled,
        report.solving.as_secs_f64(),
        report.disagreements.len(),
    ));
    let status = if report.passed() { OK } else { PARTLY };
    Ok((text, status))
}

/// `book info`.
fn info(args: &InfoArgs) -> Done {
    let book = Book::load(&args.file).map_err(|e| e.to_string())?;
    let bytes = book.to_bytes().len();
    Ok((
        format!(
            "board {}\ndepth {}\nkind {}\npositions {}\nbytes {bytes}\n",
            book.shape(),
            book.depth(),
            kind_name(book.kind()),
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
    /// Gives `solver` the book asked for; an error is one line starting
    /// `book:`, like every other command's error about a book.
    pub fn apply(&self, solver: &mut score4::wide::Solver) -> Result<(), String> {
        if self.no_book {
            solver.drop_book();
        } else if self.book.is_some() {
            let shape = *solver.shape();
            if let Some(book) = self.load(&shape)? {
                solver.use_book(book).map_err(|e| format!("book: {e}"))?;
            }
        }
        Ok(())
    }

    /// The book file named, read whole, if one is.
    fn load(&self, shape: &Shape) -> Result<Option<Arc<Book>>, String> {
        let Some(path) = &self.book else {
            return Ok(None);
        };
        let book = Book::load_whole(path, shape).map_err(|e: FileError| format!("book: {e}"))?;
        Ok(Some(Arc::new(book)))
    }
}
