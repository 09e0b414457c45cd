//! What an anytime analysis has proven, as Python sees it: one state,
//! taken when it was reported and never changed after.

use pyo3::prelude::*;
use score4::play::range_words_after;
use score4::solver::BestSoFar;
use score4::wide;
use score4::ScoreRange;

use crate::Position;

/// What `Solver.analyze_anytime` has proven about a position's moves, at
/// one moment: each column's score lies in its `bounds`, and the bounds
/// only narrow as the analysis goes on.
///
/// Scores are the Solver's, from the side to move in `position`.
///
/// >>> from score4 import Solver
/// >>> a = Solver().analyze_anytime("445566")
/// >>> a.done, a.best, a.proven, a.exact
/// (True, 2, True, [17, 17, 18, 17, 17, 17, 18])
/// >>> a.words[2], a.score
/// ('win in 1', (18, 18))
#[pyclass(module = "score4", frozen)]
pub(crate) struct Analysis {
    position: Position,
    columns: Vec<Option<ScoreRange>>,
    best: Option<BestSoFar>,
    score: Option<ScoreRange>,
    nodes: u64,
    seconds: f64,
    done: bool,
}

impl Analysis {
    /// The state `a` of the analysis of `position`.
    pub(crate) fn of(position: &Position, a: &wide::Analysis) -> Self {
        Analysis {
            position: position.clone(),
            columns: a.columns.clone(),
            best: a.best(),
            score: a.score(),
            nodes: a.nodes,
            seconds: a.elapsed.as_secs_f64(),
            done: a.done,
        }
    }

    fn words_of(&self, range: ScoreRange) -> String {
        let p = &self.position;
        range_words_after(p.shape.cells(), p.reached.moves_played(), range)
    }
}

fn pair(r: ScoreRange) -> (i32, i32) {
    (r.lower, r.upper)
}

#[pymethods]
impl Analysis {
    /// The position analysed.
    #[getter]
    fn position(&self) -> Position {
        self.position.clone()
    }

    /// Each column's `(lower, upper)`: its score is at least `lower` and
    /// at most `upper`; None for a full column (every one once the game is
    /// over).
    #[getter]
    fn bounds(&self) -> Vec<Option<(i32, i32)>> {
        self.columns.iter().map(|c| c.map(pair)).collect()
    }

    /// Each column's exact score, None where it is not proven yet (or the
    /// column is full).
    #[getter]
    fn exact(&self) -> Vec<Option<i32>> {
        self.columns
            .iter()
            .map(|c| c.and_then(|r| r.exact()))
            .collect()
    }

    /// Each column's proven result: 1 a win for the side to move, 0 a
    /// draw, -1 a loss; None where it is not proven yet (or the column is
    /// full).
    #[getter]
    fn weak(&self) -> Vec<Option<i32>> {
        self.columns
            .iter()
            .map(|c| c.and_then(|r| r.weak()))
            .collect()
    }

    /// Each column's bounds in words, as the terminal game tells them:
    /// "win in 3", "draw", "loss in at most 12", "draw or better", "not a
    /// win", "not proven yet"; None for a full column.
    #[getter]
    fn words(&self) -> Vec<Option<String>> {
        self.columns
            .iter()
            .map(|c| c.map(|r| self.words_of(r)))
            .collect()
    }

    /// The position's own score's `(lower, upper)`, from its columns'; None
    /// once the game is over.
    #[getter]
    fn score(&self) -> Option<(i32, i32)> {
        self.score.map(pair)
    }

    /// The position's bounds in words; None once the game is over.
    #[getter]
    fn score_words(&self) -> Option<String> {
        self.score.map(|r| self.words_of(r))
    }

    /// The best move (0-based column) by what is proven: the highest lower
    /// bound, the centre-most among equals; None once the game is over.
    #[getter]
    fn best(&self) -> Option<usize> {
        self.best.map(|b| b.column)
    }

    /// Whether `best` is proven to be the move `Solver.best_move` plays.
    #[getter]
    fn proven(&self) -> bool {
        self.best.is_some_and(|b| b.proven)
    }

    /// Positions searched by the analysis so far.
    #[getter]
    fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Seconds since the analysis began.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Whether every column's score is exact.
    #[getter]
    fn done(&self) -> bool {
        self.done
    }

    fn __repr__(&self) -> String {
        let best = match self.best {
            None => "no move".to_owned(),
            Some(b) if b.proven => format!("best {} (proven)", b.column),
            Some(b) => format!("best {} (not proven)", b.column),
        };
        let bounds: Vec<String> = self
            .columns
            .iter()
            .map(|c| match c {
                None => "-".to_owned(),
                Some(r) => match r.exact() {
                    Some(s) => s.to_string(),
                    None => format!("{}..{}", r.lower, r.upper),
                },
            })
            .collect();
        format!(
            "<score4.Analysis of '{}' on {}: [{}], {}, {}{} nodes in {:.3} s>",
            self.position.moves(),
            self.position.shape,
            bounds.join(", "),
            best,
            if self.done { "done, " } else { "" },
            self.nodes,
            self.seconds
        )
    }
}
