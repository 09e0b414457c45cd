//! `score4 bench`: solve labelled fixture files, report speed and correctness.

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use score4::bench::{run_set, warm_up, Sample, Summary};
use score4::fixture::{self, Entry};
use score4::input::Quoted;
use score4::wide::notation::Base;
use score4::wide::{self, Shape};
use score4::BoardSize;
use serde::Serialize;

use crate::output::{self, Output, FAILED, OK, PARTLY};

/// Where the default sets live, relative to the repository root.
const DEFAULT_DIR: &str = "fixtures/solver";

/// Options of `score4 bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Fixture files (`MOVES SCORE` per line); every set in fixtures/solver if none (7x6 only).
    files: Vec<PathBuf>,
    #[command(flatten)]
    board: crate::BoardArg,
    #[command(flatten)]
    book: crate::book::BookArg,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Solve for the sign only (win, draw or loss) and check the label's sign.
    #[arg(long)]
    weak: bool,
    /// Transposition table size in MiB [default: 4; 256 on boards of more
    /// than 42 cells].
    #[arg(long, value_name = "MB", value_parser = crate::table_mb, allow_negative_numbers = true)]
    table_mb: Option<usize>,
    /// Solve only the first N positions of each file (at least 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = |s: &str| crate::whole::<usize>(s, 1..=usize::MAX as u64))]
    limit: Option<usize>,
    /// Empty the table before each position, as tools without a shared table do.
    #[arg(long)]
    fresh_table: bool,
    #[command(flatten)]
    base: crate::BaseArg,
}

#[derive(Serialize)]
struct FileReport {
    file: String,
    positions: usize,
    wrong: usize,
    mean_us: f64,
    median_us: f64,
    max_us: f64,
    mean_nodes: f64,
    nodes_per_sec: f64,
    total_s: f64,
}

#[derive(Serialize)]
struct WrongAnswer {
    file: String,
    line: usize,
    moves: String,
    expected: i32,
    got: i32,
}

#[derive(Serialize)]
struct Report {
    files: Vec<FileReport>,
    wrong_answers: Vec<WrongAnswer>,
}

/// Runs the benchmark over every file and returns the exit status.
pub fn run(args: Args) -> u8 {
    let shape = args.board.shape();
    let files = if args.files.is_empty() {
        if args.board.compiled() != Some(BoardSize::STANDARD) {
            return fail(&format!(
                "no default fixture sets for {}: name the files",
                args.board.shape()
            ));
        }
        match default_files() {
            Ok(files) => files,
            Err(message) => return fail(&message),
        }
    } else {
        args.files.clone()
    };
    let mut sets = Vec::with_capacity(files.len());
    for file in &files {
        match read_set(&shape, args.base.base(), file, args.limit) {
            Ok(set) => sets.push((file.display().to_string(), set)),
            Err(message) => return fail(&message),
        }
    }

    let total: usize = sets.iter().map(|(_, set)| set.len()).sum();
    let bar = ProgressBar::new(total as u64).with_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );

    let table_mb = args
        .table_mb
        .unwrap_or(score4::default_table_mb(1, shape.cells()));
    let mut solver = match wide::Solver::new(shape, table_mb) {
        Ok(solver) => solver,
        Err(e) => return fail(&format!("--table-mb {table_mb}: {e}")),
    };
    if let Err(message) = args.book.apply(&mut solver) {
        // Already `book: ...`, as every command's errors about a book.
        output::error(message);
        return FAILED;
    }
    if let Some((_, set)) = sets.iter().find(|(_, set)| !set.is_empty()) {
        solver.touch_table();
        // A fixture never holds a finished game.
        warm_up(set, |p| {
            let _ = solver.solve(p);
        });
        solver.clear_table();
    }
    let mut report = Report {
        files: Vec::new(),
        wrong_answers: Vec::new(),
    };
    for (name, set) in &sets {
        bar.set_prefix(name.clone());
        let samples = run_set(
            set,
            args.weak,
            &mut solver,
            |solver, p| {
                solver.reset_nodes();
                // A fixture never holds a finished game: every position
                // has a score.
                let score = if args.weak {
                    solver.solve_weak(p)
                } else {
                    solver.solve(p)
                };
                (score.unwrap_or_default(), solver.nodes())
            },
            |solver| {
                bar.inc(1);
                if args.fresh_table {
                    solver.clear_table();
                }
            },
        );
        record(&mut report, name, set, &samples);
    }
    bar.finish_and_clear();

    let text = if args.json {
        match serde_json::to_string(&report) {
            Ok(json) => json + "\n",
            Err(e) => return fail(&format!("cannot write JSON: {e}")),
        }
    } else {
        table(&report)
    };
    let status = if report.wrong_answers.is_empty() {
        OK
    } else {
        PARTLY
    };
    Output::new().finish(&text, status)
}

fn fail(message: &str) -> u8 {
    output::error(format_args!("bench: {message}"));
    FAILED
}

/// Every `.txt` file in the default directory, sorted by name.
fn default_files() -> Result<Vec<PathBuf>, String> {
    let dir = Path::new(DEFAULT_DIR);
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!("no files given and cannot read {DEFAULT_DIR} ({e}); run from the repository root or name the files")
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .txt fixture files in {DEFAULT_DIR}"));
    }
    Ok(files)
}

fn read_set(
    shape: &Shape,
    base: Base,
    file: &Path,
    limit: Option<usize>,
) -> Result<Vec<Entry>, String> {
    let name = Quoted::new(file.as_os_str().as_encoded_bytes());
    let reader = File::open(file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut set = fixture::read_on(shape, base, BufReader::new(reader))
        .map_err(|e| format!("{name}: {e}"))?;
    // A report of nothing measured would read as a pass.
    if set.is_empty() {
        return Err(format!(
            "{name}: no positions (a fixture holds one `MOVES SCORE` per line)"
        ));
    }
    if let Some(limit) = limit {
        set.truncate(limit);
    }
    Ok(set)
}

fn record(report: &mut Report, name: &str, set: &[Entry], samples: &[Sample]) {
    let s = Summary::of(samples);
    report.files.push(FileReport {
        file: name.to_string(),
        positions: s.positions,
        wrong: s.wrong,
        mean_us: micros(s.mean),
        median_us: micros(s.median),
        max_us: micros(s.max),
        mean_nodes: s.mean_nodes,
        nodes_per_sec: s.nodes_per_sec,
        total_s: s.total.as_secs_f64(),
    });
    for (sample, labelled) in samples.iter().zip(set) {
        if !sample.is_correct() {
            report.wrong_answers.push(WrongAnswer {
                file: name.to_string(),
                line: sample.line,
                moves: labelled.moves.clone(),
                expected: sample.expected,
                got: sample.got,
            });
        }
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A duration in the unit that keeps three significant digits readable.
fn human(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.1} us")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

fn table(report: &Report) -> String {
    let mut out = String::new();
    let width = report
        .files
        .iter()
        .map(|f| f.file.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:<width$} {:>9} {:>5} {:>10} {:>10} {:>10} {:>12} {:>10} {:>9}",
        "file", "positions", "wrong", "mean", "median", "max", "mean nodes", "Mnodes/s", "total"
    );
    for f in &report.files {
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>5} {:>10} {:>10} {:>10} {:>12.0} {:>10.2} {:>9}",
            f.file,
            f.positions,
            f.wrong,
            human(f.mean_us),
            human(f.median_us),
            human(f.max_us),
            f.mean_nodes,
            f.nodes_per_sec / 1e6,
            human(f.total_s * 1e6),
        );
    }
    for w in &report.wrong_answers {
        let _ = writeln!(
            out,
            "wrong: {}:{} {} expected {} got {}",
            w.file, w.line, w.moves, w.expected, w.got
        );
    }
    out
}
