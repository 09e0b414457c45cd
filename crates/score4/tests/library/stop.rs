//! Stopping searches: by a handle from another thread and at a deadline,
//! and the table staying sound after a search gave up part way.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use score4::fixture::{self, Labelled};
use score4::{Position, Solver, Stopped};

fn set(name: &str) -> Vec<Labelled> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/solver")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let set = fixture::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!set.is_empty(), "{} is empty", path.display());
    set
}

/// A solver that searches everything, so that every position takes work.
fn searching(threads: usize) -> Solver<7, 6> {
    let mut solver = Solver::<7, 6>::with_table_mb(16);
    solver.drop_book();
    solver.set_threads(threads);
    solver
}

/// The empty board takes seconds of search: a stop from another thread
/// ends it, with one thread and with two.
#[test]
fn a_handle_stops_a_long_search_from_another_thread() {
    for threads in [1, 2] {
        let mut solver = searching(threads);
        let handle = solver.stop_handle();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            handle.stop();
        });
        let empty = Position::<7, 6>::new();
        assert_eq!(solver.solve_until(&empty, None), Err(Stopped));
        assert!(solver.nodes() > 0, "it searched before it stopped");
        let handle = solver.stop_handle();
        assert_eq!(
            handle.positions(),
            solver.nodes(),
            "{threads} threads, stopped"
        );
        stopper.join().unwrap();
        // Still stopped until resumed; plain searches ignore the handle.
        assert_eq!(solver.solve_weak_until(&empty, None), Err(Stopped));
        let p = set("ply23-32.txt")[0].position;
        let plain = solver.solve(&p);
        solver.stop_handle().resume();
        assert_eq!(solver.solve_until(&p, None), Ok(plain));
    }
}

/// A stoppable strong solve shows, as it goes, the range it has proven and
/// the positions searched: every range read from another thread holds the
/// score, each within the last, and none is left once the solve ends.
#[test]
fn a_long_solve_shows_what_it_has_proven_as_it_goes() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let p: Position<7, 6> = "2474223".parse().unwrap();
    let score = searching(1).solve(&p);
    for threads in [1, 2] {
        let mut solver = searching(threads);
        let handle = solver.stop_handle();
        assert_eq!(handle.proven(), None);
        let before = handle.positions();
        let done = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (handle, done) = (handle.clone(), done.clone());
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !done.load(Ordering::SeqCst) {
                    if let Some(now) = handle.proven() {
                        if seen.last() != Some(&now) {
                            seen.push(now);
                        }
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
                seen
            })
        };
        assert_eq!(solver.solve_until(&p, None), Ok(score));
        done.store(true, Ordering::SeqCst);
        let seen = watcher.join().unwrap();
        assert!(!seen.is_empty(), "{threads} threads: nothing shown");
        for (i, r) in seen.iter().enumerate() {
            assert!(r.lower <= score && score <= r.upper, "{r:?} misses {score}");
            assert!(r.lower <= r.asking && r.asking < r.upper, "{r:?}");
            if i > 0 {
                let last = seen[i - 1];
                assert!(
                    last.lower <= r.lower && r.upper <= last.upper,
                    "{last:?} then {r:?}"
                );
            }
        }
        // Counted in steps as it went, the running count is exact once the
        // solve is over: a progress report read from it never runs ahead of
        // the count the solver gives at the end.
        assert_eq!(
            handle.positions() - before,
            solver.nodes(),
            "{threads} threads"
        );
        assert_eq!(handle.proven(), None, "left after the solve");
    }
}

/// A deadline that has passed stops every search, but positions that need
/// none (finished games, immediate wins, book positions) still answer.
#[test]
fn a_passed_deadline_stops_searches_but_not_answers_without_search() {
    let mut solver = searching(1);
    let past = Some(Instant::now());
    let empty = Position::<7, 6>::new();
    assert_eq!(solver.solve_until(&empty, past), Err(Stopped));
    assert_eq!(solver.best_move_until(&empty, past), Err(Stopped));
    let win: Position = "445566".parse().unwrap();
    assert_eq!(solver.solve_until(&win, past), Ok(solver.solve(&win)));
    let won: Position = "1212121".parse().unwrap();
    assert_eq!(solver.solve_until(&won, past), Ok(-18));
    let mut booked = Solver::<7, 6>::new();
    assert_eq!(booked.solve_until(&empty, past), Ok(1));
}

/// Without a deadline or a stop, the stoppable searches are the plain ones:
/// the same answers after the same number of positions.
#[test]
fn unstopped_searches_answer_as_the_plain_ones_with_the_same_nodes() {
    for labelled in set("ply15-22.txt").iter().take(40) {
        let p = &labelled.position;
        let far = Some(Instant::now() + Duration::from_secs(3600));
        let (mut plain, mut stoppable) = (searching(1), searching(1));
        let score = plain.solve(p);
        assert_eq!(score, labelled.score);
        assert_eq!(stoppable.solve_until(p, far), Ok(score));
        assert_eq!(stoppable.nodes(), plain.nodes(), "{}", labelled.moves);
        plain.reset_nodes();
        stoppable.reset_nodes();
        let scores = plain.analyze(p);
        let until = stoppable.analyze_until(p, None);
        assert_eq!(until.map(|s| s.map(Result::unwrap)), scores);
        assert_eq!(stoppable.nodes(), plain.nodes());
        assert_eq!(stoppable.best_move_until(p, None), Ok(plain.best_move(p)));
        assert_eq!(stoppable.solve_weak_until(p, None), Ok(score.signum()));
    }
}

/// Searches cut off at many moments leave only proven bounds behind: the
/// same solver, its table full of what stopped searches stored, then
/// solves every position right. Columns of an analysis cut off by its
/// deadline are `Err(Stopped)`, the others exact.
#[test]
fn stopped_searches_leave_the_table_sound() {
    let mut solver = searching(1);
    let positions: Vec<Labelled> = set("ply9-14.txt")
        .into_iter()
        .chain(set("ply15-22.txt"))
        .step_by(10)
        .collect();
    let mut stopped = 0;
    for (i, labelled) in positions.iter().enumerate() {
        let deadline = Instant::now() + Duration::from_micros(50 * (i as u64 % 20));
        match solver.solve_until(&labelled.position, Some(deadline)) {
            Ok(score) => assert_eq!(score, labelled.score, "{}", labelled.moves),
            Err(Stopped) => stopped += 1,
        }
        let deadline = Instant::now() + Duration::from_micros(100 * (i as u64 % 10));
        let exact = searching(1).analyze(&labelled.position);
        for (col, score) in solver
            .analyze_until(&labelled.position, Some(deadline))
            .into_iter()
            .enumerate()
        {
            match score {
                Some(Err(Stopped)) => assert!(exact[col].is_some()),
                other => assert_eq!(other.map(Result::unwrap), exact[col]),
            }
        }
    }
    assert!(stopped > 0, "no search was cut off: the test tests nothing");
    for labelled in &positions {
        assert_eq!(
            solver.solve(&labelled.position),
            labelled.score,
            "{}",
            labelled.moves
        );
    }
}
