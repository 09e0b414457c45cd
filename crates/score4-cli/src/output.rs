//! The one way every command writes: answers to stdout, errors to stderr,
//! and what a write fault does to the exit status.
//!
//! - A stdout whose reader went away (a broken pipe, as `| head` makes)
//!   ends the command quietly, with the status it had so far: nobody is
//!   left to read the rest.
//! - A stdout closed before the program started (`score4 ... >&-`) has
//!   never had a reader: the command is refused at once, one line on
//!   stderr and status [`FAILED`], before any work is done.
//! - Any other write fault (a full disk, a broken device) is one line on
//!   stderr and status [`FAILED`]: output was lost, and a script must not
//!   take it for a success.
//! - Errors are one line each, `score4: ...`, with control characters
//!   escaped; if stderr cannot be written either, the status still tells.

use std::fmt::Display;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use score4::input::one_line;

/// Every line solved or answered.
pub const OK: u8 = 0;
/// Some inputs were refused or some answers wrong; the others were done.
pub const PARTLY: u8 = 1;
/// `solve --timeout`: some positions were not settled in time (their
/// lines hold the bounds proven), and the rest were solved.
pub const UNSETTLED: u8 = 3;
/// Nothing could be done as asked (bad arguments, no memory for the
/// table, unreadable files) or the output could not be written.
pub const FAILED: u8 = 2;

/// Whether file descriptor 1 was closed when the process started.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Looks at stdout before Rust's runtime starts: the runtime opens
/// /dev/null on a standard descriptor it finds closed, after which every
/// write would succeed unseen. The constructors of an ELF program run
/// before that start-up, and this is one of them.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[used]
#[link_section = ".init_array"]
static SEE_CLOSED_STDOUT: extern "C" fn() = see_closed_stdout;

#[cfg(any(target_os = "linux", target_os = "android"))]
extern "C" fn see_closed_stdout() {
    // SAFETY: F_GETFD only reads the descriptor's flags; it fails with
    // EBADF when nothing is open on it.
    let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
    STDOUT_CLOSED.store(closed, Ordering::Relaxed);
}

/// Why no command can run when stdout was closed before the start
/// (`score4 ... >&-`), if it was.
pub fn closed_at_start() -> Option<&'static str> {
    STDOUT_CLOSED
        .load(Ordering::Relaxed)
        .then_some("standard output is closed: there is nowhere to write the answers")
}

/// Why writing stopped.
#[derive(Debug)]
pub enum Stop {
    /// Nobody reads stdout any more.
    Closed,
    /// Stdout could not be written.
    Failed(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::Closed
        } else {
            Stop::Failed(e)
        }
    }
}

impl Stop {
    /// The exit status of a command that had `status` when writing
    /// stopped, after saying why if it matters.
    pub fn status(self, status: u8) -> u8 {
        match self {
            Stop::Closed => status,
            Stop::Failed(e) => {
                error(format_args!("cannot write the output: {e}"));
                FAILED
            }
        }
    }
}

/// Stdout, written a line or a block at a time and flushed at once, so a
/// fault is seen at the write that met it.
pub struct Output {
    out: io::StdoutLock<'static>,
}

impl Output {
    /// The process's stdout.
    pub fn new() -> Self {
        Output {
            out: io::stdout().lock(),
        }
    }

    /// Writes `text` and a line end.
    pub fn line(&mut self, text: &str) -> Result<(), Stop> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        Ok(self.out.flush()?)
    }

    /// Writes `text` as it is.
    pub fn text(&mut self, text: &str) -> Result<(), Stop> {
        self.out.write_all(text.as_bytes())?;
        Ok(self.out.flush()?)
    }

    /// Writes `text` and returns `status`, or the status a fault leaves.
    pub fn finish(mut self, text: &str, status: u8) -> u8 {
        match self.text(text) {
            Ok(()) => status,
            Err(stop) => stop.status(status),
        }
    }
}

/// Ends the process at once with `status`, from any thread: a second
/// signal, or a terminal gone. `exit(3)` runs the exit handlers, and the C
/// library's are not safe to run twice at once, and the main thread may be
/// returning from `main` meanwhile. `_exit(2)` ends every thread with
/// nothing run; whatever was to be written has been flushed by then, or
/// has nowhere left to go.
pub fn end_at_once(status: u8) -> ! {
    // SAFETY: `_exit` takes any status and does not return; it touches no
    // memory of the process.
    unsafe { libc::_exit(status.into()) }
}

/// Reports one error on stderr: `score4: MESSAGE`, on one line. If stderr
/// cannot be written there is nowhere left to say so; the caller's exit
/// status still does.
pub fn error(message: impl Display) {
    let line = one_line(&format!("score4: {message}"));
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Tells the user something on stderr that is not an error, on one line,
/// as [`error`] does.
pub fn note(message: impl Display) {
    error(message);
}
