//! The empty board of every size against the published results (see
//! `fixtures/board-sizes.txt` for the sources), and positions late in the
//! game on every size against the unpruned negamax.

use score4::{with_board_size, BoardSize, Position, Solver};
use score4_testkit::fixtures::board_sizes as published;
use score4_testkit::positions::random_unfinished;
use score4_testkit::reference::{agree, Outcomes, Reference};
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

/// Random positions with at most 14 empty cells on one board size, each
/// checked against the unpruned negamax.
fn late_positions_agree<const W: usize, const H: usize>(seed: u64, outcomes: &mut Outcomes) {
    let mut rng = Rng::new(seed);
    let mut solver = Solver::<W, H>::with_table_mb(4);
    for _ in 0..25 {
        let len = (W * H) as u32 - 6 - rng.below(9) as u32;
        let p = random_unfinished::<W, H>(&mut rng, len);
        // A memo per position: with at most 14 empty cells it stays small.
        outcomes.note(agree(&mut solver, &p, &mut Reference::remembering()));
    }
}

/// Every board size the command line offers, through the same dispatch it
/// uses: the layout's masks, keys and table sizes differ with each.
#[test]
fn agrees_with_negamax_late_in_games_on_every_board_size() {
    let mut outcomes = Outcomes::default();
    for (i, size) in BoardSize::all().enumerate() {
        let seed = 0x5EED_1000 + i as u64;
        with_board_size!(size, late_positions_agree(seed, &mut outcomes));
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
