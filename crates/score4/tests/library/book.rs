//! The built-in 7x6 book: complete, consistent with itself move by move,
//! in agreement with search and with every labelled fixture it covers,
//! and used by the solver without searching.

use score4::book::build::Plan;
use score4::book::Book;
use score4::wide::{self, Shape};
use score4::{score, Position, Solver};
use score4_testkit::fixtures;

/// The score of `p` from the book's scores of its children (a winning
/// move scores the win), as a solver would back it up.
fn backed_up(book: &Book, p: &wide::Position) -> i32 {
    let shape = book.shape();
    (0..shape.width())
        .filter(|&col| p.can_play(shape, col))
        .map(|col| {
            if p.is_winning_move(shape, col) {
                score::win(42, p.moves_played())
            } else {
                -book
                    .score_as_data(shape, &p.after(shape, col))
                    .expect("every child in play is in the book")
            }
        })
        .max()
        .expect("a position in play has a move")
}

#[test]
fn the_built_in_book_is_complete_and_consistent() {
    let book = Book::standard();
    let shape = Shape::standard();
    let plan = Plan::new(&shape, book.depth());
    assert_eq!(book.len(), plan.len());
    for p in plan.positions() {
        let stored = book
            .score_as_data(&shape, p)
            .expect("every position of the plan is stored");
        assert_eq!(book.score_as_data(&shape, &p.mirror(&shape)), Some(stored));
        assert!(score::range(42, p.moves_played()).contains(&stored));
        if p.moves_played() < book.depth() {
            assert_eq!(stored, backed_up(&book, p), "{p:?}");
        }
    }
}

/// Positions of the plan at `moves` moves, `count` of them spread evenly.
fn spread(plan: &Plan, moves: u32, count: usize) -> Vec<wide::Position> {
    let level = plan.level(moves);
    let step = (level.len() / count.max(1)).max(1);
    level.iter().step_by(step).take(count).copied().collect()
}

fn agree_with_search(depths: impl Iterator<Item = u32>, per_depth: usize) {
    let book = Book::standard();
    let shape = Shape::standard();
    let plan = Plan::new(&shape, book.depth());
    let mut solver = wide::Solver::new(shape, 64).unwrap();
    solver.drop_book();
    for moves in depths {
        for p in spread(&plan, moves, per_depth) {
            let searched = solver.solve(&p).unwrap();
            assert_eq!(book.score_as_data(&shape, &p), Some(searched), "{p:?}");
        }
    }
}

#[test]
fn the_deepest_scores_agree_with_search() {
    // The deepest level is where every other score comes from; the
    // shallower levels follow from it by the test above. Positions two or
    // more moves shallower than the depth take seconds each: see the
    // ignored test.
    let depth = Book::standard().depth();
    agree_with_search(depth.saturating_sub(1)..=depth, 3);
}

#[test]
#[ignore = "minutes: positions near the empty board take seconds each"]
fn scores_at_every_depth_agree_with_search() {
    agree_with_search(0..=Book::standard().depth(), 2);
}

#[test]
fn every_labelled_fixture_in_the_book_is_answered_without_search() {
    let book = Book::standard();
    // Ours, and c4's published sets when asked for (read in place).
    let mut files = fixtures::sets_in(&fixtures::path("solver"));
    if let Some(dir) =
        fixtures::published_sets("every_labelled_fixture_in_the_book_is_answered_without_search")
    {
        files.extend(fixtures::sets_in(&dir));
    }
    let mut solver = Solver::<7, 6>::with_table_mb(1);
    let mut covered = 0;
    for path in files {
        for labelled in fixtures::labelled::<7, 6>(&path) {
            let p = labelled.position;
            if p.moves_played() > book.depth() {
                continue;
            }
            covered += 1;
            solver.reset_nodes();
            assert_eq!(solver.solve(&p), labelled.score, "{}", labelled.moves);
            assert_eq!(solver.solve_weak(&p), labelled.score.signum());
            if p.moves_played() < book.depth() {
                let scores = solver.analyze(&p);
                assert_eq!(scores.iter().flatten().max(), Some(&labelled.score));
            }
            assert_eq!(solver.nodes(), 0, "{}", labelled.moves);
        }
    }
    // The empty board is always covered; a deep book covers the fixtures'
    // opening positions too.
    let empty = Position::<7, 6>::new();
    assert_eq!(solver.solve(&empty), 1);
    assert!(covered > 0 || book.depth() < 4, "{covered}");
}
