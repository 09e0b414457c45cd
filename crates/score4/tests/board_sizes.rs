//! The empty board of every size against the published results (see
//! `fixtures/board-sizes.txt` for the sources).

use std::path::PathBuf;

use score4::{with_board_size, BoardSize, Position, Solver};

/// Sizes whose empty board the default tests solve: each takes at most a
/// few seconds here. The others run with `--ignored`.
const QUICK: &[&str] = &[
    "4x4", "4x5", "4x6", "4x7", "4x8", "4x9", "4x10", "5x4", "5x5", "5x6", "6x4", "6x5", "7x4",
];

/// One published result: the size and the first player's score.
fn published() -> Vec<(BoardSize, i32)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/board-sizes.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut results = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [size, winner, last] = fields[..] else {
            panic!("malformed line '{line}'");
        };
        let size: BoardSize = size.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let last: usize = last.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let cells = size.width() * size.height();
        assert!(last <= cells, "{line}");
        // A win completed by the m-th disc scores 1 + (W*H - m) / 2.
        let win = 1 + (cells - last) as i32 / 2;
        let score = match winner {
            "draw" => {
                assert_eq!(last, cells, "{line}: a draw ends on the last cell");
                0
            }
            "first" => win,
            "second" => -win,
            _ => panic!("{line}: unknown winner '{winner}'"),
        };
        results.push((size, score));
    }
    results
}

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
