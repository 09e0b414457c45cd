//! The `score4` command: parses arguments, calls the library, prints.
//!
//! Two grammars share the binary. The classic Score4 engine protocol
//! (`score4 o53 y43 -level 7`) is spoken when the first argument is a cell
//! token or one of its flags, with the explicit `score4 engine ...`, and
//! always when the binary runs under another name (a driver's
//! `interfaces/engine.exe`). Everything else goes through clap.

mod bench;
mod book;
mod engine;
mod journal;
mod output;
mod play;
mod solve;
mod split;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand};
use score4::input::Quoted;

use output::{Output, Stop, FAILED, OK};

#[derive(Parser)]
#[command(
    name = "score4",
    version,
    about = "Connect Four engine, perfect solver and benchmark",
    // Plain: clap's colours would hide where user text starts in an error,
    // and every message is escaped and printed as one plain line anyway.
    styles = clap::builder::Styles::plain()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Answer one move in the classic Score4 engine protocol:
    /// `score4 engine [CELL ...] [-debug] [-level N] [-perfect]`.
    #[command(after_help = ENGINE_HELP)]
    Engine {
        /// Cell tokens (`o53`, `y43`: colour, row from the top, column) and flags.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Solve positions exactly.
    Solve(solve::Args),
    /// Solve labelled fixture files and report speed and correctness.
    Bench(bench::Args),
    /// Build, merge, check and describe opening books.
    #[command(subcommand)]
    Book(book::Command),
    /// Solve one position in independent searches near the root, kept on
    /// disk: resumed after a stop, or shared over machines.
    #[command(subcommand)]
    Split(split::Command),
    /// Play in the terminal, against the solver or another person, with
    /// every column's score at hand, as far as it is proven.
    Play(play::Args),
    /// Serve the analysis and play page, and its JSON API, over HTTP.
    Serve {
        /// Address to listen on; the default takes connections from this
        /// machine only.
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
        addr: String,
        /// How long one request may take, searches included, in
        /// milliseconds: past it the answer is what is settled (a 503 if no
        /// solver could start on it).
        #[arg(
            long,
            value_name = "MS",
            allow_negative_numbers = true,
            default_value_t = score4_web::DEFAULT_BUDGET_MS,
            value_parser = |s: &str| whole::<u64>(s, 1..=MAX_BUDGET_MS)
        )]
        budget_ms: u64,
    },
}

/// What `score4 engine --help` says of the protocol.
const ENGINE_HELP: &str = "\
The board is given as cell tokens: o (orange, the engine) or y (yellow),
the row from the top (0-5) and the column from the left (0-6); o53 is
orange's disc in the bottom row's middle column. Flags go anywhere:
  -debug     print each column's value before the move
  -level N   search N plies deep (default 7)
  -perfect   play by perfect solution (the fastest win, else a draw, else
             the slowest loss), with every core
The answer is the column (0-6) on stdout, then `I win` if it wins; the exit
status is 255 when the game ends (or no move is possible), else 0; a
malformed request is one line on stderr and status 2. Other tokens are
ignored, as by the original. The protocol is also spoken when the first
argument is a cell or a flag (`score4 o53 y43`), and always when the binary
runs under another name.";

/// The longest `serve --budget-ms` accepts: ten minutes. A request holds
/// one of the server's few workers for its whole budget, so a longer one
/// would let a handful of clients take the server for hours.
const MAX_BUDGET_MS: u64 = 600_000;

/// The most threads `--threads` accepts (the library's limit, typed as
/// clap's ranges are).
const MAX_THREADS: i64 = score4::solver::MAX_THREADS as i64;

/// Every core the system gives this process: the threads of the commands
/// that use them all by default.
fn all_cores() -> usize {
    score4::solver::all_cores()
}

/// The board every solving command takes.
#[derive(clap::Args)]
struct BoardArg {
    /// Board size WIDTHxHEIGHT: width 4 to 16, height 4 or more, and
    /// width * (height + 1) at most 128. Every command takes every such
    /// board. Columns past 9 are written a to g. The empty board takes milliseconds up to 5x6
    /// or 7x4, seconds to a minute up to 7x6 or 8x5, and more (hours for
    /// the largest) beyond: see the README.
    #[arg(long, value_name = "WxH", default_value = "7x6",
          value_parser = |s: &str| s.parse::<score4::wide::Shape>().map_err(|e| e.to_string()))]
    board: score4::wide::Shape,
}

impl BoardArg {
    /// The size asked for.
    fn shape(&self) -> score4::wide::Shape {
        self.board
    }

    /// The size asked for, if it is one of the sizes compiled one by one.
    fn compiled(&self) -> Option<score4::BoardSize> {
        score4::BoardSize::new(self.board.width(), self.board.height()).ok()
    }
}

/// `--base`: how the positions read are written.
#[derive(clap::Args)]
pub struct BaseArg {
    /// Read positions as 0-based digits (`--base 0`: columns 0 to 9, as
    /// c4's test sets write them, boards up to ten wide) instead of the
    /// notation (1 to 9, then a to g); they are printed back as given.
    #[arg(long, value_name = "B", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(0..=1))]
    base: u8,
}

impl BaseArg {
    /// The base asked for.
    fn base(&self) -> score4::wide::notation::Base {
        if self.base == 0 {
            score4::wide::notation::Base::Zero
        } else {
            score4::wide::notation::Base::One
        }
    }
}

/// Parses `--table-mb`, refusing sizes that cannot be allocated.
fn table_mb(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(mb) if (1..=score4::MAX_TABLE_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "expected a size in MiB from 1 to {}",
            score4::MAX_TABLE_MB
        )),
    }
}

/// Parses a whole number in `range`, naming the range when the text is
/// not one (a negative number, a word, a number out of range).
fn whole<T: TryFrom<u64>>(text: &str, range: std::ops::RangeInclusive<u64>) -> Result<T, String> {
    text.parse::<u64>()
        .ok()
        .filter(|n| range.contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            format!(
                "expected a whole number from {} to {}",
                range.start(),
                range.end()
            )
        })
}

/// Parses a number of seconds in `range` (decimals allowed), naming the
/// range when the text is not one.
fn seconds(text: &str, range: std::ops::RangeInclusive<f64>) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| range.contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            format!(
                "expected a number of seconds from {} to {}",
                range.start(),
                range.end()
            )
        })
}

/// Parses a seed: any whole number a u64 holds.
fn seed(text: &str) -> Result<u64, String> {
    whole(text, 0..=u64::MAX)
}

/// Whether the arguments after the program name are the engine protocol.
fn speaks_engine_protocol(program: &OsString, first: Option<&OsString>) -> bool {
    let name = Path::new(program).file_stem().and_then(|s| s.to_str());
    if name != Some("score4") {
        return true;
    }
    first
        .and_then(|a| a.to_str())
        .is_some_and(score4::classic::is_protocol_token)
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let program = args.first().cloned().unwrap_or_default();
    if let Some(message) = output::closed_at_start() {
        output::error(message);
        return ExitCode::from(FAILED);
    }
    let status = if speaks_engine_protocol(&program, args.get(1)) {
        engine::run(&args[1.min(args.len())..])
    } else {
        match Cli::try_parse_from(&args) {
            Ok(cli) => match cli.command {
                Command::Engine { args } => engine::run(&args),
                Command::Solve(a) => solve::run(a),
                Command::Bench(a) => bench::run(a),
                Command::Book(c) => book::run(c),
                Command::Split(c) => split::run(c),
                Command::Play(a) => play::run(a),
                Command::Serve { addr, budget_ms } => serve(addr, budget_ms),
            },
            Err(e) => refused(e, args.get(1)),
        }
    };
    ExitCode::from(status)
}

/// Serves until Ctrl-C or SIGTERM, then exits 0 once the requests under
/// way are answered; a bad address is one line and exit status 2.
fn serve(addr: String, budget_ms: u64) -> u8 {
    let config = score4_web::Config {
        addr,
        budget: Duration::from_millis(budget_ms),
        ..score4_web::Config::default()
    };
    match score4_web::start(&config) {
        Ok(server) => {
            let said = Output::new().line(&format!(
                "score4 serving on http://{}/ (Ctrl-C to stop)",
                server.addr()
            ));
            // Nobody reading the address is no reason to stop serving; a
            // stdout that fails to take it is reported like every write.
            if let Err(Stop::Failed(e)) = said {
                return Stop::Failed(e).status(OK);
            }
            // Ctrl-C (or SIGTERM) stops taking connections and answers the
            // requests under way; a second one ends the process at once.
            let stopper = server.stopper();
            let mut signals = 0;
            let handler = ctrlc::set_handler(move || {
                signals += 1;
                if signals == 1 {
                    stopper.stop();
                } else {
                    output::end_at_once(130);
                }
            });
            if let Err(e) = handler {
                output::error(format_args!("serve: cannot catch Ctrl-C: {e}"));
                server.stop();
                return FAILED;
            }
            server.join();
            output::error(format_args!(
                "serve: stopped; every request under way was answered"
            ));
            OK
        }
        Err(e) => {
            output::error(format_args!("serve: {e}"));
            FAILED
        }
    }
}

/// What clap stopped at: help or the version on stdout, or a usage error
/// as one line on stderr (clap's own message, without its usage block).
fn refused(e: clap::Error, command: Option<&OsString>) -> u8 {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let mut text = e.render().to_string();
            // A help that ends with its after-help text has no line end.
            if !text.ends_with('\n') {
                text.push('\n');
            }
            Output::new().finish(&text, OK)
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            match command.and_then(|c| c.to_str()) {
                Some(c) => output::error(format_args!(
                    "{c}: a subcommand is needed (see score4 {c} --help)"
                )),
                None => {
                    let cli = Cli::command();
                    let names: Vec<&str> = cli
                        .get_subcommands()
                        .map(|c| c.get_name())
                        .filter(|&name| name != "help")
                        .collect();
                    output::error(format_args!(
                        "a command is needed: {} (see score4 --help)",
                        names.join(", ")
                    ))
                }
            }
            FAILED
        }
        _ => {
            let shown = shown_values(e);
            output::error(usage_error(&shown.render().ansi().to_string(), &shown));
            FAILED
        }
    }
}

/// The longest tip of clap's kept in a message: its tips repeat user
/// text, and one that would make the line long is dropped.
const MAX_TIP: usize = 200;

/// `e` with every value it repeats shown as every other token is (see
/// [`Quoted`]): control characters escaped, cut after a few dozen
/// characters. Clap would print them raw, and its own stripping of
/// terminal sequences would hide what was typed.
fn shown_values(mut e: clap::Error) -> clap::Error {
    let context: Vec<(ContextKind, ContextValue)> = e
        .context()
        .map(|(kind, value)| (kind, value.clone()))
        .collect();
    for (kind, value) in context {
        let value = match value {
            ContextValue::String(s) => ContextValue::String(bare(&s)),
            ContextValue::Strings(v) => ContextValue::Strings(v.iter().map(|s| bare(s)).collect()),
            ContextValue::StyledStrs(v) => ContextValue::StyledStrs(
                v.iter()
                    .filter(|tip| {
                        let tip = tip.ansi().to_string();
                        tip.len() <= MAX_TIP && !tip.contains(char::is_control)
                    })
                    .cloned()
                    .collect(),
            ),
            _ => continue,
        };
        e.insert(kind, value);
    }
    e
}

/// `text` as [`Quoted`] shows it, without the quotes: clap adds its own.
fn bare(text: &str) -> String {
    let quoted = Quoted::new(text).to_string();
    let inner = quoted.strip_prefix('\'').unwrap_or(&quoted);
    // Quoted escapes every quote inside, so the last one closes.
    match inner.rsplit_once('\'') {
        Some((body, cut)) => format!("{body}{cut}"),
        None => inner.to_string(),
    }
}

/// Clap's error message on one line: its lines up to the usage block,
/// without the `error:` prefix, and its suggestion, if any, as `(did you
/// mean 'X'?)`, or its other tips in parentheses.
fn usage_error(rendered: &str, e: &clap::Error) -> String {
    let message = rendered
        .split("\n\nUsage:")
        .next()
        .unwrap_or(rendered)
        .split("\n\nFor more information")
        .next()
        .unwrap_or(rendered);
    let (tips, parts): (Vec<&str>, Vec<&str>) = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .partition(|l| l.starts_with("tip:"));
    let joined = parts.join(" ");
    let mut line = joined
        .strip_prefix("error: ")
        .unwrap_or(&joined)
        .to_string();
    let suggested: Vec<&str> = [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ]
    .iter()
    .filter_map(|&kind| e.get(kind))
    .flat_map(|value| match value {
        ContextValue::String(s) => vec![s.as_str()],
        ContextValue::Strings(v) => v.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    })
    .collect();
    if !suggested.is_empty() {
        let names: Vec<String> = suggested.iter().map(|s| format!("'{s}'")).collect();
        line += &format!(" (did you mean {}?)", names.join(" or "));
    } else if !tips.is_empty() {
        let tips: Vec<&str> = tips
            .iter()
            .map(|t| t.trim_start_matches("tip:").trim())
            .collect();
        line += &format!(" ({})", tips.join("; "));
    }
    line
}
