//! The game on screen: the position, whose turn it is, the keys, and the
//! searches (the opponent's move, the columns' scores) on a thread of
//! their own, so that the screen and the keys stay live while the solver
//! thinks. A search the player has moved past is stopped by the solver's
//! handle, not waited for.

use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use score4::game::Game;
use score4::play::{choose_until, Choice, ChooseError, Opponent};
use score4::rng::Rng;
use score4::solver::{Goal, Player, DEFAULT_TABLE_MB};
use score4::wide::{notation, Analysis, Shape, Solver};
use score4::{StopHandle, TableError};

/// How a game starts.
pub struct Config {
    pub shape: Shape,
    /// The starting position, in the notation.
    pub moves: String,
    pub opponent: Opponent,
    /// The opponent moves first from the starting position.
    pub engine_first: bool,
    pub ascii: bool,
    pub seed: u64,
    /// How long the opponent may think about a move.
    pub budget: Duration,
}

/// How often the scores' search reports its progress while no score
/// narrows.
const PROGRESS_TICK: Duration = Duration::from_millis(200);

/// What a key asks of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    Continue,
    Quit,
}

/// A search's answer, for the moves it was asked about.
enum Answer {
    Move(Result<Choice, ChooseError>),
    Scores(Analysis),
}

/// The solver and generator go to the search's thread and come back with
/// its answer.
type Returned = (Solver, Rng, String, Answer);

/// A search under way.
struct Busy {
    started: Instant,
    /// Whether it chooses the opponent's move (else it scores the columns).
    move_search: bool,
    done: Receiver<Returned>,
    /// What the scores' search has proven so far, as it narrows.
    progress: Receiver<Analysis>,
}

pub struct App {
    pub game: Game,
    pub opponent: Opponent,
    /// The side the opponent plays; `None` against a human.
    pub engine: Option<Player>,
    /// Every column's score is shown.
    pub hints: bool,
    /// The column Enter drops a disc in (0-based).
    pub cursor: usize,
    /// What is proven of the scores of the position now, once its search
    /// has begun: each column's range, narrowed as the search goes.
    pub analysis: Option<Analysis>,
    /// One line for the player: the last error, or the last reply's time.
    pub message: String,
    pub ascii: bool,
    pub budget: Duration,
    /// The solver and generator when no search holds them.
    idle: Option<(Solver, Rng)>,
    stop: StopHandle,
    busy: Option<Busy>,
}

/// Ctrl-\ arrives as Ctrl-4 and Alt-4 as 4 with Alt: a chord is no move.
fn is_chord(key: KeyEvent) -> bool {
    let chord = KeyModifiers::CONTROL
        | KeyModifiers::ALT
        | KeyModifiers::SUPER
        | KeyModifiers::HYPER
        | KeyModifiers::META;
    key.modifiers.intersects(chord)
}

/// `q`, or Ctrl-C (raw mode reads it as a key).
fn quits(key: KeyEvent) -> bool {
    let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
    ctrl_c || (!is_chord(key) && key.code == KeyCode::Char('q'))
}

/// Column `col` (0-based) as the player types it: `1`-`9`, then `a`-`g`.
pub fn column_name(col: usize) -> char {
    notation::character(col + 1).unwrap_or('?')
}

impl App {
    pub fn new(config: &Config) -> Result<Self, String> {
        let shape = config.shape;
        let game = Game::from_moves(shape, &config.moves).map_err(|e| format!("--moves: {e}"))?;
        let mut solver =
            Solver::new(shape, DEFAULT_TABLE_MB).map_err(|e: TableError| e.to_string())?;
        solver.set_threads(score4::solver::all_cores());
        let to_move = game.to_move();
        let engine = (config.opponent != Opponent::Human).then(|| {
            if config.engine_first {
                to_move
            } else {
                to_move.other()
            }
        });
        let mut app = App {
            game,
            opponent: config.opponent,
            engine,
            hints: false,
            cursor: shape.width() / 2,
            analysis: None,
            message: String::new(),
            ascii: config.ascii,
            budget: config.budget,
            stop: solver.stop_handle(),
            idle: Some((solver, Rng::new(config.seed))),
            busy: None,
        };
        app.next();
        Ok(app)
    }

    /// The board's number of columns.
    pub fn width(&self) -> usize {
        self.game.shape().width()
    }

    /// A search is under way.
    pub fn busy(&self) -> bool {
        self.busy.is_some()
    }

    /// How long the search under way has taken, and whether it is the
    /// opponent's move.
    pub fn thinking(&self) -> Option<(Duration, bool)> {
        self.busy
            .as_ref()
            .map(|b| (b.started.elapsed(), b.move_search))
    }

    /// It is the opponent's turn.
    pub fn engine_to_move(&self) -> bool {
        !self.game.is_over() && self.engine == Some(self.game.to_move())
    }

    /// What `key` does while the game cannot be seen (its window too
    /// small): it quits, or nothing; a move made unseen, or an opponent's
    /// reply to it, would be a surprise when the board is shown again.
    pub fn unseen_key(&self, key: KeyEvent) -> Reply {
        if quits(key) {
            Reply::Quit
        } else {
            Reply::Continue
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> Reply {
        if quits(key) {
            return Reply::Quit;
        }
        if is_chord(key) {
            return Reply::Continue;
        }
        match key.code {
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.width() - 1),
            KeyCode::Enter | KeyCode::Down | KeyCode::Char(' ') => self.drop_disc(self.cursor),
            KeyCode::Char('u') => self.undo(),
            KeyCode::Char('r') => self.redo(),
            KeyCode::Char('h') => {
                self.hints = !self.hints;
                // Scores no longer shown need no search (on a large board
                // it would hold every core for hours); the engine's move does.
                if !self.hints && !self.engine_to_move() {
                    self.cancel();
                }
                self.next();
            }
            KeyCode::Char('n') => {
                self.cancel();
                self.game = Game::new(*self.game.shape());
                self.message.clear();
                self.changed();
            }
            // A column's character in the notation: `1`-`9`, then `a`-`g`
            // past nine columns (no command above takes those letters).
            KeyCode::Char(ch) => {
                if let Some(column) = notation::column(ch).filter(|&c| c <= self.width()) {
                    self.cursor = column - 1;
                    self.drop_disc(column - 1);
                }
            }
            _ => {}
        }
        Reply::Continue
    }

    fn drop_disc(&mut self, col: usize) {
        if self.engine_to_move() {
            self.message = "the opponent is to move; u takes back your last move".into();
            return;
        }
        if let Err(e) = self.game.play(col) {
            self.message = e.to_string();
            return;
        }
        self.message.clear();
        self.changed();
    }

    /// Takes back a move; against an opponent, its reply and your move
    /// together, so that it is your turn again.
    fn undo(&mut self) {
        self.cancel();
        if !self.game.undo() {
            self.message = "nothing to undo".into();
        } else {
            while self.engine_to_move() && self.game.undo() {}
            self.message.clear();
        }
        self.changed();
    }

    /// Makes a move taken back again (and the opponent's reply with it).
    fn redo(&mut self) {
        self.cancel();
        if !self.game.redo() {
            self.message = "nothing to redo".into();
        } else {
            while self.engine_to_move() && self.game.can_redo() {
                self.game.redo();
            }
            self.message.clear();
        }
        self.changed();
    }

    /// The position changed: its scores are not known yet.
    fn changed(&mut self) {
        self.cancel();
        self.analysis = None;
        self.next();
    }

    /// Starts what the position needs: the opponent's move, or the scores.
    fn next(&mut self) {
        if self.busy.is_some() || self.game.is_over() {
            return;
        }
        let move_search = self.engine_to_move();
        if !move_search && (!self.hints || self.analysis.as_ref().is_some_and(|a| a.done)) {
            return;
        }
        let Some((mut solver, mut rng)) = self.idle.take() else {
            return;
        };
        let p = *self.game.position();
        let moves = self.game.notation();
        let opponent = self.opponent;
        let deadline = Instant::now() + self.budget;
        let (tx, rx) = mpsc::channel();
        let (progress_tx, progress_rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("score4-play-search".into())
            .stack_size(score4::solver::SEARCH_STACK_BYTES)
            .spawn(move || {
                let answer = if move_search {
                    let chosen = choose_until(&mut solver, &p, &opponent, &mut rng, Some(deadline));
                    Answer::Move(chosen)
                } else {
                    // Every column's range as it narrows, for as long as
                    // it takes: the player moving on stops it.
                    Answer::Scores(solver.analyze_anytime(
                        &p,
                        Goal::Everything,
                        None,
                        PROGRESS_TICK,
                        |a| {
                            let _ = progress_tx.send(a.clone());
                        },
                    ))
                };
                // The receiver is gone only when the game has ended.
                let _ = tx.send((solver, rng, moves, answer));
            });
        match spawned {
            Ok(_) => {
                self.busy = Some(Busy {
                    started: Instant::now(),
                    move_search,
                    done: rx,
                    progress: progress_rx,
                });
            }
            Err(e) => self.message = format!("cannot start the search: {e}"),
        }
    }

    /// Takes a finished search's answer, if there is one.
    pub fn poll(&mut self) {
        let Some(busy) = &self.busy else { return };
        // The busy search is for the position now: a move cancels it.
        if let Some(latest) = busy.progress.try_iter().last() {
            self.analysis = Some(latest);
        }
        match busy.done.try_recv() {
            Ok(returned) => {
                let took = busy.started.elapsed();
                self.busy = None;
                self.finish(returned, took);
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                self.busy = None;
                self.message = "the search failed".into();
            }
        }
    }

    /// Waits for the search under way, if any, and takes its answer.
    #[cfg(test)]
    pub fn settle(&mut self) {
        while let Some(busy) = &self.busy {
            match busy.done.recv() {
                Ok(returned) => {
                    let took = busy.started.elapsed();
                    self.busy = None;
                    self.finish(returned, took);
                }
                Err(_) => self.busy = None,
            }
        }
    }

    fn finish(&mut self, (solver, rng, moves, answer): Returned, took: Duration) {
        self.idle = Some((solver, rng));
        // An answer for a position the player has left is dropped.
        if moves == self.game.notation() {
            match answer {
                Answer::Scores(analysis) => self.analysis = Some(analysis),
                Answer::Move(Ok(Choice {
                    column: Some(col),
                    proven,
                })) => {
                    if self.game.play(col).is_ok() {
                        self.analysis = None;
                        self.message = if proven {
                            format!(
                                "{} played {} in {:.2} s",
                                self.opponent,
                                column_name(col),
                                took.as_secs_f64()
                            )
                        } else {
                            format!(
                                "{} played {} (not proven in {} s)",
                                self.opponent,
                                column_name(col),
                                self.budget.as_secs_f64()
                            )
                        };
                    }
                }
                Answer::Move(Ok(Choice { column: None, .. })) => {}
                Answer::Move(Err(e)) => self.message = e.to_string(),
            }
        }
        self.next();
    }

    /// Stops the search under way and takes the solver back (a stopped
    /// search returns within milliseconds).
    fn cancel(&mut self) {
        if let Some(busy) = self.busy.take() {
            self.stop.stop();
            if let Ok((solver, rng, _, _)) = busy.done.recv() {
                self.idle = Some((solver, rng));
            }
            self.stop.resume();
        }
    }

    /// Stops the search under way without waiting for it: the program is
    /// about to end.
    pub fn stop(&self) {
        self.stop.stop();
    }
}
