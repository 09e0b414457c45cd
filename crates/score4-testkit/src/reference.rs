//! The exact score by trying every continuation: no pruning, no bounds, no
//! table, nothing but the rules and the score convention. Slow on purpose;
//! the solver is compared with it.

use score4::{score, Position, Solver};

/// The reference search, remembering finished answers by position key (so
/// that small boards can be covered completely) or not at all (for a few
/// positions late in large games, where a memo would only fill memory).
#[derive(Debug, Default)]
pub struct Reference {
    // ahash: with SipHash, hashing keys was most of the reference's time.
    memo: Option<ahash::AHashMap<u64, i32>>,
}

impl Reference {
    /// A reference that remembers every position it scores.
    pub fn remembering() -> Self {
        Reference {
            memo: Some(ahash::AHashMap::new()),
        }
    }

    /// A reference that remembers nothing.
    pub fn forgetting() -> Self {
        Reference { memo: None }
    }

    /// The score of every move of `p` (the score of the position after it,
    /// negated), `None` for a full column.
    pub fn move_scores<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> [Option<i32>; W] {
        let mut scores = [None; W];
        for (col, score) in scores.iter_mut().enumerate() {
            if !p.can_play(col) {
                continue;
            }
            let child = p.after(col);
            *score = Some(if child.opponent_has_won() {
                score::win(W * H, p.moves_played())
            } else if child.is_full() {
                0
            } else {
                -self.score(&child)
            });
        }
        scores
    }

    /// The exact score of `p`, a position in play, for the side to move.
    pub fn score<const W: usize, const H: usize>(&mut self, p: &Position<W, H>) -> i32 {
        // A position and its mirror image have the same score: one entry
        // serves both, which halves the memo and the positions scored.
        let key = p.key().min(p.mirror_key());
        if let Some(&s) = self.memo.as_ref().and_then(|m| m.get(&key)) {
            return s;
        }
        let best = self
            .move_scores(p)
            .into_iter()
            .flatten()
            .max()
            .expect("a position in play has a move");
        if let Some(m) = self.memo.as_mut() {
            m.insert(key, best);
        }
        best
    }
}

/// Compares the solver's `solve`, `solve_weak`, `analyze` and `best_move`
/// on `p` with the reference, and returns the score.
pub fn agree<const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    p: &Position<W, H>,
    reference: &mut Reference,
) -> i32 {
    let moves = reference.move_scores(p);
    let expected = moves.into_iter().flatten().max().expect("moves");
    assert_eq!(solver.solve(p), expected, "solve\n{p}");
    assert_eq!(solver.solve_weak(p), expected.signum(), "solve_weak\n{p}");
    assert_eq!(solver.analyze(p), moves, "analyze\n{p}");
    assert_eq!(
        solver.best_move(p),
        Solver::<W, H>::best_of(&moves),
        "best_move\n{p}"
    );
    expected
}

/// How many positions of a random sample the side to move wins, draws and
/// loses; a sample without all three tests less than it seems to.
#[derive(Debug, Default)]
pub struct Outcomes([usize; 3]);

impl Outcomes {
    pub fn note(&mut self, score: i32) {
        self.0[(score.signum() + 1) as usize] += 1;
    }

    pub fn check(&self) {
        assert!(
            self.0.iter().all(|&n| n > 0),
            "losses, draws, wins: {self:?}"
        );
    }
}
