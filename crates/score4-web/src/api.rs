//! The JSON API: reading a query into a task, and the answer to each task
//! computed by a worker's solver (see `docs/web.md` for the reference).

use std::time::Duration;

use serde_json::{json, Value};

use score4::clock::Instant;
use score4::input::Quoted;
use score4::play::{self, ChooseError, Opponent};
use score4::rng::Rng;
use score4::solver::{Goal, Player, ScoreRange};
use score4::wide::{self, Shape};

/// What a request asks of a solver.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Every column's score, or the range it is proven to lie in (told
    /// at once, or as it narrows in a stream).
    Analyze,
    /// The position's score, or only its sign.
    Solve {
        /// Only who wins.
        weak: bool,
    },
    /// The opponent's reply.
    Move {
        /// Who replies.
        opponent: Opponent,
        /// The seed of its random choices.
        seed: u64,
    },
}

/// A request read and checked: the board, its moves (valid on it) and the task.
#[derive(Clone, Debug)]
pub struct Query {
    /// The board size.
    pub size: Shape,
    /// The moves played, as sent (checked to be a game on `size`).
    pub moves: String,
    /// What to compute.
    pub task: Task,
}

/// A 400 with its one-line reason.
pub type BadQuery = String;

/// Reads the query of `/api/<endpoint>` and checks it all: parameters,
/// board, moves, opponent, so that a worker is only given valid work.
pub fn read_query(endpoint: &str, query: &str, seed: u64) -> Result<Query, BadQuery> {
    read(endpoint, query, seed).map(|(query, _)| query)
}

/// Reads the query of `/api/analyze/stream` as [`read_query`] does: the
/// analysis asked for, and the time asked for if any (the server caps it).
pub fn read_stream_query(query: &str) -> Result<(Query, Option<Duration>), BadQuery> {
    read("analyze/stream", query, 0)
}

fn read(endpoint: &str, query: &str, seed: u64) -> Result<(Query, Option<Duration>), BadQuery> {
    let allowed: &[&str] = match endpoint {
        "analyze" => &["board", "moves"],
        "analyze/stream" => &["board", "moves", "budget"],
        "solve" => &["board", "moves", "weak"],
        "move" => &["board", "moves", "opponent", "level", "seed"],
        _ => return Err(format!("unknown endpoint {endpoint:?}")),
    };
    let mut params: Vec<(String, String)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(name)?;
        let value = decode(value)?;
        if !allowed.contains(&name.as_str()) {
            return Err(format!(
                "unknown parameter {}: expected {}",
                Quoted::new(&name),
                allowed.join(", ")
            ));
        }
        if params.iter().any(|(n, _)| *n == name) {
            return Err(format!("parameter {} given twice", Quoted::new(&name)));
        }
        params.push((name, value));
    }
    let get = |name: &str| {
        params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let size = get("board").unwrap_or("7x6");
    let size = size.parse::<Shape>().map_err(|e| e.to_string())?;
    let moves = get("moves").unwrap_or("").to_string();
    check_moves(&size, &moves)?;
    let budget = get("budget").map(parse_budget).transpose()?;
    let task = match endpoint {
        "analyze" | "analyze/stream" => Task::Analyze,
        "solve" => Task::Solve {
            weak: match get("weak") {
                None | Some("0") => false,
                Some("1") => true,
                Some(other) => {
                    return Err(format!("bad weak {}: expected 0 or 1", Quoted::new(other)))
                }
            },
        },
        _ => {
            let opponent = match (get("opponent"), get("level")) {
                (Some(_), Some(_)) => return Err("give opponent or level, not both".to_string()),
                (None, Some(level)) => Opponent::parse_responsive(&format!("classic:{level}")),
                (Some(name), None) => Opponent::parse_responsive(name),
                (None, None) => Ok(Opponent::Perfect),
            }
            .map_err(|e| e.to_string())?;
            opponent.check_shape(&size).map_err(|e| e.to_string())?;
            let seed = match get("seed") {
                None => seed,
                Some(text) => parse_seed(text)?,
            };
            Task::Move { opponent, seed }
        }
    };
    Ok((Query { size, moves, task }, budget))
}

/// A budget in milliseconds, at least 1 (any larger one is capped by the
/// server, not refused).
fn parse_budget(text: &str) -> Result<Duration, BadQuery> {
    let bad = || {
        format!(
            "bad budget {}: expected milliseconds, a whole number from 1",
            Quoted::new(text)
        )
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    // Digits past what a u64 holds are a budget past any cap.
    let ms = text.parse::<u64>().unwrap_or(u64::MAX);
    if ms == 0 {
        return Err(bad());
    }
    Ok(Duration::from_millis(ms))
}

fn parse_seed(text: &str) -> Result<u64, BadQuery> {
    if text.is_empty() || text.len() > 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "bad seed {}: expected a whole number",
            Quoted::new(text)
        ));
    }
    text.parse()
        .map_err(|_| format!("bad seed {}: expected a whole number", Quoted::new(text)))
}

/// Whether `moves` is a game on the board (finished games included: they
/// may be analysed, though neither solved nor answered).
fn check_moves(size: &Shape, moves: &str) -> Result<(), BadQuery> {
    wide::Position::parse(size, moves)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Percent-decoding (`+` is a space), refusing what is not UTF-8.
fn decode(text: &str) -> Result<String, BadQuery> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| "malformed percent-encoding in the query".to_string())?;
                out.push(byte);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "the query is not UTF-8".to_string())
}

/// A worker's solvers, kept between requests: the standard board's (the
/// default, which nearly every request asks for) always, and the last other
/// board's. Another board's solver replaces only the last other one, so a
/// client that switches boards cannot make every 7x6 request start from a
/// cold table, and memory stays at two tables per worker.
#[derive(Default)]
pub struct Slot {
    solvers: Vec<wide::Solver>,
    /// The threads each search takes (0 or 1: one).
    threads: usize,
}

impl Slot {
    /// A slot whose solvers search with `threads` threads sharing their
    /// table (see `score4::Solver::set_threads`): where the slot has the
    /// machine to itself, as in the browser, not a server's worker beside
    /// others.
    pub fn with_threads(threads: usize) -> Slot {
        Slot {
            solvers: Vec::new(),
            threads,
        }
    }
}

/// Answers `query` with the slot's solver (made anew for another board),
/// stopping at `deadline`; `on_solver` is given the solver's stop handle
/// before the search starts.
pub fn answer(
    slot: &mut Slot,
    table_mb: usize,
    query: &Query,
    deadline: Instant,
    on_solver: &mut dyn FnMut(score4::StopHandle),
) -> (u16, Value) {
    let solver = match solver_for(slot, &query.size, table_mb) {
        Ok(s) => s,
        Err(e) => return (503, json!({ "error": e })),
    };
    on_solver(solver.stop_handle());
    let p = match position(query) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let shape = query.size;
    let fields = match &query.task {
        Task::Analyze => {
            let a = solver.analyze_anytime(&p, Goal::Everything, Some(deadline), QUIET, |_| {});
            analysis(&shape, &p, &a)
        }
        Task::Solve { weak } => match p.check_in_play(&shape) {
            Err(e) => return (400, json!({ "error": e.to_string() })),
            Ok(()) => solve(solver, &p, *weak, deadline),
        },
        Task::Move { opponent, seed } => match p.check_in_play(&shape) {
            Err(e) => return (400, json!({ "error": e.to_string() })),
            Ok(()) => match reply(solver, &p, opponent, *seed, deadline) {
                Ok(fields) => fields,
                // The query was checked: what is left is the server's fault
                // (a table it could not allocate).
                Err(e) => return (500, json!({ "error": e.to_string() })),
            },
        },
    };
    (200, with_position(query, fields))
}

/// The slot's solver for the board (made anew, in place of the last other
/// board's, if it holds none), or why it could not be made.
fn solver_for<'s>(
    slot: &'s mut Slot,
    size: &Shape,
    table_mb: usize,
) -> Result<&'s mut wide::Solver, String> {
    let held = slot.solvers.iter().position(|s| s.shape() == size);
    let i = match held {
        Some(i) => i,
        None => {
            // Drop the other board's table before the new one is made.
            slot.solvers.retain(|s| is_standard(s.shape()));
            let mut solver = wide::Solver::new(*size, table_mb).map_err(|e| e.to_string())?;
            if slot.threads > 1 {
                solver.set_threads(slot.threads);
            }
            slot.solvers.push(solver);
            slot.solvers.len() - 1
        }
    };
    Ok(&mut slot.solvers[i])
}

/// Whether `shape` is the standard 7x6 board.
fn is_standard(shape: &Shape) -> bool {
    (shape.width(), shape.height()) == (7, 6)
}

/// The board and the moves, to which an answer's own fields are added.
fn with_position(query: &Query, fields: Value) -> Value {
    let mut out = json!({
        "board": query.size.to_string(),
        "moves": query.moves,
    });
    if let (Value::Object(out), Value::Object(fields)) = (&mut out, fields) {
        out.extend(fields);
    }
    out
}

/// The query's position. [`read_query`] has checked its moves; a
/// [`Query`] built otherwise has not, and its bad moves are a 400.
fn position(query: &Query) -> Result<wide::Position, (u16, Value)> {
    wide::Position::parse(&query.size, &query.moves)
        .map_err(|e| (400, json!({ "error": e.to_string() })))
}

/// No progress reports wanted: one tick per budget at most.
const QUIET: Duration = Duration::from_secs(3600);

/// How often a streamed analysis reports its progress when no range
/// narrows.
const TICK: Duration = Duration::from_millis(250);

/// Runs `query`'s analysis by `deadline`, handing each state to `emit` as
/// it narrows (and every quarter second with the progress); `emit` returns false
/// to stop the search. The answer is the final state.
pub fn stream(
    slot: &mut Slot,
    table_mb: usize,
    query: &Query,
    deadline: Instant,
    on_solver: &mut dyn FnMut(score4::StopHandle),
    emit: &mut dyn FnMut(Value) -> bool,
) -> (u16, Value) {
    let solver = match solver_for(slot, &query.size, table_mb) {
        Ok(s) => s,
        Err(e) => return (503, json!({ "error": e })),
    };
    let handle = solver.stop_handle();
    on_solver(handle.clone());
    let p = match position(query) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let shape = query.size;
    let last = solver.analyze_anytime(&p, Goal::Everything, Some(deadline), TICK, |a| {
        if !emit(with_position(query, analysis(&shape, &p, a))) {
            handle.stop();
        }
    });
    (200, with_position(query, analysis(&shape, &p, &last)))
}

/// 1 for the first player, 2 for the second.
fn player_number(player: Player) -> u32 {
    match player {
        Player::First => 1,
        Player::Second => 2,
    }
}

/// A range as the API tells it: its bounds, the score and who wins once
/// proven, and the words, on a board of `cells` cells after `n` moves.
fn range_json(cells: usize, n: u32, r: ScoreRange) -> Value {
    json!({
        "lower": r.lower,
        "upper": r.upper,
        "exact": r.exact(),
        "weak": r.weak(),
        "words": play::range_words_after(cells, n, r),
    })
}

/// Everything an analysis has proven about `p`, as the API tells it.
fn analysis(shape: &Shape, p: &wide::Position, a: &wide::Analysis) -> Value {
    let n = p.moves_played();
    let cells = shape.cells();
    let over = p.ending(shape).is_some();
    // The last move made four, so its player (not the one to move) won.
    let winner = p
        .opponent_has_won(shape)
        .then(|| player_number(Player::after_moves(n).other()));
    let score = a.score();
    let best_score = score.and_then(ScoreRange::exact);
    let columns: Vec<Value> = a
        .columns
        .iter()
        .enumerate()
        .map(|(col, r)| match r {
            None => Value::Null,
            Some(r) => {
                let mut v = range_json(cells, n, *r);
                v["col"] = json!(col + 1);
                // `score` as before the ranges: the exact score or null.
                v["score"] = json!(r.exact());
                // Proven to be among the best: its score is the position's.
                v["best"] = json!(best_score.is_some() && r.exact() == best_score);
                v
            }
        })
        .collect();
    let mut out = json!({
        "to_move": player_number(Player::after_moves(n)),
        "moves_played": n,
        "over": over,
        "winner": winner,
        "score": best_score,
        "lower": score.map(|r| r.lower),
        "upper": score.map(|r| r.upper),
        "words": score.map(|r| play::range_words_after(cells, n, r)),
        "columns": columns,
        "best": a.best().map(|b| json!({ "col": b.column + 1, "proven": b.proven })),
        "complete": over || a.done,
        "nodes": a.nodes,
        "seconds": a.elapsed.as_secs_f64(),
    });
    if over {
        out["words"] = Value::Null;
    }
    out
}

/// The score of `p` (in play), or its sign, by `deadline`.
fn solve(solver: &mut wide::Solver, p: &wide::Position, weak: bool, deadline: Instant) -> Value {
    let cells = solver.shape().cells();
    let found = if weak {
        solver.solve_weak_until(p, Some(deadline))
    } else {
        solver.solve_until(p, Some(deadline))
    };
    // The caller checked that the game goes on.
    match found.unwrap_or(Err(score4::Stopped)) {
        Ok(s) if weak => json!({ "sign": s, "complete": true }),
        Ok(score) => json!({
            "score": score,
            "words": play::words_after(cells, p.moves_played(), score),
            "complete": true,
        }),
        Err(_) if weak => json!({ "sign": null, "complete": false }),
        Err(_) => json!({ "score": null, "words": "?", "complete": false }),
    }
}

fn reply(
    solver: &mut wide::Solver,
    p: &wide::Position,
    opponent: &Opponent,
    seed: u64,
    deadline: Instant,
) -> Result<Value, ChooseError> {
    let mut rng = Rng::new(seed);
    let shape = *solver.shape();
    let chosen = play::choose_until(solver, p, opponent, &mut rng, Some(deadline));
    let (column, complete) = match chosen {
        Ok(choice) => (choice.column, choice.proven),
        // Stopped (its client gone, or the classic engine out of
        // time): a move that does not lose at once, centre first, so
        // that a game goes on rather than hangs.
        Err(ChooseError::Stopped(_)) => (play::quick_move(&shape, p), false),
        Err(e) => return Err(e),
    };
    Ok(json!({
        "opponent": opponent.to_string(),
        "column": column.map(|c| c + 1),
        "complete": complete,
    }))
}

/// What `/api/health` tells: the solvers at work, the time a request
/// gets and the most a stream may ask for, and what may be asked for.
pub fn health(workers: usize, budget: Duration, max_budget: Duration) -> Value {
    json!({
        "ok": true,
        "workers": workers,
        "budget_ms": budget.as_millis() as u64,
        "max_budget_ms": max_budget.as_millis() as u64,
        "boards": sizes(),
        "opponents": score4::play::Opponent::NAMES,
        "max_classic_level": score4::play::MAX_CLASSIC_LEVEL,
    })
}

/// The board sizes a client may ask for, as text.
pub fn sizes() -> Vec<String> {
    Shape::all().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_checked_with_the_librarys_words() {
        let bad = |e: &str, q: &str| read_query(e, q, 0).unwrap_err();
        assert_eq!(
            bad("analyze", "board=7x6&moves=448"),
            "move 3: column 8 is out of range 1..7"
        );
        assert!(bad("analyze", "board=3x3").contains("is not supported"));
        assert!(bad("analyze", "board=big").contains("is not a board size"));
        assert!(bad("analyze", "moves=1&moves=2").contains("given twice"));
        assert!(bad("analyze", "x=1").starts_with("unknown parameter 'x'"));
        assert!(bad("analyze", "moves=%zz").contains("percent-encoding"));
        assert!(bad("move", "board=5x4&opponent=classic:3").contains("only on 7x6"));
        assert!(bad("move", "opponent=classic:13").contains("from 1 to 12"));
        assert!(bad("move", "opponent=god").starts_with("unknown opponent"));
        assert!(bad("move", "level=3&opponent=perfect").contains("not both"));
        assert!(bad("solve", "weak=2").starts_with("bad weak"));
        let q = read_query("move", "board=7x6&moves=44&opponent=classic%3A7", 5).unwrap();
        assert_eq!(
            q.task,
            Task::Move {
                opponent: Opponent::Classic { level: 7 },
                seed: 5
            }
        );
        assert!(bad("analyze/stream", "budget=0").starts_with("bad budget '0'"));
        assert!(bad("analyze/stream", "budget=2s").starts_with("bad budget"));
        assert!(bad("analyze", "budget=5").starts_with("unknown parameter 'budget'"));
        let stream = |q: &str| {
            let (query, budget) = read_stream_query(q).unwrap();
            assert_eq!(query.task, Task::Analyze);
            budget
        };
        assert_eq!(stream("moves=44"), None);
        assert_eq!(stream("budget=1500"), Some(Duration::from_millis(1500)));
        // Past what a u64 holds: a budget past any cap, which the server cuts.
        assert_eq!(
            stream(&format!("budget={}", "9".repeat(30))),
            Some(Duration::from_millis(u64::MAX))
        );
        assert!(read_stream_query("budget=0")
            .unwrap_err()
            .starts_with("bad budget '0'"));
        let q = read_query("move", "level=3&seed=9", 5).unwrap();
        assert_eq!(
            q.task,
            Task::Move {
                opponent: Opponent::Classic { level: 3 },
                seed: 9
            }
        );
    }
}
