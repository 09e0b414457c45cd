//! The solver's journal: solves stopped part way and started again by new
//! solvers from the journal give the plain solver's scores, bounds kept
//! from one root serve every other, journals of one board merge by
//! appending, and damaged lines are never trusted.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use score4::solver::{JournalError, JournalLoaded};
use score4::{BoardSize, Position, Solver, Stopped};
use score4_testkit::positions::random_position;
use score4_testkit::Rng;

/// A solver keeping the journal at `path` (searches of at least 2,000
/// positions), and what it read from it.
fn with_journal<const W: usize, const H: usize>(path: &Path) -> (Solver<W, H>, JournalLoaded) {
    let mut solver = Solver::<W, H>::with_table_mb(4);
    let loaded = solver.keep_journal(path, 2_000).unwrap();
    (solver, loaded)
}

/// Random positions of the `W` x `H` board, `first` to `first + 7` moves
/// in, with the plain solver's scores.
fn sample<const W: usize, const H: usize>(
    seed: u64,
    n: usize,
    first: u32,
) -> Vec<(Position<W, H>, i32)> {
    let mut rng = Rng::new(seed);
    let mut plain = Solver::<W, H>::with_table_mb(4);
    (0..n)
        .map(|_| {
            let len = first + rng.below(8) as u32;
            let p = random_position::<W, H>(&mut rng, len);
            plain.clear_table();
            (p, plain.solve(&p))
        })
        .collect()
}

/// Solves `positions` with `solver`, each to the plain score, and with
/// `clear` clears the table after each (a root then finds only what the
/// journal gives back); the positions it took.
fn solve_all<'a, const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    positions: impl IntoIterator<Item = &'a (Position<W, H>, i32)>,
    clear: bool,
) -> u64 {
    solver.reset_nodes();
    for (p, score) in positions {
        assert_eq!(solver.solve(p), *score, "{p:?}");
        if clear {
            solver.clear_table();
        }
    }
    solver.nodes()
}

/// Each position is solved by a new solver (a new process, after a kill)
/// from the journal, stopped at a deadline that doubles from 0.1 ms until
/// a solve finishes: the score is the plain one, and the journal only
/// grows. On a compiled size and on one that runs as data (its own search
/// over the same 64-bit table and journal). The 7x6 positions start at
/// move 10: the deadline is a timer thread, which a busy machine wakes
/// late, and from move 14 so few solves lasted long enough that a run
/// beside other work stopped only 7 (from move 10, 32 to 44 in five runs
/// beside other work, for the same few seconds).
#[test]
fn solves_stopped_and_started_again_give_the_plain_scores() {
    assert!(BoardSize::of::<7, 6>().is_compiled());
    stopped_and_started::<7, 6>(0x10_0A3, 10);
    assert!(!BoardSize::of::<7, 5>().is_compiled());
    stopped_and_started::<7, 5>(0x10_0A1, 4);
}

fn stopped_and_started<const W: usize, const H: usize>(seed: u64, first: u32) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    let mut stops = 0;
    let mut last = 0;
    for (i, (p, score)) in sample::<W, H>(seed, 24, first).into_iter().enumerate() {
        let mut wait = Duration::from_micros(100);
        let found = loop {
            let (mut solver, loaded) = with_journal::<W, H>(&path);
            assert_eq!(loaded.damaged, 0);
            assert!(
                loaded.bounds >= last,
                "bounds lost: {} after {last}",
                loaded.bounds
            );
            last = loaded.bounds;
            // Two threads for every third position: helpers keep bounds too.
            solver.set_threads(1 + usize::from(i % 3 == 0));
            match solver.solve_until(&p, Some(Instant::now() + wait)) {
                Ok(found) => break found,
                Err(Stopped) => {
                    stops += 1;
                    wait *= 2;
                }
            }
        };
        assert_eq!(found, score, "{p:?}");
    }
    assert!(stops > 10, "{W}x{H}: only {stops} solves were stopped");
    assert!(last > 100, "{W}x{H}: only {last} bounds kept");
}

/// Bounds kept while solving some positions are sound for every other: a
/// new solver from the journal solves every position again with the plain
/// scores, and far more cheaply.
#[test]
fn kept_bounds_serve_every_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    let positions = sample::<6, 5>(0x10_0A2, 60, 4);
    let (mut first, _) = with_journal::<6, 5>(&path);
    let cold = solve_all(&mut first, &positions, false);
    let (mut again, loaded) = with_journal::<6, 5>(&path);
    assert!(loaded.bounds > 0 && loaded.damaged == 0, "{loaded:?}");
    // In the other order, so that no root comes where it came before; a
    // cleared table gets the journal's bounds back.
    let warm = solve_all(&mut again, positions.iter().rev(), true);
    assert!(warm * 4 < cold, "{warm} against {cold}");
}

/// Every question's answer is kept, however few positions it took: with
/// a journal that keeps no subtree by its cost, a solve still leaves each
/// root's proven bounds, and a solver from that journal answers the same
/// roots from them with hardly a search, where without them it would
/// search again as much as the first did.
#[test]
fn every_answer_is_kept_whatever_it_cost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    let positions = sample::<6, 5>(0x10_0A5, 30, 6);
    let never = u64::MAX / 2;
    let mut first = Solver::<6, 5>::with_table_mb(4);
    assert_eq!(first.keep_journal(&path, never).unwrap().bounds, 0);
    let cold = solve_all(&mut first, &positions, true);
    drop(first);
    let mut again = Solver::<6, 5>::with_table_mb(4);
    let loaded = again.keep_journal(&path, never).unwrap();
    assert_eq!(loaded.damaged, 0);
    assert!(loaded.positions >= positions.len() / 2, "{loaded:?}");
    let warm = solve_all(&mut again, positions.iter().rev(), true);
    assert!(warm * 20 < cold, "{warm} against {cold}");
}

/// Journals of one board kept by separate solves (processes on two
/// cores, each with its own roots) merge by appending one's lines to the
/// other's: every line is read back, and a solver from the merged journal
/// solves the roots of both with the plain scores, far more cheaply than
/// either took.
#[test]
fn journals_of_one_board_merge_by_appending() {
    let dir = tempfile::tempdir().unwrap();
    let positions = sample::<6, 5>(0x10_0A4, 40, 4);
    let (ours, theirs) = positions.split_at(positions.len() / 2);
    let mut cold = 0;
    let mut kept = Vec::new();
    for (name, part) in [("ours", ours), ("theirs", theirs)] {
        let path = dir.path().join(name);
        let (mut solver, _) = with_journal::<6, 5>(&path);
        cold += solve_all(&mut solver, part, false);
        drop(solver);
        kept.push((path.clone(), fs::read_to_string(&path).unwrap()));
    }
    let lines = |text: &str| text.lines().count() - 1;
    let ((ours_path, ours_text), (_, theirs_text)) = (&kept[0], &kept[1]);
    assert!(lines(ours_text) > 10 && lines(theirs_text) > 10);
    let merged: String = ours_text
        .lines()
        .chain(theirs_text.lines().skip(1))
        .map(|line| format!("{line}\n"))
        .collect();
    fs::write(ours_path, merged).unwrap();
    let (mut solver, loaded) = with_journal::<6, 5>(ours_path);
    assert_eq!(loaded.damaged, 0);
    assert_eq!(loaded.bounds, lines(ours_text) + lines(theirs_text));
    let warm = solve_all(&mut solver, theirs.iter().chain(ours).rev(), true);
    assert!(warm * 4 < cold, "{warm} against {cold}");
}

/// Lines cut short, edited or not text are counted and skipped, the
/// rest still used; a journal of another board is refused.
#[test]
fn damaged_lines_are_skipped_and_other_boards_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal");
    let empty = Position::<6, 5>::new();
    let (mut solver, _) = with_journal::<6, 5>(&path);
    let score = solver.solve(&empty);
    drop(solver);
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 20, "{} lines", lines.len());
    let mut damaged = String::new();
    for (i, line) in lines.iter().enumerate() {
        let line = match i {
            // A bound made one wider, or narrower: the checksum fails.
            3 => line.replacen(" -", " -1", 1),
            4 => line.replacen(' ', "  ", 1),
            // Not UTF-8.
            5 => format!("{line}\u{fffd}"),
            _ => line.to_string(),
        };
        damaged.push_str(&line);
        damaged.push('\n');
    }
    let mut bytes = damaged.into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    // A block zeroed by a crash: one line of a mebibyte.
    bytes.extend_from_slice(&[0; 1 << 20]);
    bytes.push(b'\n');
    // The last line cut short, as by a crash of the machine.
    let cut = lines[10];
    bytes.extend_from_slice(&cut.as_bytes()[..cut.len() - 3]);
    fs::write(&path, &bytes).unwrap();
    let (mut solver, loaded) = with_journal::<6, 5>(&path);
    assert_eq!(loaded.damaged, 6, "{loaded:?}");
    assert_eq!(loaded.bounds, lines.len() - 1 - 3);
    assert_eq!(solver.solve(&empty), score);
    // The cut line was ended: what is written next is whole and read back.
    let (_, reread) = with_journal::<6, 5>(&path);
    assert_eq!(reread.damaged, 6);
    assert!(reread.bounds >= loaded.bounds);

    let mut other = Solver::<5, 6>::with_table_mb(4);
    match other.keep_journal(&path, 2_000) {
        Err(JournalError::OtherBoard {
            width: 5,
            height: 6,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert!(other.keep_journal(dir.path(), 2_000).is_err());
    // A file of one endless line has no header: refused, not read whole.
    let zeros = dir.path().join("zeros");
    fs::write(&zeros, vec![0u8; 4 << 20]).unwrap();
    assert!(matches!(
        Solver::<6, 5>::with_table_mb(4).keep_journal(&zeros, 2_000),
        Err(JournalError::OtherBoard { .. })
    ));
}
