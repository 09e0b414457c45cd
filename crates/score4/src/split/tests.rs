use super::*;

use std::fs;

use crate::position::{random_games, Position as Typed};
use crate::rng::Rng;
use crate::Solver as TypedSolver;

/// A solver for split searches on the `w` x `h` board, with a small table.
fn solver(w: usize, h: usize) -> Solver {
    Solver::new(Shape::any(w, h), 8).unwrap()
}

/// A split solve of `moves` (with a guessed root score, if any), with a
/// fresh solver and record file, and the jobs it searched.
fn split_solve<const W: usize, const H: usize>(
    moves: &str,
    depth: u32,
    guess: Option<i32>,
) -> (i32, Vec<Job>) {
    let dir = tempfile::tempdir().unwrap();
    let mut split = Split::new(Shape::any(W, H), moves, depth).unwrap();
    if let Some(guess) = guess {
        split.set_guess(guess).unwrap();
    }
    let (mut recorder, loaded) = split.open(&dir.path().join("records")).unwrap();
    assert_eq!(loaded, Loaded::default());
    let mut jobs = Vec::new();
    let score = split
        .solve_observed(&mut solver(W, H), &mut recorder, |job, _, _| {
            jobs.push(job.clone())
        })
        .unwrap();
    (score, jobs)
}

fn agrees_with_direct_solves<const W: usize, const H: usize>(seed: u64) {
    let mut direct = TypedSolver::<W, H>::with_table_mb(8);
    for (i, (moves, p)) in random_games::<W, H>(40, 0..14, seed)
        .into_iter()
        .enumerate()
    {
        let depth = i as u32 % 4;
        let (score, _) = split_solve::<W, H>(&moves, depth, None);
        assert_eq!(score, direct.solve(&p), "{moves:?} split at depth {depth}");
    }
}

#[test]
fn split_solves_agree_with_direct_solves() {
    agrees_with_direct_solves::<5, 4>(1);
    agrees_with_direct_solves::<6, 4>(2);
    agrees_with_direct_solves::<4, 5>(3);
}

/// Rounds as machines share them: every job a round lists is searched
/// by one of two "machines", each with its own solver and record file;
/// the next round reads both files.
#[test]
fn rounds_shared_over_two_record_files_agree_with_direct_solves() {
    let mut direct = TypedSolver::<6, 4>::with_table_mb(8);
    for (moves, p) in random_games::<6, 4>(12, 0..10, 4) {
        let dir = tempfile::tempdir().unwrap();
        let files = [dir.path().join("a"), dir.path().join("b")];
        let mut solvers = [solver(6, 4), solver(6, 4)];
        let mut rounds = 0;
        let score = loop {
            let mut split = Split::new(Shape::any(6, 4), &moves, 2).unwrap();
            for file in files.iter().filter(|f| f.exists()) {
                split.load(file).unwrap();
            }
            match split.plan() {
                Plan::Score(score) => break score,
                Plan::Jobs(jobs) => {
                    assert!(!jobs.is_empty());
                    for (i, job) in jobs.iter().enumerate() {
                        let (mut recorder, _) = split.open(&files[i % 2]).unwrap();
                        // Each job line reads back as the same job.
                        assert_eq!(&split.job(&job.to_string()).unwrap(), job);
                        split.run(job, &mut solvers[i % 2], &mut recorder).unwrap();
                    }
                }
            }
            rounds += 1;
            assert!(rounds < 64, "no end");
        };
        assert_eq!(score, direct.solve(&p), "{moves:?}");
    }
}

#[test]
fn a_resumed_solve_searches_nothing_it_recorded() {
    let moves = "33";
    let (score, _) = split_solve::<6, 4>(moves, 2, None);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records");
    let mut first = Split::new(Shape::any(6, 4), moves, 2).unwrap();
    let (mut recorder, _) = first.open(&path).unwrap();
    assert_eq!(
        first.solve(&mut solver(6, 4), &mut recorder).unwrap(),
        score
    );
    let written = fs::read_to_string(&path).unwrap();
    let records = written.lines().count() - 1;
    assert!(records > 0);

    let mut again = Split::new(Shape::any(6, 4), moves, 2).unwrap();
    let (mut recorder, loaded) = again.open(&path).unwrap();
    assert_eq!(
        loaded,
        Loaded {
            records,
            damaged: 0
        }
    );
    let mut solver = solver(6, 4);
    assert_eq!(again.solve(&mut solver, &mut recorder).unwrap(), score);
    assert_eq!(solver.nodes(), 0);
    assert_eq!(fs::read_to_string(&path).unwrap(), written);
}

#[test]
fn damaged_lines_are_skipped_never_trusted() {
    let moves = "33";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records");
    let mut split = Split::new(Shape::any(6, 4), moves, 2).unwrap();
    let (mut recorder, _) = split.open(&path).unwrap();
    let score = split.solve(&mut solver(6, 4), &mut recorder).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let records = lines.len() - 1;
    assert!(records >= 3, "{text}");
    // A bound changed (its checksum no longer holds), a line cut short as
    // a kill leaves it, bytes that are not text, and a block zeroed by a
    // crash (one line of a mebibyte, read without being kept).
    lines[1] = if lines[1].contains("<=") {
        lines[1].replacen("<=", ">=", 1)
    } else {
        lines[1].replacen(">=", "<=", 1)
    };
    let last = lines.pop().unwrap();
    let mut damaged = lines.join("\n").into_bytes();
    damaged.extend_from_slice(b"\n\xff\xfe\n");
    damaged.extend_from_slice(&[0; 1 << 20]);
    damaged.push(b'\n');
    damaged.extend_from_slice(&last.as_bytes()[..last.len() / 2]);
    fs::write(&path, &damaged).unwrap();

    let mut again = Split::new(Shape::any(6, 4), moves, 2).unwrap();
    let (mut recorder, loaded) = again.open(&path).unwrap();
    assert_eq!(
        loaded,
        Loaded {
            records: records - 2,
            damaged: 4
        }
    );
    assert_eq!(
        again.solve(&mut solver(6, 4), &mut recorder).unwrap(),
        score
    );
    // The cut line was ended before the next record was appended.
    let mut third = Split::new(Shape::any(6, 4), moves, 2).unwrap();
    let loaded = third.load(&path).unwrap();
    assert_eq!(loaded.damaged, 4);
    assert!(loaded.records >= records - 1);
}

#[test]
fn a_file_of_one_endless_line_is_no_record_file() {
    // Its first line, the header, is cut off at the cap: no split's.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zeros");
    fs::write(&path, vec![0u8; 4 << 20]).unwrap();
    let mut split = Split::new(Shape::any(6, 4), "33", 2).unwrap();
    assert!(matches!(
        split.load(&path),
        Err(SplitError::OtherSplit { .. })
    ));
    if Path::new("/dev/zero").exists() {
        assert!(matches!(
            split.load(Path::new("/dev/zero")),
            Err(SplitError::OtherSplit { .. })
        ));
    }
}

#[test]
fn another_splits_records_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records");
    let mut split = Split::new(Shape::any(6, 4), "33", 2).unwrap();
    split.open(&path).unwrap();
    for (moves, depth) in [("33", 3), ("34", 2), ("", 2)] {
        let mut other = Split::new(Shape::any(6, 4), moves, depth).unwrap();
        assert!(matches!(
            other.open(&path),
            Err(SplitError::OtherSplit { .. })
        ));
    }
    let mut wide = Split::new(Shape::any(7, 4), "33", 2).unwrap();
    assert!(matches!(
        wide.load(&path),
        Err(SplitError::OtherSplit { .. })
    ));
}

#[test]
fn jobs_and_roots_are_checked() {
    let split = Split::new(Shape::any(6, 4), "33", 1).unwrap();
    assert_eq!(
        split.job("334 -3").unwrap(),
        Job {
            moves: "334".into(),
            alpha: -3
        }
    );
    for bad in ["", "334", "334 x", "434 1", "33 1 2", "3349 1"] {
        assert!(split.job(bad).is_err(), "{bad:?}");
    }
    assert!(matches!(
        Split::new(Shape::any(6, 4), "1212121", 1),
        Err(SplitError::Finished(_))
    ));
    assert!(matches!(
        Split::new(Shape::any(6, 4), "7", 1),
        Err(SplitError::Root(_))
    ));
}

#[test]
fn any_guess_gives_the_direct_score_and_the_right_one_two_windows() {
    let mut direct = TypedSolver::<6, 4>::with_table_mb(8);
    for (i, (moves, p)) in random_games::<6, 4>(12, 0..10, 5).into_iter().enumerate() {
        let score = direct.solve(&p);
        let depth = 1 + i as u32 % 3;
        let (min, max) = score_range(&Shape::any(6, 4), p.moves_played() as i32);
        for guess in (score - 3..=score + 3).filter(|g| (min..=max).contains(g)) {
            let (found, jobs) = split_solve::<6, 4>(&moves, depth, Some(guess));
            assert_eq!(found, score, "{moves:?} depth {depth} guess {guess}");
            if guess == score {
                // The root's windows, as the searches depth moves down see them.
                let leaf = |a: i32| if depth.is_multiple_of(2) { a } else { -a - 1 };
                let windows = [leaf(score - 1), leaf(score)];
                for job in &jobs {
                    assert!(windows.contains(&job.alpha), "{moves:?}: {job}");
                }
            }
        }
    }
    let mut split = Split::new(Shape::any(6, 4), "", 2).unwrap();
    assert!(matches!(split.set_guess(12), Err(SplitError::Guess { .. })));
    assert!(matches!(
        split.set_guess(-13),
        Err(SplitError::Guess { .. })
    ));
}

#[test]
fn mirror_images_and_transpositions_are_searched_once() {
    for depth in 2..=4 {
        let (score, jobs) = split_solve::<6, 4>("", depth, None);
        assert_eq!(score, TypedSolver::<6, 4>::new().solve(&Typed::new()));
        let mut seen = HashSet::new();
        for job in &jobs {
            let p = Typed::<6, 4>::parse(&job.moves).unwrap();
            let either = p.key().min(p.mirror_key());
            assert!(seen.insert((either, job.alpha)), "{job} again");
        }
    }
}

/// Records of the mirror images settle a solve as well as the records
/// themselves: the moves they settle are taken first, whatever the order
/// the solve would have tried.
#[test]
fn a_solve_from_mirrored_records_searches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records");
    let moves = "";
    let mut split = Split::new(Shape::any(7, 4), moves, 3).unwrap();
    let (mut recorder, _) = split.open(&path).unwrap();
    let score = split.solve(&mut solver(7, 4), &mut recorder).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let mut mirrored = format!("{}\n", split.header());
    for line in text.lines().skip(1) {
        let (_, bound) = split.read_record(line).expect("a record of this split");
        let flipped: String = line
            .bytes()
            .take_while(|&c| c != b' ')
            .map(|c| char::from(b'1' + b'7' - c))
            .collect();
        let job = Job {
            moves: flipped,
            alpha: 0,
        };
        mirrored.push_str(&split.record_line(&job, bound));
    }
    assert_ne!(mirrored, text);
    let other = dir.path().join("mirrored");
    fs::write(&other, &mirrored).unwrap();
    let mut again = Split::new(Shape::any(7, 4), moves, 3).unwrap();
    let (mut recorder, loaded) = again.open(&other).unwrap();
    assert_eq!(loaded.damaged, 0);
    let mut solver = solver(7, 4);
    assert_eq!(again.solve(&mut solver, &mut recorder).unwrap(), score);
    assert_eq!(solver.nodes(), 0);
}

/// A window the records settle through a position's last move in the
/// search order is answered without searching its first moves.
#[test]
fn moves_the_records_settle_come_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut split = Split::new(Shape::any(6, 4), "", 1).unwrap();
    let (mut recorder, _) = split.open(&dir.path().join("records")).unwrap();
    // The edge column is tried last; its exact score, as a record.
    let edge = Typed::<6, 4>::parse("1").unwrap();
    let score = TypedSolver::<6, 4>::new().solve(&edge);
    let job = Job {
        moves: "1".into(),
        alpha: 0,
    };
    split.note(&job, Bound::AtMost(score)).unwrap();
    let mut solver = solver(6, 4);
    let mut observe = |_: &Job, _: Bound, _: u64| {};
    let mut leaves = Leaves::Search(&mut solver, &mut recorder, &mut observe);
    // Above -score - 1: yes, by playing in the edge column.
    let root = Position::new();
    let above = split.above(&root, -score - 1, 1, &mut String::new(), &mut leaves);
    assert_eq!(above.unwrap(), Some(true));
    assert_eq!(solver.nodes(), 0);
}

/// Boards past 64 bits and nine columns: the split's moves name columns
/// past 9 by letters, and its keys are 128 bits.
#[test]
fn split_solves_past_64_bits_agree_with_direct_solves() {
    for (w, h, seed) in [(10, 4, 6), (4, 17, 7), (11, 5, 8)] {
        let shape = Shape::any(w, h);
        let mut direct = Solver::as_data(shape, 8).unwrap();
        let mut rng = Rng::new(seed);
        for i in 0..10 {
            // A random game still on, 14 cells left.
            let (mut p, mut moves) = (Position::new(), String::new());
            while (p.moves_played() as usize) < shape.cells() - 14 {
                let open: Vec<usize> = (0..w)
                    .filter(|&c| p.can_play(&shape, c) && !p.is_winning_move(&shape, c))
                    .collect();
                if open.is_empty() {
                    break;
                }
                let col = open[rng.index(open.len())];
                p.play(&shape, col);
                moves.push(notation::character(col + 1).unwrap());
            }
            if p.check_in_play(&shape).is_err() {
                continue;
            }
            let depth = i % 4;
            let dir = tempfile::tempdir().unwrap();
            let mut split = Split::new(shape, &moves, depth).unwrap();
            let (mut recorder, _) = split.open(&dir.path().join("records")).unwrap();
            let score = split.solve(&mut solver(w, h), &mut recorder).unwrap();
            assert_eq!(score, direct.solve(&p).unwrap(), "{w}x{h} {moves}");
        }
    }
}
