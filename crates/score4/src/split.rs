//! A strong solve split into independent searches near the root, whose
//! results are kept on disk: a long solve that survives being killed, and
//! one shared over machines.
//!
//! The root's score is narrowed as [`Solver`] narrows it, one null window
//! at a time (the same probe sequence). Each window asks "is the score above
//! `alpha`?", and the first `depth` moves answer it without search: a
//! position is above `alpha` exactly when one of its moves leads to a
//! position whose score is not above `-alpha - 1` (negamax). Only the
//! positions `depth` moves from the root are searched, each with the one
//! null window its parent needs ([`Job`]), and each search's proven bound
//! is a line of a record file. A move that settles its parent spares its
//! siblings, so a solve run in one process searches little more than a
//! direct one. Results are kept by position, a position and its mirror
//! image as one: a search reached again by other moves, or mirrored, is
//! never repeated, and at each position the moves the records already
//! settle are taken before any move that needs a search. A round shared
//! over machines ([`Split::plan`]) lists the searches the window needs
//! next: a position's first move alone until it is settled, then all its
//! other moves at once.
//!
//! A record file starts with a header naming the board, the root and the
//! depth, and every line carries a checksum: a line cut short by a kill, or
//! damaged since, is counted and skipped, never trusted, and a file of
//! another split is refused.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use thiserror::Error;

use crate::error::{ParseError, SolveError};
use crate::input::{quoted_path, Lines};
use crate::solver::{next_probe, score_range, settled_score, Bound, Stopped};
use crate::wide::{notation, placed, Position, Shape, Solver};

/// First word of a record file's header.
const MAGIC: &str = "score4-split";
/// Version of the record format.
const VERSION: u32 = 1;

/// Why a split solve cannot go on.
#[derive(Debug, Error)]
pub enum SplitError {
    /// The root is not a position of the board.
    #[error("the root: {0}")]
    Root(#[from] ParseError),
    /// The root's game is over.
    #[error("the root: {0}")]
    Finished(#[from] SolveError),
    /// The record file is of another split, or not one at all.
    #[error("{path}: not a record of this split (board {board}, root {root}, depth {depth})")]
    OtherSplit {
        /// The file, quoted.
        path: String,
        /// This split's board, `WxH`.
        board: String,
        /// This split's root.
        root: String,
        /// This split's depth.
        depth: u32,
    },
    /// A job's line is not `MOVES ALPHA`, or its position is not one of
    /// this split's.
    #[error("job {0}: expected MOVES ALPHA, MOVES a position this split's root leads to")]
    BadJob(String),
    /// Reading or writing a record file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file, quoted.
        path: String,
        /// What failed.
        source: io::Error,
    },
    /// The guessed score cannot be the root's.
    #[error("guess {guess}: the root's score lies in {min}..={max}")]
    Guess {
        /// The guess.
        guess: i32,
        /// The root's lowest possible score.
        min: i32,
        /// The root's highest possible score.
        max: i32,
    },
    /// The search was stopped.
    #[error(transparent)]
    Stopped(#[from] Stopped),
}

/// One search of a split solve: is the score of the position `moves` (from
/// the empty board) above `alpha`?
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    /// The position, as moves from the empty board.
    pub moves: String,
    /// The null window's lower end.
    pub alpha: i32,
}

impl fmt::Display for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", or_dash(&self.moves), self.alpha)
    }
}

/// What [`Split::plan`] finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The root's exact score.
    Score(i32),
    /// The searches the next window needs, none of them recorded yet.
    Jobs(Vec<Job>),
}

/// What reading record files found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Lines read and trusted.
    pub records: usize,
    /// Lines skipped: cut short, damaged, or not of this split's positions.
    pub damaged: usize,
}

/// The tightest bounds recorded for one position.
#[derive(Clone, Copy, Debug)]
struct Known {
    at_least: i32,
    at_most: i32,
}

impl Known {
    const NOTHING: Known = Known {
        at_least: i32::MIN,
        at_most: i32::MAX,
    };

    fn above(self, alpha: i32) -> Option<bool> {
        if self.at_least > alpha {
            Some(true)
        } else if self.at_most <= alpha {
            Some(false)
        } else {
            None
        }
    }

    fn add(&mut self, bound: Bound) {
        match bound {
            Bound::AtLeast(r) => self.at_least = self.at_least.max(r),
            Bound::AtMost(r) => self.at_most = self.at_most.min(r),
        }
    }
}

/// A strong solve of one root, split `depth` moves down, on a board of any
/// [`Shape`].
pub struct Split {
    shape: Shape,
    root: Position,
    root_moves: String,
    depth: u32,
    /// The root's score, if guessed: probed first.
    guess: Option<i32>,
    /// Recorded bounds by [`Position::canonical_key`].
    known: HashMap<u128, Known>,
}

/// How [`Split::above`] answers the positions at the split depth.
enum Leaves<'a> {
    /// From the records, listing the searches that are missing (each
    /// position and window once, however many ways lead to it).
    Plan(&'a mut Vec<Job>, HashSet<(u128, i32)>),
    /// By searching what is missing, recording each result and telling
    /// the observer (the job, its bound, the positions it searched).
    Search(
        &'a mut Solver,
        &'a mut Recorder,
        &'a mut dyn FnMut(&Job, Bound, u64),
    ),
    /// From the records alone, listing nothing: what they settle already.
    Records,
}

impl Split {
    /// The split of the position `root_moves` (moves from the empty board,
    /// `-` or nothing for the empty board itself) on the board `shape`,
    /// `depth` moves down. The game must not be over.
    pub fn new(shape: Shape, root_moves: &str, depth: u32) -> Result<Self, SplitError> {
        let root_moves = without_dash(root_moves);
        let root = Position::parse(&shape, root_moves)?;
        root.check_in_play(&shape)?;
        Ok(Split {
            shape,
            root,
            root_moves: root_moves.to_string(),
            depth,
            guess: None,
            known: HashMap::new(),
        })
    }

    /// Probes the root first at `guess`: with the right guess, the root's
    /// score takes the two windows that prove it ("above `guess - 1`?" and
    /// "above `guess`?"), the fewest any proof needs; a wrong guess costs
    /// time, never the answer. Records are bounds, whatever the windows
    /// that found them, so a guess may be added to or dropped from a
    /// solve under way.
    pub fn set_guess(&mut self, guess: i32) -> Result<(), SplitError> {
        let (min, max) = score_range(&self.shape, self.root.moves_played() as i32);
        if !(min..=max).contains(&guess) {
            return Err(SplitError::Guess { guess, min, max });
        }
        self.guess = Some(guess);
        Ok(())
    }

    /// The header line of this split's record files.
    pub fn header(&self) -> String {
        format!(
            "{MAGIC} {VERSION} {} {} {}",
            self.shape,
            or_dash(&self.root_moves),
            self.depth
        )
    }

    /// Reads a record file of this split: its trusted lines count from now
    /// on. A file of another split is an error.
    pub fn load(&mut self, path: &Path) -> Result<Loaded, SplitError> {
        let io = |source| SplitError::Io {
            path: quoted_path(path),
            source,
        };
        let file = BufReader::new(File::open(path).map_err(io)?);
        let mut lines = Lines::new(file);
        if !lines.header_is(&self.header()).map_err(io)? {
            return Err(self.other_split(path));
        }
        let mut loaded = Loaded::default();
        while let Some((_, line)) = lines.next_line().map_err(io)? {
            // A line too long or not UTF-8 is damage like any other.
            let Ok(line) = line else {
                loaded.damaged += 1;
                continue;
            };
            match self.read_record(line) {
                Some((p, bound)) => {
                    self.remember(&p, bound);
                    loaded.records += 1;
                }
                None => loaded.damaged += 1,
            }
        }
        Ok(loaded)
    }

    fn other_split(&self, path: &Path) -> SplitError {
        SplitError::OtherSplit {
            path: quoted_path(path),
            board: self.shape.to_string(),
            root: or_dash(&self.root_moves).to_string(),
            depth: self.depth,
        }
    }

    /// A record line's position and bound, if its checksum holds and the
    /// position is one this split's root leads to.
    fn read_record(&self, line: &str) -> Option<(Position, Bound)> {
        let (text, check) = line.rsplit_once(' ')?;
        if check.len() != 16 || u64::from_str_radix(check, 16).ok()? != self.check(text) {
            return None;
        }
        let (moves, bound) = text.split_once(' ')?;
        let bound = if let Some(r) = bound.strip_prefix("<=") {
            Bound::AtMost(r.parse().ok()?)
        } else {
            Bound::AtLeast(bound.strip_prefix(">=")?.parse().ok()?)
        };
        Some((self.position_of(moves)?, bound))
    }

    /// The position `moves` names, if this split's root leads to it.
    fn position_of(&self, moves: &str) -> Option<Position> {
        let moves = without_dash(moves);
        let p = Position::parse(&self.shape, moves).ok()?;
        moves.starts_with(&self.root_moves).then_some(p)
    }

    /// The checksum of a record's text: FNV-1a over the header and the
    /// text, so that a line of another split never passes either.
    fn check(&self, text: &str) -> u64 {
        crate::checksum::fnv1a([self.header().as_bytes(), b"\n", text.as_bytes()])
    }

    /// The record line of a search's result.
    fn record_line(&self, job: &Job, bound: Bound) -> String {
        let text = format!("{} {bound}", or_dash(&job.moves));
        format!("{text} {:016x}\n", self.check(&text))
    }

    /// Notes a search's result, as if read from a record.
    pub fn note(&mut self, job: &Job, bound: Bound) -> Result<(), SplitError> {
        let p = self
            .position_of(&job.moves)
            .ok_or_else(|| SplitError::BadJob(job.to_string()))?;
        self.remember(&p, bound);
        Ok(())
    }

    /// Adds a proven bound of `p` to what the split knows.
    fn remember(&mut self, p: &Position, bound: Bound) {
        self.known
            .entry(p.canonical_key(&self.shape))
            .or_insert(Known::NOTHING)
            .add(bound);
    }

    /// Searches `job` (whose position is `p`) with `solver`, appends the
    /// result to `recorder` before anything else depends on it, and
    /// remembers it.
    fn search(
        &mut self,
        p: &Position,
        job: &Job,
        solver: &mut Solver,
        recorder: &mut Recorder,
    ) -> Result<Bound, SplitError> {
        let bound = solver.probe(p, job.alpha)?;
        recorder.write(&self.record_line(job, bound))?;
        self.remember(p, bound);
        Ok(bound)
    }

    /// The root's score if the records settle it, else every search the
    /// next window needs that is not recorded yet: the jobs of one round
    /// shared over machines.
    pub fn plan(&mut self) -> Plan {
        let mut jobs = Vec::new();
        match self.narrow(&mut Leaves::Plan(&mut jobs, HashSet::new())) {
            Ok(Some(score)) => Plan::Score(score),
            _ => Plan::Jobs(jobs),
        }
    }

    /// The root's score, searching with `solver` what the records do not
    /// hold and appending each result to `recorder` as soon as it is
    /// found: killed, it loses at most the search under way.
    pub fn solve(
        &mut self,
        solver: &mut Solver,
        recorder: &mut Recorder,
    ) -> Result<i32, SplitError> {
        self.solve_observed(solver, recorder, |_, _, _| {})
    }

    /// [`solve`](Self::solve), calling `observe` after each search is
    /// recorded with its job, its bound and the positions it searched: the
    /// progress of a solve that takes hours.
    pub fn solve_observed(
        &mut self,
        solver: &mut Solver,
        recorder: &mut Recorder,
        mut observe: impl FnMut(&Job, Bound, u64),
    ) -> Result<i32, SplitError> {
        let score = self.narrow(&mut Leaves::Search(solver, recorder, &mut observe))?;
        Ok(score.expect("a search settles every window"))
    }

    /// The root's probe loop: `None` as soon as a window is not settled.
    fn narrow(&mut self, leaves: &mut Leaves<'_>) -> Result<Option<i32>, SplitError> {
        let root = self.root;
        if let Some(score) = settled_score(&placed(&self.shape, &root)) {
            return Ok(Some(score));
        }
        let n = root.moves_played() as i32;
        let (mut min, mut max) = score_range(&self.shape, n);
        let mut probes = 0;
        let mut moves = self.root_moves.clone();
        while min < max {
            let probe = match self.guess {
                // First "above guess - 1?", then "above guess?".
                Some(g) if min < g && g <= max => g - 1,
                Some(g) if min == g && g < max => g,
                _ => next_probe(&self.shape, min, max, probes, n),
            };
            probes += 1;
            match self.above(&root, probe, self.depth, &mut moves, leaves)? {
                Some(true) => min = probe + 1,
                Some(false) => max = probe,
                None => return Ok(None),
            }
        }
        Ok(Some(min))
    }

    /// Whether `p` (reached by `moves`) scores above `alpha`, answered by
    /// negamax over the next `depth` moves; `None` if a search it needs is
    /// not recorded (when planning).
    fn above(
        &mut self,
        p: &Position,
        alpha: i32,
        depth: u32,
        moves: &mut String,
        leaves: &mut Leaves<'_>,
    ) -> Result<Option<bool>, SplitError> {
        let shape = self.shape;
        if let Some(score) = settled_score(&placed(&shape, p)) {
            return Ok(Some(score > alpha));
        }
        let key = p.canonical_key(&shape);
        if let Some(known) = self.known.get(&key).and_then(|k| k.above(alpha)) {
            return Ok(Some(known));
        }
        let records_only = matches!(leaves, Leaves::Records);
        if depth > 0 && !records_only {
            // A move the records settle spares any search of the others.
            if let Some(answer) = self.above(p, alpha, depth, moves, &mut Leaves::Records)? {
                return Ok(Some(answer));
            }
        }
        if depth == 0 {
            // Built only where a job is listed or searched: the records-first
            // pass reaches every leaf and needs none.
            let job = || Job {
                moves: moves.clone(),
                alpha,
            };
            return Ok(match leaves {
                Leaves::Records => None,
                Leaves::Plan(jobs, listed) => {
                    if listed.insert((key, alpha)) {
                        jobs.push(job());
                    }
                    None
                }
                Leaves::Search(solver, recorder, observe) => {
                    let job = job();
                    let before = solver.nodes();
                    let bound = self.search(p, &job, solver, recorder)?;
                    observe(&job, bound, solver.nodes().wrapping_sub(before));
                    bound.above(alpha)
                }
            });
        }
        let mut unsettled = false;
        let mut first = true;
        for &col in shape.centre_first() {
            if !p.can_play(&shape, col) {
                continue;
            }
            moves.push(notation::character(col + 1).unwrap_or('?'));
            let child = self.above(&p.after(&shape, col), -alpha - 1, depth - 1, moves, leaves)?;
            moves.pop();
            match child {
                // The move leads to a score of at most -alpha - 1 for the
                // opponent: at least alpha + 1 for the side to move.
                Some(false) => return Ok(Some(true)),
                Some(true) => {}
                // When planning, the first move is settled before its
                // siblings are listed: it settles the position more often
                // than not, sparing them (the eldest brother first). Once
                // it has not, every sibling is likely needed, and all go
                // into the same round.
                None if first && !records_only => return Ok(None),
                None => unsettled = true,
            }
            first = false;
        }
        Ok((!unsettled).then_some(false))
    }

    /// The job a line names (`MOVES ALPHA`), if it is one of this split's.
    pub fn job(&self, line: &str) -> Result<Job, SplitError> {
        let bad = || SplitError::BadJob(line.chars().take(80).collect());
        let (moves, alpha) = line.trim().split_once(' ').ok_or_else(bad)?;
        let alpha = alpha.trim().parse().map_err(|_| bad())?;
        self.position_of(moves).ok_or_else(bad)?;
        Ok(Job {
            moves: without_dash(moves).to_string(),
            alpha,
        })
    }

    /// Runs one job with `solver` and appends its result to `recorder`.
    pub fn run(
        &mut self,
        job: &Job,
        solver: &mut Solver,
        recorder: &mut Recorder,
    ) -> Result<Bound, SplitError> {
        let p = self
            .position_of(&job.moves)
            .ok_or_else(|| SplitError::BadJob(job.to_string()))?;
        self.search(&p, job, solver, recorder)
    }

    /// Opens (or creates) a record file of this split for appending, and
    /// reads what it already holds.
    pub fn open(&mut self, path: &Path) -> Result<(Recorder, Loaded), SplitError> {
        let io = |source| SplitError::Io {
            path: quoted_path(path),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut recorder = Recorder {
            file,
            path: quoted_path(path),
        };
        if len == 0 {
            recorder.write(&format!("{}\n", self.header()))?;
            return Ok((recorder, Loaded::default()));
        }
        let loaded = self.load(path)?;
        // A line cut short by a kill is ended, so that the next record
        // starts a line of its own.
        let mut last = [0u8];
        recorder.file.seek(SeekFrom::End(-1)).map_err(io)?;
        recorder.file.read_exact(&mut last).map_err(io)?;
        if last[0] != b'\n' {
            recorder.write("\n")?;
        }
        Ok((recorder, loaded))
    }
}

/// A record file open for appending; each line reaches the disk before
/// the call that writes it returns.
pub struct Recorder {
    file: File,
    path: String,
}

impl Recorder {
    fn write(&mut self, line: &str) -> Result<(), SplitError> {
        let io = |source| SplitError::Io {
            path: self.path.clone(),
            source,
        };
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// `-` for the empty board, as record files and jobs write it.
fn or_dash(moves: &str) -> &str {
    if moves.is_empty() {
        "-"
    } else {
        moves
    }
}

/// The moves `-` stands for: none.
fn without_dash(moves: &str) -> &str {
    if moves == "-" {
        ""
    } else {
        moves
    }
}

#[cfg(test)]
mod tests;
