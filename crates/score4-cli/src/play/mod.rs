//! `score4 play`: a full-screen game and analysis board in the terminal.
//!
//! - [`app`]: the game on screen, the keys, and the search on its own
//!   thread (stopped, not waited for, when the player moves on or quits).
//! - [`draw`]: one frame of it, drawn with ratatui.
//! - Here: the arguments, the terminal's set-up and restoration, and the
//!   loop between keys and frames.

mod app;
mod draw;

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyEventKind};
use score4::play::Opponent;
use score4::wide::Shape;

use crate::output::{self, FAILED, OK};
use app::{App, Config, Reply};

/// `score4 play` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    board: crate::BoardArg,
    /// Start from this position (1-based columns, `1`-`9` then `a`-`g`, as
    /// `solve` reads).
    #[arg(long, value_name = "SEQ", default_value = "")]
    moves: String,
    /// Who plays the other side: human (you play both sides, with the
    /// scores at hand), perfect, fair (a random move that does not lose),
    /// soft or soft:T (a softmax over the scores), or classic:N, also
    /// spelled level:N (the classic engine searching N plies, 7x6 only).
    #[arg(long, value_name = "WHO", default_value = "perfect")]
    opponent: String,
    /// Who moves first from the starting position.
    #[arg(long, value_enum, default_value = "you")]
    first: First,
    /// ASCII only (letters, `+`, `-` and `|`) and no colour, for terminals
    /// without Unicode or colour.
    #[arg(long)]
    ascii: bool,
    /// How long the opponent may think about a move, in seconds: past it,
    /// it plays the best move by what it has proven, and says the move is
    /// not proven. The classic engine's levels take no budget.
    #[arg(long, value_name = "SECONDS", default_value = "3", allow_negative_numbers = true,
          value_parser = |s: &str| crate::seconds(s, 0.1..=MAX_BUDGET_S))]
    budget: Duration,
    /// Seed of the fair and soft opponents' choices (repeatable games).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::seed)]
    seed: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum First {
    You,
    Engine,
}

/// The opponent named, if it can play on `shape` and answers quickly.
fn opponent(text: &str, shape: &Shape) -> Result<Opponent, String> {
    let opponent = Opponent::parse_responsive(text).map_err(|e| e.to_string())?;
    opponent.check_shape(shape).map_err(|e| e.to_string())?;
    Ok(opponent)
}

pub fn run(args: Args) -> u8 {
    let shape = args.board.shape();
    let opponent = match opponent(&args.opponent, &shape) {
        Ok(o) => o,
        Err(e) => {
            output::error(format_args!("play: --opponent: {e}"));
            return FAILED;
        }
    };
    let config = Config {
        shape,
        moves: args.moves,
        opponent,
        engine_first: args.first == First::Engine,
        ascii: args.ascii,
        budget: args.budget,
        seed: args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        }),
    };
    play(config)
}

/// Ends the process when its terminal hangs up (its window closed, its
/// connection dropped). Reading a terminal that is gone returns nothing at
/// once, forever, and the key reader (crossterm's) then reads again
/// without end, at full speed, never back in the loop that would see a
/// signal; and there is no terminal left to give back.
fn end_on_hang_up() {
    let watch = || loop {
        match hung_up(-1) {
            Some(true) => output::end_at_once(OK),
            Some(false) => {}
            None => return,
        }
    };
    // Without the watch the game still plays; a hang-up then needs SIGKILL.
    let _ = std::thread::Builder::new()
        .name("score4-play-hang-up".into())
        .spawn(watch);
}

/// Whether the terminal has hung up, waiting up to `timeout_ms` (-1: until
/// it does); `None` if that cannot be known.
fn hung_up(timeout_ms: i32) -> Option<bool> {
    // No events asked for: poll(2) reports a hang-up or an error whatever
    // is asked, and nothing else.
    let mut tty = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one pollfd, alive for the call.
    let ready = unsafe { libc::poll(&mut tty, 1, timeout_ms) };
    if ready > 0 {
        Some(tty.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0)
    } else if ready == 0 || io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
        Some(false)
    } else {
        None
    }
}

/// Enters raw mode and the alternate screen, with a panic hook that gives
/// the terminal back before the message prints. Not `ratatui::init`: its
/// hook and its `restore` print their own failure with `eprintln!`, which
/// panics when the terminal is gone, and a panic in the hook aborts.
fn take_terminal() -> io::Result<ratatui::DefaultTerminal> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        give_back();
        hook(info);
    }));
    ratatui::crossterm::terminal::enable_raw_mode()?;
    ratatui::crossterm::execute!(
        io::stdout(),
        ratatui::crossterm::terminal::EnterAlternateScreen
    )?;
    ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(io::stdout()))
}

/// Leaves raw mode and the alternate screen. A failure is not reported: the
/// terminal that would show it is the one that failed, or is gone.
fn give_back() {
    let _ = ratatui::try_restore();
}

/// The longest `--budget`, in seconds: an hour. A move is a wait at the
/// keyboard; a longer analysis is `score4 solve`'s.
const MAX_BUDGET_S: f64 = 3600.0;

/// The largest window drawn, in cells each way: a frame takes memory for
/// every cell, and a terminal may report any size.
const MAX_SIDE: u16 = 2000;

/// Why a window of `width` x `height` cells is not drawn, if it is not.
fn too_large(width: u16, height: u16) -> Option<String> {
    (width > MAX_SIDE || height > MAX_SIDE).then(|| {
        format!(
            "it reports a window of {width}x{height} cells; at most {MAX_SIDE} each way is drawn"
        )
    })
}

fn play(config: Config) -> u8 {
    let mut app = match App::new(&config) {
        Ok(app) => app,
        Err(e) => {
            output::error(format_args!("play: {e}"));
            return FAILED;
        }
    };
    // After the options and the moves, so that a bad one is named,
    // terminal or not; and before the terminal is set up, which takes
    // memory for every cell of the window.
    let unusable = if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        Some(
            "play needs a terminal; for the scores in text, use `score4 solve --analyze MOVES`"
                .to_string(),
        )
    } else {
        ratatui::crossterm::terminal::size()
            .ok()
            .and_then(|(width, height)| too_large(width, height))
            .map(|e| format!("play: the terminal failed: {e}"))
    };
    if let Some(message) = unusable {
        app.stop();
        output::error(format_args!("{message}"));
        return FAILED;
    }
    // SIGTERM, SIGHUP and SIGINT from outside (raw mode reads Ctrl-C as a
    // key) end the game through the loop, which restores the terminal; a
    // second one ends the process at once.
    let signalled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&signalled);
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            // At once, but with the terminal given back.
            give_back();
            output::end_at_once(OK);
        }
    });
    end_on_hang_up();
    let mut terminal = match take_terminal() {
        Ok(terminal) => terminal,
        Err(e) => {
            give_back();
            app.stop();
            output::error(format_args!("play: the terminal failed: {e}"));
            return FAILED;
        }
    };
    let result = (|| -> io::Result<()> {
        loop {
            if signalled.load(Ordering::SeqCst) {
                return Ok(());
            }
            let size = terminal.size()?;
            if let Some(e) = too_large(size.width, size.height) {
                return Err(io::Error::other(e));
            }
            terminal.draw(|f| draw::frame(f, &app))?;
            let unseen = draw::too_small(app.game.shape(), size.width, size.height);
            // Short waits keep the thinking time on screen current.
            if event::poll(Duration::from_millis(if app.busy() { 100 } else { 1000 }))? {
                if let Event::Key(key) = event::read()? {
                    let reply = match key.kind {
                        KeyEventKind::Release => Reply::Continue,
                        _ if unseen => app.unseen_key(key),
                        _ => app.key(key),
                    };
                    if reply == Reply::Quit {
                        return Ok(());
                    }
                }
            }
            app.poll();
        }
    })();
    app.stop();
    // The cursor is shown again before the terminal is dropped: the drop
    // would print its failure to a terminal that may be gone.
    if terminal.show_cursor().is_err() {
        std::mem::forget(terminal);
    }
    give_back();
    match result {
        Ok(()) => OK,
        // The terminal went away, seen by the loop before the watch: the
        // game ends as a hang-up ends it, with no one left to tell. The
        // hang-up's SIGHUP may have come first, or may interrupt the
        // look, so both are asked, the look a few times.
        Err(_) if signalled.load(Ordering::SeqCst) || (0..5).any(|_| hung_up(20) == Some(true)) => {
            OK
        }
        Err(e) => {
            output::error(format_args!("play: the terminal failed: {e}"));
            FAILED
        }
    }
}
