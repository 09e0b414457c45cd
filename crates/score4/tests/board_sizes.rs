//! The empty board of every size against the published results (see
//! `fixtures/board-sizes.txt` for the sources).

use score4::{with_board_size, BoardSize, Position, Solver};
use score4_testkit::fixtures::board_sizes as published;

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
