//! Opponents to play against, in one place for every face of the game
//! (the web page, a terminal game): who they are, how they are named, and
//! the move each chooses; and a score told in words ("win in 3").
//!
//! Every opponent but [`Opponent::Classic`] plays from the solver's exact
//! scores, so even the weaker ones never blunder out of ignorance: they
//! give ground on purpose, by a rule stated with them.
//!
//! ```
//! use score4::play::{choose, Opponent};
//! use score4::rng::Rng;
//! use score4::wide::{Position, Shape, Solver};
//! let shape = Shape::standard();
//! let mut solver = Solver::new(shape, 4).unwrap();
//! let p = Position::parse(&shape, "445566").unwrap();
//! let mut rng = Rng::new(1);
//! let perfect: Opponent = "perfect".parse().unwrap();
//! // Column 3 (0-based 2) or 7 (0-based 6) wins at once; 3 is nearer the centre.
//! assert_eq!(choose(&mut solver, &p, &perfect, &mut rng, None), Ok(Some(2)));
//! ```

use crate::clock::Instant;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::classic::{self, Outcome, Request, MAX_LEVEL};
use crate::input::Quoted;
use crate::layout::CellSet;
use crate::position::Position;
use crate::rng::Rng;
use crate::score;
use crate::size::BoardSize;
use crate::solver::{best_of, Goal, Node, Player, ScoreRange, Stopped, Verdict};
use crate::wide::{self, Shape};
use crate::TableError;

/// The softmax temperature of plain `soft`: a move one point worse is
/// about 0.6 times as likely, one that turns a draw into a quick loss
/// almost never played.
pub const DEFAULT_TEMPERATURE: f64 = 2.0;

/// The highest softmax temperature accepted; far above it every move is
/// about as likely as any other, which `fair` or a coin would do better.
pub const MAX_TEMPERATURE: f64 = 100.0;

/// The deepest classic level a face that must stay responsive offers (a
/// page, a terminal game): the classic search cannot be stopped, and its
/// time grows with each level, so the level is capped where it still
/// answers at once.
pub const MAX_CLASSIC_LEVEL: u32 = 12;

/// Who plays the other side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Opponent {
    /// Another person at the same board: the program only analyses.
    Human,
    /// The classic Score4 engine searching `level` plies (7x6 only): the
    /// same move the engine protocol prints for the position, the side to
    /// move playing orange.
    Classic {
        /// Search depth in plies, `1..=`[`MAX_LEVEL`].
        level: u32,
    },
    /// Perfect play: the fastest win, else a draw, else the slowest loss;
    /// the centre-most among equals ([`wide::Solver::best_move`]).
    Perfect,
    /// Any move that does not lose, uniformly at random (any move that
    /// keeps at least a draw, if there is one; else the slowest loss):
    /// it never throws away a draw, but lets a win slip.
    Fair,
    /// A softmax over the exact scores: each move is played with
    /// probability proportional to `exp(score / temperature)`. Low
    /// temperatures play nearly perfectly, high ones nearly at random.
    Soft {
        /// Greater than 0 and at most [`MAX_TEMPERATURE`].
        temperature: f64,
    },
}

impl Opponent {
    /// The opponents a page or a terminal offers by name, each spelled as
    /// [`FromStr`] reads it (`classic` takes a level: `classic:7`).
    pub const NAMES: [&'static str; 5] = ["human", "classic", "perfect", "fair", "soft"];

    /// Whether this opponent can play on a board of `size`: the classic
    /// engine knows only 7x6.
    pub fn check(&self, size: BoardSize) -> Result<(), OpponentError> {
        self.check_shape(&Shape::any(size.width(), size.height()))
    }

    /// [`check`](Self::check) on a board of any size.
    pub fn check_shape(&self, shape: &Shape) -> Result<(), OpponentError> {
        match self {
            Opponent::Classic { .. } if !is_standard(shape) => Err(OpponentError::ClassicBoard {
                width: shape.width(),
                height: shape.height(),
            }),
            _ => Ok(()),
        }
    }

    /// The opponent `text` names, for a face that must stay responsive:
    /// as [`FromStr`] reads it, with the classic engine's levels capped at
    /// [`MAX_CLASSIC_LEVEL`] (its search cannot be stopped).
    pub fn parse_responsive(text: &str) -> Result<Opponent, OpponentError> {
        let too_deep = |token: &str| OpponentError::BadLevel {
            token: token.to_string(),
            max: MAX_CLASSIC_LEVEL,
        };
        match text.parse::<Opponent>() {
            Ok(Opponent::Classic { level }) if level > MAX_CLASSIC_LEVEL => {
                Err(too_deep(&level.to_string()))
            }
            Err(OpponentError::BadLevel { token, .. }) => Err(too_deep(&token)),
            other => other,
        }
    }
}

impl fmt::Display for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opponent::Human => f.write_str("human"),
            Opponent::Classic { level } => write!(f, "classic:{level}"),
            Opponent::Perfect => f.write_str("perfect"),
            Opponent::Fair => f.write_str("fair"),
            Opponent::Soft { temperature } => write!(f, "soft:{temperature}"),
        }
    }
}

/// Why an opponent could not be named or could not play.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum OpponentError {
    /// A name that is none of [`Opponent::NAMES`].
    #[error("unknown opponent {}: expected human, classic:N, perfect, fair or soft[:T]", Quoted::new(.0))]
    Unknown(String),
    /// A classic level that is not a number from 1 to [`MAX_LEVEL`].
    #[error("bad classic level {}: expected a search depth from 1 to {max}", Quoted::new(.token))]
    BadLevel {
        /// The level as written.
        token: String,
        /// The deepest level accepted.
        max: u32,
    },
    /// A softmax temperature that is not a number in `(0, MAX_TEMPERATURE]`.
    #[error("bad temperature {}: expected a number above 0 and at most {}", Quoted::new(.0), MAX_TEMPERATURE)]
    BadTemperature(String),
    /// The classic engine asked to play on a board other than 7x6.
    #[error("the classic engine plays only on 7x6, not on {width}x{height}")]
    ClassicBoard {
        /// The width of the board it was asked to play on.
        width: usize,
        /// Its height.
        height: usize,
    },
}

impl FromStr for Opponent {
    type Err = OpponentError;

    /// `human`, `perfect`, `fair`, `soft` (at [`DEFAULT_TEMPERATURE`]),
    /// `soft:T`, and `classic:N` (also spelled `level:N`).
    fn from_str(text: &str) -> Result<Opponent, OpponentError> {
        let (name, arg) = match text.split_once(':') {
            Some((name, arg)) => (name, Some(arg)),
            None => (text, None),
        };
        let unknown = || OpponentError::Unknown(text.to_string());
        match (name, arg) {
            ("human", None) => Ok(Opponent::Human),
            ("perfect", None) => Ok(Opponent::Perfect),
            ("fair", None) => Ok(Opponent::Fair),
            ("soft", None) => Ok(Opponent::Soft {
                temperature: DEFAULT_TEMPERATURE,
            }),
            ("soft", Some(t)) => {
                let bad = || OpponentError::BadTemperature(t.to_string());
                // Plain decimals only: no "inf", "NaN" or exponents.
                if t.is_empty()
                    || t.len() > 12
                    || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                {
                    return Err(bad());
                }
                match t.parse::<f64>() {
                    Ok(temperature) if temperature > 0.0 && temperature <= MAX_TEMPERATURE => {
                        Ok(Opponent::Soft { temperature })
                    }
                    _ => Err(bad()),
                }
            }
            // The levels the engine protocol reads, read the same way.
            ("classic" | "level", Some(n)) => classic::protocol::parse_level(n)
                .map(|level| Opponent::Classic { level })
                .map_err(|_| OpponentError::BadLevel {
                    token: n.to_string(),
                    max: MAX_LEVEL,
                }),
            ("classic" | "level", None) => Err(OpponentError::BadLevel {
                token: String::new(),
                max: MAX_LEVEL,
            }),
            _ => Err(unknown()),
        }
    }
}

/// Why no move was chosen.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChooseError {
    /// The search was stopped (by its handle or its deadline) before it
    /// settled what the opponent needs.
    #[error(transparent)]
    Stopped(#[from] Stopped),
    /// The classic engine asked to play on a board other than 7x6.
    #[error("the classic engine plays only on 7x6, not on {width}x{height}")]
    ClassicBoard {
        /// The width of the board it was asked to play on.
        width: usize,
        /// Its height.
        height: usize,
    },
    /// The classic engine's table could not be allocated.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// A move found without a search, for when a search had no time left:
/// one that wins at once, else one that does not hand the opponent a win
/// at once, else any; the centre-most first. `None` once the game is over.
pub fn quick_move(shape: &Shape, p: &wide::Position) -> Option<usize> {
    let p = wide::placed(shape, p);
    if p.is_game_over() {
        return None;
    }
    let layout = p.layout();
    let order = || {
        layout
            .centre_first()
            .iter()
            .copied()
            .filter(|&c| p.can_play(c))
    };
    let safe = p.non_losing_moves_against(p.opponent_winning_cells());
    order()
        .find(|&c| p.is_winning_move(c))
        .or_else(|| order().find(|&c| (safe & p.landing(c)).any()))
        .or_else(|| order().next())
}

/// Whether `shape` is the standard 7x6 board, the classic engine's.
fn is_standard(shape: &Shape) -> bool {
    let standard = BoardSize::STANDARD;
    (shape.width(), shape.height()) == (standard.width(), standard.height())
}

/// The move (0-based column) `opponent` plays in `p`, `None` for
/// [`Opponent::Human`] (who plays for themself) and for a finished game.
///
/// The score-based opponents stop at `deadline` or by the solver's stop
/// handle. The classic engine's search cannot be stopped; keep its level
/// low where time matters ([`MAX_CLASSIC_LEVEL`]).
pub fn choose(
    solver: &mut wide::Solver,
    p: &wide::Position,
    opponent: &Opponent,
    rng: &mut Rng,
    deadline: Option<Instant>,
) -> Result<Option<usize>, ChooseError> {
    let shape = *solver.shape();
    if p.ending(&shape).is_some() {
        return Ok(None);
    }
    let order = shape.centre_first();
    fn in_play<T>(e: crate::SolveError) -> T {
        unreachable!("a game that goes on: {e}")
    }
    match *opponent {
        Opponent::Human => Ok(None),
        Opponent::Perfect => Ok(Some(
            solver
                .best_move_until(p, deadline)
                .unwrap_or_else(in_play)?,
        )),
        Opponent::Classic { level } => classic_move(&shape, p.current(), p.opponent(), level),
        Opponent::Fair | Opponent::Soft { .. } => {
            let scores = settled(&solver.analyze_until(p, deadline).unwrap_or_else(in_play))?;
            Ok(scored_move(opponent, &scores, order, rng))
        }
    }
}

/// The move of [`Opponent::Fair`] or [`Opponent::Soft`] among exact
/// `scores`, the board's columns being `order` centre first.
fn scored_move(
    opponent: &Opponent,
    scores: &[Option<i32>],
    order: &[usize],
    rng: &mut Rng,
) -> Option<usize> {
    match *opponent {
        Opponent::Soft { temperature } => soft_move(scores, temperature, rng),
        _ => fair_move(scores, order, rng),
    }
}

/// An opponent's move chosen within a deadline (see [`choose_until`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The column (0-based), `None` for [`Opponent::Human`] and for a
    /// finished game.
    pub column: Option<usize>,
    /// Whether the move is the one the opponent plays with all the time
    /// it needs; `false` when the deadline came first and the move is the
    /// best by what was proven by then ([`Analysis::best`](wide::Analysis::best)).
    pub proven: bool,
}

/// The move `opponent` plays in `p` by `deadline`: [`choose`]'s move
/// when the search settles it in time, else the best move by what was
/// proven by then, marked unproven. Never stopped for lack of time; only
/// the solver's stop handle ends it without a move (`Stopped`).
///
/// ```
/// use std::time::{Duration, Instant};
/// use score4::play::{choose_until, Opponent};
/// use score4::rng::Rng;
/// use score4::wide::{Position, Shape, Solver};
/// let shape = Shape::new(9, 6).unwrap();
/// let mut solver = Solver::new(shape, 16).unwrap();
/// let soon = Instant::now() + Duration::from_millis(50);
/// let choice = choose_until(&mut solver, &Position::new(), &Opponent::Perfect, &mut Rng::new(1), Some(soon));
/// // Not proven in 50 ms, but a move all the same: the centre.
/// assert_eq!(choice.unwrap().column, Some(4));
/// ```
pub fn choose_until(
    solver: &mut wide::Solver,
    p: &wide::Position,
    opponent: &Opponent,
    rng: &mut Rng,
    deadline: Option<Instant>,
) -> Result<Choice, ChooseError> {
    let shape = *solver.shape();
    let over = p.ending(&shape).is_some();
    let Some(goal) = analysed(opponent).filter(|_| deadline.is_some() && !over) else {
        return choose(solver, p, opponent, rng, deadline).map(proven);
    };
    // A stop by the handle, unlike the deadline, means no move is wanted:
    // what an analysis it cut short proved is not played.
    let handle = solver.stop_handle();
    if handle.is_stopped() {
        return Err(ChooseError::Stopped(Stopped));
    }
    let analysis = solver.proving(p, goal, deadline);
    if handle.is_stopped() {
        return Err(ChooseError::Stopped(Stopped));
    }
    Ok(pick(opponent, &analysis, shape.centre_first(), rng))
}

/// A move proven to be the one the opponent plays.
fn proven(column: Option<usize>) -> Choice {
    Choice {
        column,
        proven: true,
    }
}

/// What an anytime analysis must prove for `opponent` to play, if it plays
/// from scores at all.
fn analysed(opponent: &Opponent) -> Option<Goal> {
    match opponent {
        Opponent::Human | Opponent::Classic { .. } => None,
        Opponent::Perfect => Some(Goal::BestMove),
        Opponent::Fair | Opponent::Soft { .. } => Some(Goal::Everything),
    }
}

/// The move `opponent` plays by what `analysis` proved, the board's
/// columns being `order` centre first.
fn pick(opponent: &Opponent, analysis: &wide::Analysis, order: &[usize], rng: &mut Rng) -> Choice {
    let (columns, best) = (&analysis.columns, analysis.best());
    match opponent {
        Opponent::Perfect => Choice {
            column: best.map(|b| b.column),
            proven: best.is_some_and(|b| b.proven),
        },
        _ if analysis.done => {
            let exact: Vec<Option<i32>> = columns
                .iter()
                .map(|r| r.and_then(ScoreRange::exact))
                .collect();
            proven(scored_move(opponent, &exact, order, rng))
        }
        // Out of time: a move proven not to lose, if any, else the best
        // by what was proven.
        _ => {
            let safe: Vec<usize> = (0..columns.len())
                .filter(|&c| columns[c].is_some_and(|r| r.lower >= 0))
                .collect();
            let column = if safe.is_empty() {
                best.map(|b| b.column)
            } else {
                Some(safe[rng.index(safe.len())])
            };
            Choice {
                column,
                proven: false,
            }
        }
    }
}

/// Every column's score, or `Stopped` if any playable column was not settled.
fn settled(scores: &[Option<Result<i32, Stopped>>]) -> Result<Vec<Option<i32>>, Stopped> {
    scores.iter().map(|s| s.transpose()).collect()
}

/// A uniformly random column among those scoring at least 0, or the best
/// (slowest loss, centre-most, the columns being `order` centre first)
/// when every move loses.
fn fair_move(scores: &[Option<i32>], order: &[usize], rng: &mut Rng) -> Option<usize> {
    let good = || (0..scores.len()).filter(|&c| scores[c].is_some_and(|s| s >= 0));
    let count = good().count();
    if count == 0 {
        return best_of(order, scores);
    }
    good().nth(rng.index(count))
}

/// A column drawn with probability proportional to `exp(score / t)`.
fn soft_move(scores: &[Option<i32>], temperature: f64, rng: &mut Rng) -> Option<usize> {
    let best = scores.iter().flatten().max().copied()?;
    // Shifted by the best score so the largest weight is 1 and nothing overflows.
    let weight = |s: i32| (f64::from(s - best) / temperature).exp();
    let total: f64 = scores.iter().flatten().map(|&s| weight(s)).sum();
    let mut x = rng.unit() * total;
    let mut last = None;
    for (col, s) in scores.iter().enumerate() {
        if let Some(s) = *s {
            let w = weight(s);
            if x < w {
                return Some(col);
            }
            x -= w;
            last = Some(col);
        }
    }
    // Rounding can leave a sliver past the last weight.
    last
}

/// The classic engine's move (7x6 only) in the position of the side to
/// move's discs `current` and the opponent's, on the board of `shape`,
/// the side to move playing orange, exactly as the engine protocol
/// answers the same cells.
fn classic_move(
    shape: &Shape,
    current: u128,
    opponent: u128,
    level: u32,
) -> Result<Option<usize>, ChooseError> {
    // On the standard board the layouts are one, so the discs carry over.
    let standard = is_standard(shape)
        .then(|| {
            let bits = |cells: u128| Bitboard(cells as u64);
            Position::<7, 6>::from_sides(bits(current), bits(opponent))
        })
        .flatten()
        .ok_or(ChooseError::ClassicBoard {
            width: shape.width(),
            height: shape.height(),
        })?;
    let request = Request {
        board: Board::from_position(&standard),
        level,
        debug: false,
        perfect: false,
    };
    Ok(match classic::try_answer(&request)?.outcome {
        Outcome::Move { column, .. } => Some(column),
        Outcome::YouWin | Outcome::IWin | Outcome::NoMove => None,
    })
}

/// A move's score, told from the side to move in `p` (a game that goes
/// on) by its own moves: "win in 3" (its third move from now, this one
/// included, makes four), "draw", "loss in 12" (the opponent's four comes
/// after twelve more moves of the side to move). `None` for a score no
/// game from `p` can have.
///
/// ```
/// use score4::play::words;
/// use score4::Position;
/// let p: Position = "4453".parse().unwrap();
/// assert_eq!(words(&p, -2).as_deref(), Some("loss in 18"));
/// assert_eq!(words(&p, 0).as_deref(), Some("draw"));
/// let q: Position = "445566".parse().unwrap();
/// assert_eq!(words(&q, 18).as_deref(), Some("win in 1"));
/// ```
pub fn words<const W: usize, const H: usize>(p: &Position<W, H>, score: i32) -> Option<String> {
    told(p, score).map(|t| t.to_string())
}

/// [`words`] on a board of `cells` cells after `moves` moves, whatever its
/// size.
pub fn words_after(cells: usize, moves: u32, score: i32) -> Option<String> {
    told_after(cells, moves, score).map(|t| t.to_string())
}

/// A move's score as [`words`] tells it, before it is put in words: for
/// faces that show it otherwise (a colour, a short mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// The side to move's `n`-th move from now, this one included, makes four.
    Win(u32),
    /// Nobody makes four.
    Draw,
    /// The opponent's four comes after `n` more moves of the side to move.
    Loss(u32),
}

impl fmt::Display for Told {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Told::Win(n) => write!(f, "win in {n}"),
            Told::Draw => f.write_str("draw"),
            Told::Loss(n) => write!(f, "loss in {n}"),
        }
    }
}

/// [`words`] without the words; `None` for a score no game from `p` can have.
pub fn told<const W: usize, const H: usize>(p: &Position<W, H>, score: i32) -> Option<Told> {
    told_after(W * H, p.moves_played(), score)
}

/// [`told`] on a board of `cells` cells after `n` moves.
pub fn told_after(cells: usize, n: u32, score: i32) -> Option<Told> {
    let verdict = Verdict::after(cells, n, score)?;
    // Discs each player has on the board: the first player has moved
    // once more when the count is odd.
    let discs = |who: Player| match who {
        Player::First => n.div_ceil(2),
        Player::Second => n / 2,
    };
    Some(match verdict.win {
        None => Told::Draw,
        Some((winner, disc)) if winner == verdict.to_move => Told::Win(disc - discs(winner)),
        Some((winner, disc)) => Told::Loss(disc - discs(winner)),
    })
}

/// A range of a move's score told in words, as [`words`] tells an
/// exact one: the exact words once the range is one score; "win in at
/// most 5" or "loss in at most 4" once its side of zero is proven; "draw
/// or better" and "not a win" when it touches zero from one side; else
/// how soon it could end at the earliest, where that is proven ("no loss
/// in under 6, no win in under 9"), or "not proven yet".
///
/// ```
/// use score4::play::range_words;
/// use score4::{Position, ScoreRange};
/// let p: Position = "4453".parse().unwrap();
/// assert_eq!(range_words(&p, ScoreRange { lower: 0, upper: 5 }), "draw or better");
/// assert_eq!(range_words(&p, ScoreRange { lower: -9, upper: 0 }), "not a win");
/// assert_eq!(range_words(&p, ScoreRange { lower: -2, upper: -2 }), "loss in 18");
/// assert_eq!(range_words(&p, ScoreRange { lower: -9, upper: -2 }), "loss in at most 18");
/// assert_eq!(range_words(&p, ScoreRange { lower: -9, upper: 9 }), "no loss in under 11, no win in under 11");
/// assert_eq!(range_words(&p, ScoreRange { lower: -18, upper: 18 }), "not proven yet");
/// ```
pub fn range_words<const W: usize, const H: usize>(
    p: &Position<W, H>,
    range: ScoreRange,
) -> String {
    range_words_after(W * H, p.moves_played(), range)
}

/// [`range_words`] on a board of `cells` cells after `n` moves.
pub fn range_words_after(cells: usize, n: u32, range: ScoreRange) -> String {
    let unknown = || "not proven yet".to_string();
    let told = |score| told_after(cells, n, score);
    if let Some(score) = range.exact() {
        return told(score).map_or_else(unknown, |t| t.to_string());
    }
    // A higher lower bound is a sooner win; a lower upper bound a sooner loss.
    match (told(range.lower), told(range.upper)) {
        (Some(Told::Win(n)), _) => return format!("win in at most {n}"),
        (_, Some(Told::Loss(n))) => return format!("loss in at most {n}"),
        (Some(Told::Draw), _) => return "draw or better".to_string(),
        (_, Some(Told::Draw)) => return "not a win".to_string(),
        _ => {}
    }
    // Both sides of zero still open: what is proven is how soon the game
    // could end at the earliest, where that is more than any move has:
    // the range of a move's score, the opponent's at best next but one.
    let widest = ScoreRange {
        lower: -score::win(cells, n + 2),
        upper: score::win(cells, n + 3),
    };
    let mut parts = Vec::new();
    if let (true, Some(Told::Loss(n))) = (range.lower > -widest.upper, told(range.lower)) {
        parts.push(format!("no loss in under {n}"));
    }
    if let (true, Some(Told::Win(n))) = (range.upper < -widest.lower, told(range.upper)) {
        parts.push(format!("no win in under {n}"));
    }
    if parts.is_empty() {
        unknown()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests;
