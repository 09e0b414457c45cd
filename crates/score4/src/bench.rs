//! Benchmark bookkeeping: one timed solve per labelled position, and the
//! per-set summary that `score4 bench` prints.
//!
//! The solve itself is a closure, so the same loop measures any solver
//! configuration (strong or weak, kept or fresh table).
//!
//! ```
//! use score4::bench::{run_set, Summary};
//! use score4::fixture;
//! let set = fixture::parse::<7, 6>("4 -1\n44 2\n").unwrap();
//! // A "solver" that always says 2, visiting 10 nodes.
//! let samples = run_set(&set, false, &mut (), |_, _| (2, 10), |_| {});
//! let summary = Summary::of(&samples);
//! assert_eq!((summary.positions, summary.wrong), (2, 1));
//! assert_eq!(summary.mean_nodes, 10.0);
//! ```

use std::time::Duration;

use crate::clock::Instant;

use crate::fixture::{Entry, Labelled};
use crate::position::Position;
use crate::wide;

/// How long [`warm_up`] solves before timing starts: long enough for the
/// code, the caches and the processor's clock to settle.
pub const WARM_UP: Duration = Duration::from_millis(200);

/// A labelled position of a set, whatever its board.
pub trait Label {
    /// The position's type.
    type Position;
    /// 1-based line of the position in its file.
    fn line(&self) -> usize;
    /// The position.
    fn position(&self) -> &Self::Position;
    /// Its exact score.
    fn score(&self) -> i32;
}

impl<const W: usize, const H: usize> Label for Labelled<W, H> {
    type Position = Position<W, H>;
    fn line(&self) -> usize {
        self.line
    }
    fn position(&self) -> &Position<W, H> {
        &self.position
    }
    fn score(&self) -> i32 {
        self.score
    }
}

impl Label for Entry {
    type Position = wide::Position;
    fn line(&self) -> usize {
        self.line
    }
    fn position(&self) -> &wide::Position {
        &self.position
    }
    fn score(&self) -> i32 {
        self.score
    }
}

/// Readies a solver for timing: solves positions of `set` with `solve`,
/// untimed, for [`WARM_UP`]. Without it the first positions timed pay
/// for a cold start. Have the system supply the table's memory first
/// (`touch_table`), and forget what was solved after (`clear_table`).
pub fn warm_up<L: Label>(set: &[L], mut solve: impl FnMut(&L::Position)) {
    let start = Instant::now();
    for labelled in set.iter().cycle() {
        if start.elapsed() > WARM_UP {
            break;
        }
        solve(labelled.position());
    }
}

/// The outcome of solving one labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// 1-based line of the position in its file.
    pub line: usize,
    /// Wall time of the solve alone.
    pub elapsed: Duration,
    /// Nodes the solver visited.
    pub nodes: u64,
    /// The solver's answer.
    pub got: i32,
    /// The label (its sign only, for a weak solve).
    pub expected: i32,
}

impl Sample {
    /// Whether the answer matches the label.
    pub fn is_correct(&self) -> bool {
        self.got == self.expected
    }
}

/// Solves every position of `set` with `solve`, which returns the score and
/// the nodes visited, calling `after` after each one outside the timing
/// (to advance a progress bar or reset a table). Both get `state`, the
/// solver being measured. With `weak`, answers are compared with the sign
/// of the label.
pub fn run_set<L: Label, S, F, T>(
    set: &[L],
    weak: bool,
    state: &mut S,
    mut solve: F,
    mut after: T,
) -> Vec<Sample>
where
    F: FnMut(&mut S, &L::Position) -> (i32, u64),
    T: FnMut(&mut S),
{
    let mut samples = Vec::with_capacity(set.len());
    for labelled in set {
        let start = Instant::now();
        let (got, nodes) = solve(state, labelled.position());
        let elapsed = start.elapsed();
        let score = labelled.score();
        samples.push(Sample {
            line: labelled.line(),
            elapsed,
            nodes,
            got,
            expected: if weak { score.signum() } else { score },
        });
        after(state);
    }
    samples
}

/// Summary statistics of one set.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Summary {
    /// Positions solved.
    pub positions: usize,
    /// Answers that differ from the label.
    pub wrong: usize,
    /// Mean time per position.
    pub mean: Duration,
    /// Median time per position.
    pub median: Duration,
    /// Longest time for one position.
    pub max: Duration,
    /// Mean nodes per position.
    pub mean_nodes: f64,
    /// Nodes per second over the whole set.
    pub nodes_per_sec: f64,
    /// Time for the whole set.
    pub total: Duration,
}

impl Summary {
    /// Summarises the samples of one set.
    pub fn of(samples: &[Sample]) -> Summary {
        if samples.is_empty() {
            return Summary::default();
        }
        let n = samples.len();
        let total: Duration = samples.iter().map(|s| s.elapsed).sum();
        let nodes: u64 = samples.iter().map(|s| s.nodes).sum();
        let mut times: Vec<Duration> = samples.iter().map(|s| s.elapsed).collect();
        times.sort_unstable();
        let median = if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2
        };
        let seconds = total.as_secs_f64();
        Summary {
            positions: n,
            wrong: samples.iter().filter(|s| !s.is_correct()).count(),
            mean: total / n as u32,
            median,
            max: times[n - 1],
            mean_nodes: nodes as f64 / n as f64,
            nodes_per_sec: if seconds > 0.0 {
                nodes as f64 / seconds
            } else {
                0.0
            },
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(micros: u64, nodes: u64, got: i32, expected: i32) -> Sample {
        Sample {
            line: 1,
            elapsed: Duration::from_micros(micros),
            nodes,
            got,
            expected,
        }
    }

    #[test]
    fn summary_statistics() {
        let s = Summary::of(&[
            sample(10, 100, 1, 1),
            sample(30, 300, 0, 1),
            sample(20, 200, -1, -1),
            sample(40, 400, 2, 2),
        ]);
        assert_eq!(s.positions, 4);
        assert_eq!(s.wrong, 1);
        assert_eq!(s.mean, Duration::from_micros(25));
        assert_eq!(s.median, Duration::from_micros(25));
        assert_eq!(s.max, Duration::from_micros(40));
        assert_eq!(s.mean_nodes, 250.0);
        assert!((s.nodes_per_sec - 1000.0 / 100e-6).abs() < 1.0);
        assert_eq!(s.total, Duration::from_micros(100));
        assert_eq!(Summary::of(&[]).positions, 0);
    }

    #[test]
    fn weak_runs_compare_signs() {
        let set = crate::fixture::parse::<7, 6>("4 -5\n44 3\n1 0\n").unwrap();
        let mut calls = 0;
        let samples = run_set(
            &set,
            true,
            &mut calls,
            |_, p| (if p.moves_played() == 1 { -1 } else { 1 }, 1),
            |calls| *calls += 1,
        );
        assert_eq!(calls, 3);
        let wrong: Vec<usize> = samples
            .iter()
            .filter(|s| !s.is_correct())
            .map(|s| s.line)
            .collect();
        assert_eq!(wrong, vec![3]);
    }
}
