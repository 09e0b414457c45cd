//! `score4 book`: build, merge, check and describe opening books.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use score4::book::build::BuildError;
use score4::book::build::{solve_all, solvers, Plan, MAX_POSITIONS};
use score4::book::{canonical_key, Book, Kind};
use score4::input::Quoted;
use score4::{with_board_size, Position, Solver};

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
    let mut checkpoint = Checkpoint::open(&with_suffix(&args.out, ".partial"), args, share)?;
    let todo: Vec<Position<W, H>> = share
        .iter()
        .filter(|p| !checkpoint.done.contains_key(&canonical_key(*p)))
        .copied()
        .collect();
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
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
                failure = Some(e);
                false
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    let solve_time = solving.elapsed().as_secs_f64();
    let scores = &checkpoint.done;
    let book = match args.shard {
        None => plan.complete(|k| scores.get(&k).copied()),
        Some(_) => plan.part(index, count, |k| scores.get(&k).copied()),
    }
    .map_err(|e| e.to_string())?;
    // The scores came from a file: the book must read back before the
    // checkpoint holding them is removed.
    Book::from_bytes(book.to_bytes())
        .map_err(|e| format!("the finished book does not check ({e}); the checkpoint is kept"))?;
    save(&book, &args.out)?;
    checkpoint.remove();
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

/// The scores solved so far, kept in `OUT.partial` as they come: a header
/// naming the build, then one record per position (key, score), so that a
/// killed run loses at most the record it was writing.
struct Checkpoint {
    path: PathBuf,
    file: File,
    done: HashMap<u64, i8>,
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"score4ck";
/// The checkpoint format, after the magic.
const CHECKPOINT_VERSION: u8 = 1;
const CHECKPOINT_RECORD: usize = 9;

impl Checkpoint {
    fn header(args: &BuildArgs) -> Vec<u8> {
        let (index, count) = args.shard.unwrap_or((0, 0));
        let mut h = CHECKPOINT_MAGIC.to_vec();
        h.push(CHECKPOINT_VERSION);
        h.push(args.board.board.width() as u8);
        h.push(args.board.board.height() as u8);
        h.push(args.depth as u8);
        h.extend_from_slice(&(index as u16).to_le_bytes());
        h.extend_from_slice(&(count as u16).to_le_bytes());
        h
    }

    /// Opens the checkpoint of this build, reading what it holds, or
    /// starts one. A checkpoint of another build, or holding positions
    /// outside this share, is refused rather than mixed in.
    fn open<const W: usize, const H: usize>(
        path: &Path,
        args: &BuildArgs,
        share: &[Position<W, H>],
    ) -> Result<Self, String> {
        let name = Quoted::new(path.as_os_str().as_encoded_bytes());
        let header = Self::header(args);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| format!("cannot open {name}: {e}"))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        let mut done = HashMap::new();
        if bytes.is_empty() {
            file.write_all(&header)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
        } else {
            if !bytes.starts_with(&header) {
                return Err(format!(
                    "{name} holds the work of another build (board, depth or share): remove it, or build with its options"
                ));
            }
            let leaves: HashMap<u64, &Position<W, H>> =
                share.iter().map(|p| (canonical_key(p), p)).collect();
            // Records are kept up to the first that is not a score of this
            // share's (a torn write, or blocks a crash left zeroed); the
            // file is cut there so that the next records line up.
            let mut whole = header.len();
            for record in bytes[header.len()..].chunks_exact(CHECKPOINT_RECORD) {
                let mut key = [0u8; 8];
                key.copy_from_slice(&record[..8]);
                let key = u64::from_le_bytes(key);
                let score = record[8] as i8;
                let valid = leaves
                    .get(&key)
                    .is_some_and(|p| p.score_range().contains(&i32::from(score)));
                if !valid {
                    break;
                }
                done.insert(key, score);
                whole += CHECKPOINT_RECORD;
            }
            if whole < bytes.len() {
                file.set_len(whole as u64)
                    .and_then(|()| file.seek(io::SeekFrom::End(0)).map(drop))
                    .map_err(|e| format!("cannot repair {name}: {e}"))?;
            }
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            done,
        })
    }

    fn record(&mut self, key: u64, score: i8) -> Result<(), String> {
        let mut record = [0u8; CHECKPOINT_RECORD];
        record[..8].copy_from_slice(&key.to_le_bytes());
        record[8] = score as u8;
        self.file.write_all(&record).map_err(|e| {
            format!(
                "cannot write {}: {e}",
                Quoted::new(self.path.as_os_str().as_encoded_bytes())
            )
        })?;
        self.done.insert(key, score);
        Ok(())
    }

    fn remove(self) {
        drop(self.file);
        let _ = fs::remove_file(&self.path);
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
