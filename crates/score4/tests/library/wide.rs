//! Boards past 64 bits and nine columns, most of whose sizes are data: the position
//! against a plain grid, the solver against the unpruned negamax on that
//! grid and against the compiled solver where both exist, and the empty
//! boards against the published results.

use score4::wide::{self, notation, Shape};
use score4::{score, BoardSize, Position, Solver};
use score4_testkit::naive::{late_game, Grid, Naive};
use score4_testkit::positions::random_unfinished;
use score4_testkit::Rng;

/// Sizes past nine columns or 64 bits: wide, tall, and both at the
/// 128-bit limit; 12x4 and 10x5 compiled, the others as data.
const SIZES: &[(usize, usize)] = &[
    (10, 4),
    (11, 4),
    (12, 4),
    (16, 4),
    (10, 5),
    (10, 6),
    (8, 8),
    (9, 7),
    (16, 7),
    (13, 5),
    (4, 20),
    (5, 20),
];

/// A random late game (see `late_game`) in both models and the notation.
fn late_game_on(
    shape: &Shape,
    rng: &mut Rng,
    empty: usize,
) -> Option<(wide::Position, Grid, String)> {
    let (moves, g) = late_game(shape.width(), shape.height(), empty, rng)?;
    let p = wide::Position::parse(shape, &moves).expect("a game of the rules");
    Some((p, g, moves))
}

#[test]
fn positions_follow_the_grid_move_by_move() {
    let mut rng = Rng::new(55);
    for &(w, h) in SIZES {
        let shape = Shape::new(w, h).unwrap();
        for _ in 0..30 {
            let mut p = wide::Position::new();
            let mut g = Grid::new(w, h);
            let mut written = String::new();
            loop {
                for col in 0..w {
                    assert_eq!(
                        p.can_play(&shape, col),
                        g.can_play(col),
                        "{shape} {written}"
                    );
                    if g.can_play(col) {
                        assert_eq!(
                            p.is_winning_move(&shape, col),
                            g.wins_with(col),
                            "{shape} {written} col {col}"
                        );
                    }
                }
                assert_eq!(p.ending(&shape).is_some(), g.someone_won() || g.is_full());
                assert_eq!(p.moves_played(), g.moves_played());
                assert_eq!(wide::Position::parse(&shape, &written), Ok(p));
                if p.ending(&shape).is_some() {
                    break;
                }
                let open: Vec<usize> = (0..w).filter(|&c| g.can_play(c)).collect();
                let col = open[rng.index(open.len())];
                p.play(&shape, col);
                g.play(col);
                written.push(notation::character(col + 1).unwrap());
            }
            // The mirror image is the grid read right to left.
            let mirrored: String = written
                .chars()
                .map(|c| notation::character(w + 1 - notation::column(c).unwrap()).unwrap())
                .collect();
            let m = wide::Position::parse(&shape, &mirrored);
            if let Ok(m) = m {
                assert_eq!(m, p.mirror(&shape));
            }
        }
    }
}

#[test]
fn late_positions_agree_with_the_unpruned_negamax() {
    let mut rng = Rng::new(5555);
    for &(w, h) in SIZES {
        let shape = Shape::new(w, h).unwrap();
        let mut solver = wide::Solver::new(shape, 4).unwrap();
        let mut checked = 0;
        while checked < 12 {
            let empty = 6 + rng.index(7);
            let Some((p, g, moves)) = late_game_on(&shape, &mut rng, empty) else {
                continue;
            };
            let mut naive = Naive::new();
            let expected = naive.move_scores(&g);
            assert_eq!(solver.analyze(&p).unwrap(), expected, "{shape} {moves}");
            let best = expected.iter().flatten().max().copied().unwrap();
            assert_eq!(solver.solve(&p), Ok(best), "{shape} {moves}");
            if checked % 3 == 0 {
                // A fresh table: the score without anything remembered.
                solver.clear_table();
            }
            checked += 1;
        }
    }
}

/// Sizes both paths solve: the run-time shape's search (on `u64`s: these
/// layouts fit them) against the compiled one, position by position; and
/// the size-erased solver, which runs the compiled search on these sizes,
/// against both.
fn same_as_compiled<const W: usize, const H: usize>(rng: &mut Rng, plies: std::ops::Range<u32>) {
    assert!(
        BoardSize::new(W, H).is_ok_and(BoardSize::is_compiled),
        "{W}x{H} runs as data"
    );
    let shape = Shape::any(W, H);
    let mut as_data = wide::Solver::as_data(shape, 16).unwrap();
    let mut erased = wide::Solver::new(shape, 16).unwrap();
    erased.drop_book();
    let mut compiled = Solver::<W, H>::with_table_mb(16);
    compiled.drop_book();
    for i in 0..100 {
        let len = plies.start + rng.below((plies.end - plies.start) as u64) as u32;
        let p: Position<W, H> = random_unfinished(rng, len);
        // The same layout: the compiled bits are the run-time ones.
        let q = wide::Position::from_sides(
            &shape,
            p.current().bits() as u128,
            p.opponent().bits() as u128,
        )
        .unwrap();
        let written = format!("{:?}", p.key());
        let expected = compiled.analyze(&p).to_vec();
        assert_eq!(as_data.analyze(&q).unwrap(), expected, "{W}x{H} {written}");
        if i % 4 == 0 {
            let (score, best) = compiled.best_moves(&p);
            let expected_best = (score, best.to_vec());
            assert_eq!(
                as_data.best_moves(&q).unwrap(),
                expected_best,
                "{W}x{H} {written}"
            );
            assert_eq!(
                as_data.best_move(&q).ok(),
                compiled.best_move(&p),
                "{written}"
            );
            // Every column's range, proven to the end, is its exact score.
            let done = as_data.analyze_anytime(
                &q,
                score4::solver::Goal::Everything,
                None,
                std::time::Duration::from_secs(60),
                |_| {},
            );
            let exact: Vec<Option<i32>> = done
                .columns
                .iter()
                .map(|r| r.and_then(|r| r.exact()))
                .collect();
            assert!(done.done, "{written}");
            assert_eq!(exact, expected, "{W}x{H} {written}");
            assert_eq!(erased.analyze(&q).unwrap(), expected, "{written}");
            assert_eq!(erased.best_moves(&q).unwrap(), expected_best, "{written}");
        }
    }
}

#[test]
fn the_run_time_search_agrees_with_the_compiled_one() {
    let mut rng = Rng::new(64);
    same_as_compiled::<7, 6>(&mut rng, 22..34);
    same_as_compiled::<6, 7>(&mut rng, 24..36);
    same_as_compiled::<9, 5>(&mut rng, 26..38);
    same_as_compiled::<5, 11>(&mut rng, 34..48);
    same_as_compiled::<9, 6>(&mut rng, 34..46);
    same_as_compiled::<4, 15>(&mut rng, 30..50);
}

/// The compiled sizes wider than nine columns against the search as data,
/// position by position, early enough that the table shares entries with
/// mirror images.
#[test]
fn the_wide_compiled_sizes_agree_with_the_search_as_data() {
    let mut rng = Rng::new(1012);
    for (w, h, plies) in [(12, 4, 20..36), (10, 5, 18..36)] {
        let shape = Shape::new(w, h).unwrap();
        assert!(shape.is_compiled(), "{shape} runs as data");
        let mut compiled = wide::Solver::new(shape, 16).unwrap();
        let mut as_data = wide::Solver::as_data(shape, 16).unwrap();
        let mut checked = 0;
        while checked < 12 {
            let len = plies.start + rng.below((plies.end - plies.start) as u64) as u32;
            let Some((p, _, moves)) = late_game_on(&shape, &mut rng, shape.cells() - len as usize)
            else {
                continue;
            };
            checked += 1;
            let expected = as_data.analyze(&p).unwrap();
            assert_eq!(compiled.analyze(&p).unwrap(), expected, "{shape} {moves}");
            assert_eq!(
                compiled.best_moves(&p).unwrap(),
                as_data.best_moves(&p).unwrap(),
                "{shape} {moves}"
            );
        }
    }
    // Past them, as data.
    assert!(!Shape::new(11, 4).unwrap().is_compiled());
    assert!(!Shape::new(10, 6).unwrap().is_compiled());
}

/// A game of `len` moves on `shape` in which neither side gives away a
/// win at once, stopped where the side to move cannot win at once: one
/// the search has to look into, which random moves seldom give. A
/// `mirrored` game's third and fourth moves of every four mirror its first
/// and second, so that after each four the board is its own mirror image
/// and the search meets positions and their images.
fn sensible_game(
    shape: &Shape,
    rng: &mut Rng,
    len: u32,
    mirrored: bool,
) -> Option<(wide::Position, String)> {
    let width = shape.width();
    let mirror = |col: usize| width - 1 - col;
    let mut p = wide::Position::new();
    let mut played: Vec<usize> = Vec::new();
    while p.moves_played() < len {
        if p.can_win_next(shape) {
            return None;
        }
        let safe = p.non_losing_moves(shape);
        let col = if mirrored && played.len() % 4 >= 2 {
            mirror(played[played.len() - 2])
        } else {
            let open: Vec<usize> = (0..width)
                .filter(|&col| safe & shape.column(col) != 0)
                // A second move into the first's mirror column would
                // stack the two columns in opposite orders.
                .filter(|&col| {
                    !(mirrored && played.len() % 4 == 1 && {
                        let first = played[played.len() - 1];
                        first != mirror(first) && col == mirror(first)
                    })
                })
                .collect();
            *open.get(rng.index(open.len().max(1)))?
        };
        if safe & shape.column(col) == 0 {
            return None;
        }
        p.play(shape, col);
        played.push(col);
    }
    if mirrored {
        assert_eq!(p.mirror(shape), p, "{played:?}");
    }
    let moves = played
        .iter()
        .map(|&col| notation::character(col + 1).expect("a column of the board"))
        .collect();
    (!p.can_win_next(shape)).then_some((p, moves))
}

/// The compiled sizes past 64 bits against the search as data, position
/// by position: the same scores, and the same positions searched, as
/// both search the same `u128`s over the same table and differ only in
/// whether the masks are constants. The positions are early enough that
/// the table shares entries with mirror images (`tuning`'s
/// `mirror_below_moves`: below half the board), half of them their own.
#[test]
fn the_compiled_sizes_past_64_bits_search_as_the_search_as_data() {
    let mut rng = Rng::new(7012);
    for (w, h, plies) in [
        (7, 9, 28..31),
        (6, 11, 30..33),
        (6, 12, 32..36),
        (4, 19, 36..38),
    ] {
        let shape = Shape::new(w, h).unwrap();
        assert!(shape.layout_bits() > 64, "{shape}");
        assert!(shape.is_compiled(), "{shape} runs as data");
        assert!(plies.end <= shape.cells() as u32 / 2, "{shape}");
        let mut compiled = wide::Solver::new(shape, 16).unwrap();
        let mut as_data = wide::Solver::as_data(shape, 16).unwrap();
        let mut checked = 0;
        while checked < 4 {
            let len = plies.start + rng.below((plies.end - plies.start) as u64) as u32;
            let mirrored = checked % 2 == 0;
            let len = if mirrored { len / 4 * 4 } else { len };
            let Some((p, moves)) = sensible_game(&shape, &mut rng, len, mirrored) else {
                continue;
            };
            let mut searched = 0;
            for ask in 0..2 {
                for solver in [&mut compiled, &mut as_data] {
                    solver.clear_table();
                    solver.reset_nodes();
                }
                if ask == 0 {
                    let expected = as_data.analyze(&p).unwrap();
                    assert_eq!(compiled.analyze(&p).unwrap(), expected, "{shape} {moves}");
                } else {
                    let expected = as_data.best_moves(&p).unwrap();
                    assert_eq!(
                        compiled.best_moves(&p).unwrap(),
                        expected,
                        "{shape} {moves}"
                    );
                }
                assert_eq!(compiled.nodes(), as_data.nodes(), "{shape} {moves}");
                searched += as_data.nodes();
            }
            // Only positions that take a search count.
            if searched >= 1000 {
                checked += 1;
            }
        }
    }
}

#[test]
fn bounds_in_a_moment_hold_the_unpruned_negamax_scores() {
    let mut rng = Rng::new(1280);
    for &(w, h) in SIZES {
        let shape = Shape::new(w, h).unwrap();
        let mut solver = wide::Solver::new(shape, 4).unwrap();
        let mut checked = 0;
        while checked < 4 {
            let empty = 8 + rng.index(5);
            let Some((p, g, moves)) = late_game_on(&shape, &mut rng, empty) else {
                continue;
            };
            let expected = Naive::new().move_scores(&g);
            // Stopped at once, then given all the time: the first ranges
            // hold the scores, the last are the scores.
            solver.clear_table();
            let soon = std::time::Instant::now();
            let quick = solver.analyze_anytime(
                &p,
                score4::solver::Goal::Everything,
                Some(soon),
                std::time::Duration::from_secs(60),
                |_| {},
            );
            let mut updates = Vec::new();
            let full = solver.analyze_anytime(
                &p,
                score4::solver::Goal::Everything,
                None,
                std::time::Duration::from_secs(60),
                |a| updates.push(a.clone()),
            );
            assert!(full.done, "{shape} {moves}");
            for a in updates.iter().chain([&quick, &full]) {
                assert_eq!(a.columns.len(), w);
                for (range, score) in a.columns.iter().zip(&expected) {
                    assert_eq!(range.is_some(), score.is_some(), "{shape} {moves}");
                    if let (Some(r), Some(s)) = (range, score) {
                        assert!(r.contains(*s), "{shape} {moves}: {r:?} {s}");
                    }
                }
            }
            let exact: Vec<Option<i32>> = full
                .columns
                .iter()
                .map(|r| r.and_then(|r| r.exact()))
                .collect();
            assert_eq!(exact, expected, "{shape} {moves}");
            let best = full.best().unwrap();
            assert!(best.proven);
            assert_eq!(
                Some(best.column),
                solver.best_move(&p).ok(),
                "{shape} {moves}"
            );
            checked += 1;
        }
    }
}

#[test]
fn games_over_are_refused() {
    let shape = Shape::new(10, 4).unwrap();
    let mut solver = wide::Solver::new(shape, 1).unwrap();
    let won = wide::Position::parse(&shape, "1a1a1a1").unwrap();
    assert_eq!(solver.solve(&won), Err(score4::SolveError::AlreadyWon(7)));
    assert_eq!(
        wide::Position::parse(&shape, "1a1a1a1a"),
        Err(score4::ParseError::AfterGameOver {
            index: 8,
            won_at: 7
        })
    );
    assert_eq!(
        wide::Position::parse(&shape, "b"),
        Err(score4::ParseError::ColumnOutOfRange {
            index: 1,
            column: 11,
            width: 10
        })
    );
    assert!(matches!(
        wide::Position::parse(&shape, "10"),
        Err(score4::ParseError::UnknownCharacter { index: 2, ch: '0' })
    ));
}

/// The published results of the smallest sizes past 64 bits or nine
/// columns, as `fixtures/board-sizes.txt` lists them: minutes each.
#[test]
#[ignore]
fn small_wide_boards_match_the_published_results() {
    for name in ["10x4", "11x4"] {
        let shape: Shape = name.parse().unwrap();
        let expected = score4_testkit::fixtures::board_size_result(name).expect(name);
        let mut solver = wide::Solver::new(shape, 256).unwrap();
        assert_eq!(solver.solve(&wide::Position::new()), Ok(expected), "{name}");
        assert!(expected.abs() <= score::best(shape.cells()));
    }
}

/// A journal past 64 bits: bounds kept while solving positions of 13x4
/// (65-bit keys) serve a new solver (a new process) from the journal,
/// which gives the same scores for a fraction of the search. Both edge
/// columns are full in every position, so that every key kept, the
/// mirror image's too, uses the 65th bit.
#[test]
fn journals_past_64_bits_keep_whole_keys() {
    let shape = Shape::new(13, 4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    let mut rng = Rng::new(0x10_0A4);
    let mut plain = wide::Solver::new(shape, 4).unwrap();
    let mut positions = Vec::new();
    while positions.len() < 16 {
        let mut p = wide::Position::parse(&shape, "1dd11dd1").unwrap();
        let mut moves = String::from("1dd11dd1");
        let empty = 22 + rng.index(5);
        while 52 - (p.moves_played() as usize) > empty {
            let open: Vec<usize> = (1..12)
                .filter(|&c| p.can_play(&shape, c) && !p.is_winning_move(&shape, c))
                .collect();
            // No move left but a win: a game to draw again.
            let Some(&col) = open.get(rng.index(open.len().max(1))) else {
                break;
            };
            p.play(&shape, col);
            moves.push(notation::character(col + 1).unwrap());
        }
        if 52 - (p.moves_played() as usize) > empty {
            continue;
        }
        if p.ending(&shape).is_some() || p.can_win_next(&shape) {
            continue;
        }
        plain.clear_table();
        positions.push((p, plain.solve(&p).unwrap(), moves));
    }
    let mut first = wide::Solver::new(shape, 4).unwrap();
    first.keep_journal(&path, 1_000).unwrap();
    for (p, score, moves) in &positions {
        assert_eq!(first.solve(p), Ok(*score), "{moves}");
    }
    let cold = first.nodes();
    assert_eq!(first.journal_error().map(|e| e.to_string()), None);
    let text = std::fs::read_to_string(&path).unwrap();
    let keys: Vec<u128> = text
        .lines()
        .skip(1)
        .map(|line| u128::from_str_radix(line.split(' ').next().unwrap(), 16).unwrap())
        .collect();
    assert!(keys.len() > 20, "{} bounds kept", keys.len());
    assert!(
        keys.iter().all(|key| key >> 64 == 1),
        "a key lost its 65th bit"
    );
    let mut again = wide::Solver::new(shape, 4).unwrap();
    let loaded = again.keep_journal(&path, 1_000).unwrap();
    assert_eq!((loaded.bounds, loaded.damaged), (keys.len(), 0));
    for (p, score, moves) in positions.iter().rev() {
        assert_eq!(again.solve(p), Ok(*score), "{moves}");
    }
    assert!(again.nodes() * 4 < cold, "{} against {cold}", again.nodes());
}

/// The near table comes with the boards of at most nine columns and
/// 64 bits, whichever search solves them: one beside a table of 64 MiB,
/// and one more for each thread. Wider boards and those past 64 bits get
/// the table alone, with any number of threads (there a near table cost
/// time or added positions).
#[test]
fn near_tables_only_up_to_nine_columns_and_64_bits() {
    const MB: usize = 64;
    let near = score4::solver::NEAR_TABLE_MB << 20;
    let with_near =
        |threads: usize| (MB << 20) + near * (1 + if threads > 1 { threads } else { 0 });
    for size in [
        "7x6", "9x5", "10x4", "11x4", "12x4", "10x6", "8x8", "16x7", "8x15",
    ] {
        let shape: Shape = size.parse().unwrap();
        let bits = shape.layout_bits();
        let alone = if bits <= 64 {
            MB << 20
        } else {
            wide::table::Table::with_mb(MB, bits).unwrap().bytes()
        };
        for mut solver in [
            wide::Solver::new(shape, MB).unwrap(),
            wide::Solver::as_data(shape, MB).unwrap(),
        ] {
            for threads in [1, 2] {
                solver.set_threads(threads);
                let expected = if shape.width() <= 9 && bits <= 64 {
                    with_near(threads)
                } else {
                    alone
                };
                assert_eq!(solver.table_bytes(), expected, "{size}, {threads} threads");
            }
        }
    }
}
