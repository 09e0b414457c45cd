//! The empty board of every size against the published results (see
//! `fixtures/board-sizes.txt` for the sources), and positions late in the
//! game on every size against the unpruned negamax.

use score4::solver::Bound;
use score4::wide::{self, Shape};
use score4::{with_board_size, BoardSize, Position, Solver};
use score4_testkit::fixtures::board_sizes as published;
use score4_testkit::naive::{late_game, Naive};
use score4_testkit::reference::Outcomes;
use score4_testkit::Rng;

/// Sizes whose empty board the default tests solve: each takes at most a
/// few seconds here. The others run with `--ignored`.
const QUICK: &[&str] = &[
    "4x4", "4x5", "4x6", "4x7", "4x8", "4x9", "4x10", "5x4", "5x5", "5x6", "6x4", "6x5", "7x4",
];

fn empty_board<const W: usize, const H: usize>() -> (i32, i32) {
    let mut solver = Solver::<W, H>::new();
    let p = Position::new();
    let strong = solver.solve(&p);
    let weak = solver.solve_weak(&p);
    (strong, weak)
}

fn check(quick: bool) -> usize {
    let mut solved = 0;
    for (size, expected) in published() {
        if QUICK.contains(&size.to_string().as_str()) != quick {
            continue;
        }
        let (strong, weak) = with_board_size!(size, empty_board());
        assert_eq!((strong, weak), (expected, expected.signum()), "{size}");
        solved += 1;
    }
    solved
}

#[test]
fn the_table_covers_every_size_but_the_unpublished() {
    let listed: Vec<BoardSize> = published().into_iter().map(|(s, _)| s).collect();
    let missing: Vec<String> = BoardSize::all()
        .filter(|s| !listed.contains(s))
        .map(|s| s.to_string())
        .collect();
    assert_eq!(missing, ["4x14", "4x15"]);
    for quick in QUICK {
        assert!(listed.iter().any(|s| s.to_string() == *quick), "{quick}");
    }
}

#[test]
fn quick_sizes_match_the_published_results() {
    assert_eq!(check(true), QUICK.len());
}

/// The larger boards: minutes to hours each (see the README's table).
#[test]
#[ignore]
fn every_other_size_matches_the_published_results() {
    assert!(check(false) > 0);
}

/// Every board size the command line offers, through the solver it uses
/// (the size-erased one: the compiled search on the compiled sizes, the
/// search as data on the others), on random positions with 6 to 14 empty
/// cells against the unpruned negamax: the layout's masks, keys and table
/// sizes differ with each. One compile of the test for all sizes, where a
/// typed solver per size compiled the test and the model 38 times.
#[test]
fn agrees_with_negamax_late_in_games_on_every_board_size() {
    let mut rng = Rng::new(0x5EED_1000);
    let mut outcomes = Outcomes::default();
    for size in BoardSize::all() {
        let (w, h) = (size.width(), size.height());
        let shape = Shape::new(w, h).unwrap();
        let mut solver = wide::Solver::new(shape, 4).unwrap();
        let mut checked = 0;
        while checked < 25 {
            let empty = 6 + rng.index(9);
            let Some((moves, g)) = late_game(w, h, empty, &mut rng) else {
                continue;
            };
            let p = wide::Position::parse(&shape, &moves).unwrap();
            // A memo per position: with at most 14 empty cells it stays small.
            let expected = Naive::new().move_scores(&g);
            let best = expected.iter().flatten().max().copied().unwrap();
            assert_eq!(solver.solve(&p), Ok(best), "{size} {moves}");
            assert_eq!(solver.solve_weak(&p), Ok(best.signum()), "{size} {moves}");
            assert_eq!(solver.analyze(&p).unwrap(), expected, "{size} {moves}");
            let keeps: Vec<bool> = expected.iter().map(|&s| s == Some(best)).collect();
            assert_eq!(solver.best_moves(&p), Ok((best, keeps)), "{size} {moves}");
            let col = solver.best_move(&p).unwrap();
            assert_eq!(expected[col], Some(best), "{size} {moves}");
            outcomes.note(best);
            checked += 1;
        }
    }
    outcomes.check();
}

/// The record files of the long split solves kept in `fixtures/split`
/// (`WxH-dDEPTH.records`) read back whole, and a finished one proves the
/// published score without a search: the proof of a result no default test
/// could afford to search again.
#[test]
fn kept_split_records_read_back_and_prove_the_published_results() {
    use score4::split::{Plan, Split};
    let dir = score4_testkit::fixtures::path("split");
    let mut proved = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures/split") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "records") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (size, depth) = name.split_once("-d").expect("WxH-dDEPTH.records");
        let depth: u32 = depth.parse().unwrap();
        let expected = score4_testkit::fixtures::published_results()
            .into_iter()
            .find(|((w, h), _)| format!("{w}x{h}") == size)
            .map(|(_, e)| e);
        let settled = settled_by_records(size.parse().unwrap(), &path, depth);
        if let Some(score) = settled {
            assert_eq!(Some(score), expected, "{name}");
            proved.push(name);
        }
    }
    proved.sort();
    assert_eq!(proved, ["10x4-d4", "7x8-d4", "8x7-d5", "9x6-d5"]);

    fn settled_by_records(
        shape: score4::wide::Shape,
        path: &std::path::Path,
        depth: u32,
    ) -> Option<i32> {
        let mut split = Split::new(shape, "", depth).unwrap();
        let loaded = split.load(path).unwrap();
        // Kept files are copied whole lines only: a damaged one was kept wrong.
        assert_eq!(loaded.damaged, 0, "{loaded:?}");
        match split.plan() {
            Plan::Score(score) => Some(score),
            Plan::Jobs(jobs) => {
                assert!(!jobs.is_empty());
                None
            }
        }
    }
}

/// The journals of the long direct solves kept in `fixtures/journal`
/// (`WxH.journal`) read back whole, and a finished one proves the
/// published score from its bounds in a few positions, as the kept record
/// files do (the unpublished ones, 4x16 and 4x17, the score found here);
/// an unfinished one only reads back, unless it has proven a bound of the
/// score (4x19's, unpublished; 6x11's, which must meet the published
/// score), which it then proves again at once. 12x4's,
/// whose sign was proven first, also proves the sign by the weak search.
#[test]
fn kept_journals_read_back_and_prove_the_published_results() {
    /// The sizes whose journals hold a finished solve.
    const FINISHED: [&str; 9] = [
        "11x4", "10x5", "12x4", "5x12", "5x13", "6x10", "7x9", "4x16", "4x17",
    ];
    /// The ones of them nobody has published, with the score found here
    /// (README.md, docs/board-sizes.md): their journals must settle it.
    const UNPUBLISHED: [(&str, i32); 2] = [("4x16", 0), ("4x17", 0)];
    let dir = score4_testkit::fixtures::path("journal");
    let copies = tempfile::tempdir().unwrap();
    /// Ones whose journals also prove the published sign by the weak search.
    const SIGN_PROVEN: [(&str, i32); 1] = [("12x4", -1)];
    /// Unfinished ones whose journals prove a bound of the empty board's
    /// score (docs/board-sizes.md).
    const BOUND_PROVEN: [(&str, Bound); 2] =
        [("4x19", Bound::AtMost(0)), ("6x11", Bound::AtLeast(2))];
    /// A journal that holds the answer gives it in a few positions; a
    /// broken one searches on.
    fn answered_at_once(solver: &wide::Solver, size: &str) {
        assert!(
            solver.nodes() < 1000,
            "{size}: {} positions",
            solver.nodes()
        );
    }
    let mut proved = Vec::new();
    let mut signed = Vec::new();
    let mut bounded = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures/journal") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "journal") {
            continue;
        }
        let size = path.file_stem().unwrap().to_string_lossy().into_owned();
        let shape: score4::wide::Shape = size.parse().unwrap();
        // The solver appends to its journal: it reads a copy.
        let copy = copies.path().join(path.file_name().unwrap());
        std::fs::copy(&path, &copy).unwrap();
        let mut solver = score4::wide::Solver::new(shape, 4).unwrap();
        solver.drop_book();
        let loaded = solver.keep_journal(&copy, 1 << 22).unwrap();
        assert_eq!(loaded.damaged, 0, "{size}: {loaded:?}");
        assert!(loaded.bounds > 1000, "{size}: {loaded:?}");
        let published = score4_testkit::fixtures::published_results()
            .into_iter()
            .find(|((w, h), _)| format!("{w}x{h}") == size)
            .map(|(_, e)| e);
        let empty = score4::wide::Position::parse(&shape, "").unwrap();
        // A deadline only bounds a broken journal's search; a sound one
        // answers in a few positions.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        if let Some(&(_, sign)) = SIGN_PROVEN.iter().find(|(s, _)| *s == size) {
            assert_eq!(published.map(i32::signum), Some(sign), "{size}");
            let weak = solver.solve_weak_until(&empty, Some(deadline)).unwrap();
            assert_eq!(weak, Ok(sign), "{size}");
            answered_at_once(&solver, &size);
            signed.push(size.clone());
        }
        if let Some(&(_, bound)) = BOUND_PROVEN.iter().find(|(s, _)| *s == size) {
            let (alpha, holds) = match bound {
                Bound::AtMost(b) => (b, published.is_none_or(|s| s <= b)),
                Bound::AtLeast(b) => (b - 1, published.is_none_or(|s| s >= b)),
            };
            // A bound against the published score is a broken journal.
            assert!(holds, "{size}: {bound:?} against {published:?}");
            let found = solver.probe_until(&empty, alpha, Some(deadline)).unwrap();
            assert_eq!(found, Ok(bound), "{size}");
            answered_at_once(&solver, &size);
            bounded.push(size.clone());
        }
        if !FINISHED.contains(&size.as_str()) {
            continue;
        }
        let found_here = UNPUBLISHED.iter().find(|(s, _)| *s == size);
        // A size is either published or found here, never both.
        assert_ne!(published.is_some(), found_here.is_some(), "{size}");
        let expected = published.or(found_here.map(|&(_, score)| score));
        let score = solver.solve_until(&empty, Some(deadline)).unwrap();
        assert!(score.is_ok(), "{size}: {score:?}");
        assert_eq!(score.ok(), expected, "{size}");
        answered_at_once(&solver, &size);
        proved.push(size);
    }
    proved.sort_unstable();
    let mut finished = FINISHED;
    finished.sort_unstable();
    assert_eq!(proved, finished);
    signed.sort_unstable();
    assert_eq!(signed, SIGN_PROVEN.map(|(s, _)| s.to_string()));
    bounded.sort_unstable();
    assert_eq!(bounded, BOUND_PROVEN.map(|(s, _)| s.to_string()));
}
