//! `score4 play` where its players meet it: in a pseudo-terminal of 80x24,
//! its screen read back from the escape sequences it writes, driven by
//! key presses.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

const BIN: &str = env!("CARGO_BIN_EXE_score4");

/// The game running in a pseudo-terminal, and the screen it has drawn.
struct Session {
    child: Box<dyn Child + Send + Sync>,
    keys: Box<dyn Write + Send>,
    output: Receiver<Vec<u8>>,
    screen: vt100::Parser,
    /// Everything written, escape sequences included.
    raw: Vec<u8>,
    master: Box<dyn MasterPty + Send>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        Session::start_sized(args, 24, 80)
    }

    /// A game of two people at 80x24, drawn and waiting for the first move.
    fn two_players() -> Session {
        let mut s = Session::start(&["--opponent", "human"]);
        s.wait_for("first player to move");
        s
    }

    /// The game in a terminal of `rows` x `cols`; its screen is still read
    /// as 80x24 (the tests read what fits there).
    fn start_sized(args: &[&str], rows: u16, cols: u16) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(BIN);
        cmd.arg("play");
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            keys: pair.master.take_writer().expect("writer"),
            output: rx,
            screen: vt100::Parser::new(
                NonZeroU16::new(24).unwrap(),
                NonZeroU16::new(80).unwrap(),
                0,
            ),
            raw: Vec::new(),
            master: pair.master,
        }
    }

    /// Presses each key in `keys`; an escape sequence (an arrow) is one key.
    fn press(&mut self, keys: &str) {
        let mut rest = keys;
        while !rest.is_empty() {
            let len = if rest.starts_with("\x1b[") {
                3
            } else {
                rest.chars().next().unwrap().len_utf8()
            };
            let (k, tail) = rest.split_at(len);
            rest = tail;
            self.keys.write_all(k.as_bytes()).unwrap();
            self.keys.flush().unwrap();
            // One key at a time, as a person types.
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn contents(&self) -> String {
        self.screen.screen().contents()
    }

    /// Waits until the screen shows `text`, at most 30 s.
    fn wait_for(&mut self, text: &str) {
        let start = Instant::now();
        while !self.contents().contains(text) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no {text:?} on the screen:\n{}",
                self.contents()
            );
            if let Ok(bytes) = self.output.recv_timeout(Duration::from_millis(50)) {
                self.screen.process(&bytes);
                self.raw.extend_from_slice(&bytes);
            }
        }
    }

    /// That the process gave the terminal back as it ended: the alternate
    /// screen left, the cursor shown.
    fn assert_terminal_given_back(&self) {
        let raw = String::from_utf8_lossy(&self.raw);
        assert!(raw.contains("\x1b[?1049l"), "alternate screen not left");
        assert!(raw.contains("\x1b[?25h"), "cursor not shown again");
    }

    /// Waits for the process to end, at most `limit`; its exit code.
    fn wait_exit(&mut self, limit: Duration) -> u32 {
        let start = Instant::now();
        loop {
            while let Ok(bytes) = self.output.try_recv() {
                self.raw.extend_from_slice(&bytes);
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                // The last bytes may still be on their way from the reader,
                // which ends when the terminal's other side closes.
                let drained = Instant::now() + Duration::from_secs(5);
                while let Ok(bytes) = self
                    .output
                    .recv_timeout(drained.saturating_duration_since(Instant::now()))
                {
                    self.raw.extend_from_slice(&bytes);
                }
                return status.exit_code();
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!("still running {limit:?} later:\n{}", self.contents());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

#[test]
fn a_game_by_keys_with_undo_redo_and_scores() {
    let mut s = Session::start(&["--opponent", "human", "--ascii"]);
    s.wait_for("first player to move");
    // The scores of the empty board, from the built-in book.
    s.press("h");
    s.wait_for("4  win in");
    s.press("445566");
    s.wait_for("moves (6)");
    // Arrows and Enter: from column 4 (the last key) three to the right.
    s.press("\x1b[C\x1b[C\x1b[C\r");
    s.wait_for("first player wins with move 7!");
    assert!(s.contents().contains("[X] [X] [X] [X]"), "{}", s.contents());
    s.press("u");
    s.wait_for("first player to move");
    assert!(!s.contents().contains("wins"));
    s.press("r");
    s.wait_for("first player wins with move 7!");
    s.press("n");
    s.wait_for("none yet");
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(5)), 0);
    s.assert_terminal_given_back();
    // --ascii: every byte written, frames and discs included, is ASCII.
    if let Some(i) = s.raw.iter().position(|&b| b >= 0x80) {
        let near = &s.raw[i..(i + 40).min(s.raw.len())];
        panic!("byte {i} is not ASCII: {:?}", String::from_utf8_lossy(near));
    }
}

#[test]
fn keys_with_control_or_alt_drop_no_disc() {
    let mut s = Session::two_players();
    // Alt-4 (Escape, then 4 at once), Ctrl-\ (read as Ctrl-4) and Ctrl-Space.
    for chord in [&b"\x1b4"[..], b"\x1c", b"\x00"] {
        s.keys.write_all(chord).unwrap();
        s.keys.flush().unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    s.press("45");
    s.wait_for("moves (2)");
    // Whatever was still on its way has arrived.
    while let Ok(bytes) = s.output.recv_timeout(Duration::from_millis(500)) {
        s.screen.process(&bytes);
    }
    assert!(s.contents().contains("moves (2)"), "{}", s.contents());
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(5)), 0);
}

#[test]
fn a_termination_signal_gives_the_terminal_back() {
    for signal in ["-TERM", "-HUP"] {
        let mut s = Session::two_players();
        let pid = s.child.process_id().expect("a process id");
        let killed = std::process::Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 0, "{signal}");
        s.assert_terminal_given_back();
    }
}

#[test]
fn a_terminal_that_goes_away_ends_the_game() {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let mut cmd = CommandBuilder::new(BIN);
    cmd.args(["play", "--opponent", "human"]);
    cmd.env("TERM", "xterm-256color");
    let mut child = pair.slave.spawn_command(cmd).expect("starts");
    drop(pair.slave);
    // Read through the master's own descriptor, not a copy: dropping the
    // master then closes the terminal's other side.
    let fd = pair.master.as_raw_fd().expect("a descriptor");
    let mut screen = vt100::Parser::new(
        NonZeroU16::new(24).unwrap(),
        NonZeroU16::new(80).unwrap(),
        0,
    );
    let start = Instant::now();
    while !screen.screen().contents().contains("first player to move") {
        assert!(start.elapsed() < Duration::from_secs(30), "not drawn");
        let mut tty = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let mut buf = [0u8; 4096];
        // SAFETY: one pollfd and a buffer of its stated length, both alive
        // for the calls; `fd` is the master's, open until it is dropped below.
        let n = unsafe {
            if libc::poll(&mut tty, 1, 50) > 0 {
                libc::read(fd, buf.as_mut_ptr().cast(), buf.len())
            } else {
                0
            }
        };
        if n > 0 {
            screen.process(&buf[..n as usize]);
        }
    }
    drop(pair.master);
    // The game ends by itself: it used to read nothing from the gone
    // terminal at full speed, deaf to SIGTERM and SIGHUP, until killed.
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("still running 10 s after its terminal went away");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // The signal too: a process a signal ends reads as exit code 1 here.
    assert_eq!((status.exit_code(), status.signal()), (0, None));
}

#[test]
fn a_window_too_large_to_draw_ends_the_game_with_one_line() {
    let mut s = Session::two_players();
    s.master
        .resize(PtySize {
            rows: u16::MAX,
            cols: u16::MAX,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 2);
    s.assert_terminal_given_back();
    assert!(String::from_utf8_lossy(&s.raw).contains("65535x65535"));
    // A terminal that is that large from the start is refused before it
    // is set up at all.
    let mut s = Session::start_sized(&["--opponent", "human"], u16::MAX, u16::MAX);
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 2);
    let raw = String::from_utf8_lossy(&s.raw);
    assert!(raw.contains("65535x65535"), "{raw}");
    assert!(
        !raw.contains("\x1b[?1049h"),
        "alternate screen entered: {raw}"
    );
}

#[test]
fn keys_do_nothing_but_quit_while_the_board_cannot_be_seen() {
    let mut s = Session::start_sized(&["--opponent", "perfect"], 10, 40);
    s.wait_for("Enlarge it");
    // Moves, the scores, undo and a new game: none is played unseen, and
    // so the opponent has nothing to reply to.
    s.press("4\x1b[C\rh5un");
    std::thread::sleep(Duration::from_millis(300));
    s.master
        .resize(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    s.wait_for("your move");
    let screen = s.contents();
    assert!(screen.contains("moves (0)"), "{screen}");
    assert!(!screen.contains("scores for the side to move"), "{screen}");
    assert!(!screen.contains("played"), "{screen}");
    // Once seen, the keys play again; q quits whatever the size.
    s.press("4");
    s.wait_for("perfect played");
    s.master
        .resize(PtySize {
            rows: 10,
            cols: 40,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}

#[test]
fn the_opponent_replies() {
    let mut s = Session::start(&["--opponent", "perfect"]);
    s.wait_for("your move");
    s.press("4");
    s.wait_for("moves (2)");
    s.wait_for("perfect played");
    s.wait_for("your move");
    // Undo takes back its reply and your move together.
    s.press("u");
    s.wait_for("none yet");
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(5)), 0);
}

#[test]
fn past_nine_columns_the_keys_are_letters_and_the_opponent_replies() {
    // The empty 10x4 board takes the solver minutes: the opponent plays
    // within its budget there as on any board.
    let mut s = Session::start(&["--board", "10x4", "--budget", "0.5"]);
    s.wait_for("your move");
    let screen = s.contents();
    assert!(screen.contains(" 9   a "), "{screen}");
    assert!(screen.contains("1-9 a-a or"), "{screen}");
    s.press("a");
    s.wait_for("moves (2)");
    s.wait_for("your move");
    // The list of moves names column 10 by its letter, as `solve` reads it.
    let screen = s.contents();
    let moves = screen
        .lines()
        .skip_while(|l| !l.contains("moves (2)"))
        .nth(1)
        .unwrap_or_default();
    assert!(moves.contains('a'), "{screen}");
    // A letter past the board drops nothing.
    s.press("b");
    std::thread::sleep(Duration::from_millis(300));
    s.wait_for("moves (2)");
    assert!(!s.contents().contains("moves (3)"), "{}", s.contents());
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}

#[test]
fn the_opponent_plays_within_its_budget_and_says_so() {
    // The empty 8x7 board takes the solver minutes: half a second proves
    // no move, and the opponent plays the best by what it proved.
    let mut s = Session::start(&["--board", "8x7", "--first", "engine", "--budget", "0.5"]);
    s.wait_for("of 0.5 s");
    s.wait_for("(not proven in 0.5 s)");
    s.wait_for("your move");
    assert!(s.contents().contains("moves (1)"), "{}", s.contents());
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    // A budget is a number of seconds in range.
    for budget in ["0", "-1", "soon", "7200"] {
        let mut s = Session::start(&["--budget", budget]);
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 2, "{budget}");
        let said = String::from_utf8_lossy(&s.raw).to_string();
        assert!(said.contains("--budget"), "{budget}: {said}");
        assert!(said.contains("from 0.1 to 3600"), "{budget}: {said}");
    }
}

#[test]
fn the_scores_show_what_is_proven_as_it_is_proven() {
    // On the empty 8x7 board only how soon each column could end is
    // proven for a long while: the columns say so, and the search's
    // progress goes on on screen.
    let mut s = Session::start(&["--board", "8x7", "--opponent", "human"]);
    s.wait_for("first player to move");
    s.press("h");
    s.wait_for("proving: ");
    s.wait_for("1  no loss in under ");
    let progress = |s: &Session| {
        s.contents()
            .lines()
            .find(|l| l.contains("proving: "))
            .map(str::to_string)
    };
    let first = progress(&s);
    let start = Instant::now();
    while progress(&s) == first {
        assert!(start.elapsed() < Duration::from_secs(30), "{first:?}");
        if let Ok(bytes) = s.output.recv_timeout(Duration::from_millis(50)) {
            s.screen.process(&bytes);
            s.raw.extend_from_slice(&bytes);
        }
    }
    // Moving on stops that search and starts the next position's.
    s.press("4");
    s.wait_for("moves (1)");
    s.wait_for("proving: ");
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}

#[test]
fn quitting_while_the_solver_thinks_is_at_once() {
    // The empty 8x7 board takes the solver minutes.
    let mut s = Session::start(&[
        "--board",
        "8x7",
        "--opponent",
        "perfect",
        "--first",
        "engine",
    ]);
    s.wait_for("perfect is thinking");
    let pressed = Instant::now();
    s.press("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let took = pressed.elapsed();
    eprintln!("quit while thinking: the process ended {took:?} after the key");
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[test]
fn without_a_terminal_it_names_the_text_analysis() {
    let o = std::process::Command::new(BIN)
        .args(["play"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("score4 solve --analyze"), "{err}");
}

#[test]
fn bad_arguments_are_one_line() {
    for (args, words) in [
        (
            &["--moves", "448"][..],
            "move 3: column 8 is out of range 1..7",
        ),
        (&["--opponent", "level:5", "--board", "5x4"], "only on 7x6"),
        (&["--opponent", "level:20"], "from 1 to 12"),
        (&["--opponent", "wizard"], "unknown opponent"),
    ] {
        let mut s = Session::start(args);
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 2, "{args:?}");
        let said = String::from_utf8_lossy(&s.raw).to_string();
        assert!(said.contains(words), "{args:?}: {said}");
    }
}
