//! The solver against labelled fixtures and against a plain, unpruned
//! negamax written here from the rules alone. The tests on c4's published
//! sets run when `SCORE4_C4_SETS` names their folder.

use score4::fixture::Labelled;
use score4::{score, Position, Solver};
use score4_testkit::fixtures::{ours, published};
use score4_testkit::positions::{for_each_position, random_position};
use score4_testkit::reference::{agree, Outcomes, Reference};
use score4_testkit::Rng;

/// Table size for tests: large enough for every fixture set used here,
/// small enough that parallel tests stay light.
const TABLE_MB: usize = 64;

/// Solves every position strongly and weakly and compares with the labels.
fn check_set(set: &[Labelled]) {
    assert!(!set.is_empty());
    let mut solver = Solver::<7, 6>::with_table_mb(TABLE_MB);
    let mut wrong = Vec::new();
    for Labelled {
        moves,
        position: p,
        score: expected,
        ..
    } in set
    {
        let strong = solver.solve(p);
        let weak = solver.solve_weak(p);
        if strong != *expected || weak != expected.signum() {
            wrong.push(format!(
                "{moves}: expected {expected}, got {strong} (weak {weak})"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn fixtures_ply9_14() {
    check_set(&ours("ply9-14.txt"));
}

#[test]
fn fixtures_ply15_22() {
    check_set(&ours("ply15-22.txt"));
}

#[test]
fn fixtures_ply23_32() {
    check_set(&ours("ply23-32.txt"));
}

#[test]
fn fixtures_ply33_40() {
    check_set(&ours("ply33-40.txt"));
}

#[test]
fn c4_endgame_l1() {
    if let Some(set) = published("c4_endgame_l1", "endgame_L1.txt") {
        check_set(&set);
    }
}

#[test]
fn c4_midgame_l1() {
    if let Some(set) = published("c4_midgame_l1", "midgame_L1.txt") {
        check_set(&set);
    }
}

#[test]
fn c4_midgame_l2() {
    if let Some(set) = published("c4_midgame_l2", "midgame_L2.txt") {
        check_set(&set);
    }
}

#[test]
fn c4_opening_l1() {
    if let Some(set) = published("c4_opening_l1", "opening_L1.txt") {
        check_set(&set);
    }
}

/// A table large enough to come with the near table (positions near the
/// end kept apart) gives the same answers, with one thread and with two.
#[test]
fn large_tables_agree_with_the_labels() {
    let mut solver = Solver::<7, 6>::with_table_mb(64);
    assert_eq!(
        solver.table_bytes(),
        (64 + score4::solver::NEAR_TABLE_MB) << 20
    );
    let mut set = ours("ply9-14.txt");
    set.truncate(20);
    set.extend(ours("ply23-32.txt").into_iter().take(40));
    if let Some(published) = published("large_tables_agree_with_the_labels", "opening_L1.txt") {
        set.extend(published.into_iter().take(100));
    }
    for threads in [1, 2] {
        solver.set_threads(threads);
        // Two threads come with a near table each.
        let own = if threads > 1 { threads } else { 0 };
        assert_eq!(
            solver.table_bytes(),
            (64 + (1 + own) * score4::solver::NEAR_TABLE_MB) << 20
        );
        for Labelled {
            moves,
            position: p,
            score: expected,
            ..
        } in &set
        {
            assert_eq!(solver.solve(p), *expected, "{moves}, {threads} threads");
            assert_eq!(solver.solve_weak(p), expected.signum(), "{moves}");
            solver.clear_table();
        }
    }
}

/// Several threads sharing one table give the same answers as one.
#[test]
fn threads_agree_with_the_labels() {
    let mut solver = Solver::<7, 6>::with_table_mb(TABLE_MB);
    solver.set_threads(2);
    let mut set = ours("ply9-14.txt");
    set.truncate(20);
    set.extend(ours("ply23-32.txt").into_iter().take(40));
    if let Some(published) = published("threads_agree_with_the_labels", "opening_L1.txt") {
        set.extend(published.into_iter().take(200));
    }
    for Labelled {
        moves,
        position: p,
        score: expected,
        ..
    } in set
    {
        assert_eq!(solver.solve(&p), expected, "{moves}");
        assert_eq!(solver.solve_weak(&p), expected.signum(), "{moves}");
        solver.clear_table();
    }
}

/// Two threads give one thread's scores on the boards of more than 42
/// cells, where every thread puts off the positions the others are in:
/// random positions early enough that the threads search them together.
#[test]
fn threads_agree_with_one_thread_on_large_boards() {
    fn check<const W: usize, const H: usize>(seed: u64, count: usize) {
        let mut rng = Rng::new(seed);
        let mut one = Solver::<W, H>::with_table_mb(16);
        let mut two = Solver::<W, H>::with_table_mb(16);
        two.set_threads(2);
        // Random play soon decides a game, and decided positions are
        // quick; a win and a loss at least.
        let mut signs = [0; 3];
        // Threads work together below half the board's moves.
        let last = (W * H / 2) as u32;
        for _ in 0..count {
            let len = last - 12 + rng.below(12) as u32;
            let p = random_position::<W, H>(&mut rng, len);
            let expected = one.solve(&p);
            assert_eq!(two.solve(&p), expected, "{p}");
            assert_eq!(two.solve_weak(&p), expected.signum(), "{p}");
            signs[(expected.signum() + 1) as usize] += 1;
            one.clear_table();
            two.clear_table();
        }
        assert!(
            signs[0] > 0 && signs[2] > 0,
            "losses, draws, wins: {signs:?}"
        );
    }
    check::<6, 8>(0x5EED_0068, 15);
    check::<7, 7>(0x5EED_0077, 15);
    check::<9, 5>(0x5EED_0095, 15);
}

#[test]
fn agrees_with_unpruned_negamax_late_in_7x6_games() {
    let mut rng = Rng::new(0x5EED_0001);
    let mut solver = Solver::<7, 6>::with_table_mb(16);
    let mut outcomes = Outcomes::default();
    for _ in 0..60 {
        let len = 32 + rng.below(8) as u32;
        let p = random_position::<7, 6>(&mut rng, len);
        outcomes.note(agree(&mut solver, &p, &mut Reference::forgetting()));
    }
    outcomes.check();
}

/// Every position of the 4x4 game, each solved by a fresh-table solver
/// and by one that keeps its table throughout.
#[test]
fn agrees_with_negamax_on_every_4x4_position() {
    let mut reference = Reference::remembering();
    let mut kept = Solver::<4, 4>::with_table_mb(8);
    let mut walked = 0;
    for_each_position::<4, 4>(|p| {
        agree(&mut kept, p, &mut reference);
        walked += 1;
    });
    assert!(walked > 10_000, "walked {walked} positions");
    let mut fresh = Solver::<4, 4>::with_table_mb(8);
    assert_eq!(fresh.solve(&Position::new()), 0, "4x4 is a draw");
}

/// With one thread, and with two (each with its own table of positions
/// near the end, which on this board is every position).
#[test]
fn agrees_with_negamax_on_random_5x4_positions() {
    let mut reference = Reference::remembering();
    for threads in [1, 2] {
        let mut rng = Rng::new(0x5EED_0002);
        let mut solver = Solver::<5, 4>::with_table_mb(8);
        solver.set_threads(threads);
        let mut outcomes = Outcomes::default();
        agree(&mut solver, &Position::new(), &mut reference);
        for _ in 0..300 {
            let len = rng.below(18) as u32;
            let p = random_position::<5, 4>(&mut rng, len);
            solver.clear_table();
            outcomes.note(agree(&mut solver, &p, &mut reference));
        }
        outcomes.check();
    }
}

#[test]
fn agrees_with_negamax_on_random_6x5_positions() {
    let mut rng = Rng::new(0x5EED_0003);
    let mut reference = Reference::remembering();
    let mut solver = Solver::<6, 5>::with_table_mb(16);
    let mut outcomes = Outcomes::default();
    for _ in 0..40 {
        let len = 14 + rng.below(14) as u32;
        let p = random_position::<6, 5>(&mut rng, len);
        outcomes.note(agree(&mut solver, &p, &mut reference));
    }
    outcomes.check();
}

/// The first player wins the empty 7x6 board with its last disc, and only
/// by starting in the centre. Takes minutes: run with `--ignored`.
#[test]
#[ignore]
fn empty_board() {
    let mut solver = Solver::<7, 6>::new();
    let p = Position::new();
    assert_eq!(solver.solve(&p), 1);
    assert_eq!(solver.solve_weak(&p), 1);
    assert_eq!(
        solver.analyze(&p),
        [-2, -1, 0, 1, 0, -1, -2].map(Some),
        "labelled data: the published analysis of the empty board"
    );
}

#[test]
fn agrees_with_negamax_on_random_4x5_positions() {
    let mut rng = Rng::new(0x5EED_0004);
    let mut reference = Reference::remembering();
    let mut solver = Solver::<4, 5>::with_table_mb(8);
    let mut outcomes = Outcomes::default();
    agree(&mut solver, &Position::new(), &mut reference);
    for _ in 0..2000 {
        let len = rng.below(18) as u32;
        let p = random_position::<4, 5>(&mut rng, len);
        solver.clear_table();
        outcomes.note(agree(&mut solver, &p, &mut reference));
    }
    outcomes.check();
}

#[test]
fn agrees_with_negamax_on_random_6x4_positions() {
    // From move 8: from moves 6 and 7 the reference walks nearly every
    // position of the board, which doubled the test's time and memory
    // (docs/testing.md).
    const FIRST: u32 = 8;
    let mut rng = Rng::new(0x5EED_0005);
    let mut reference = Reference::remembering();
    let mut solver = Solver::<6, 4>::with_table_mb(8);
    let mut outcomes = Outcomes::default();
    for _ in 0..1000 {
        let len = FIRST + rng.below(22 - FIRST as u64) as u32;
        let p = random_position::<6, 4>(&mut rng, len);
        solver.clear_table();
        outcomes.note(agree(&mut solver, &p, &mut reference));
    }
    outcomes.check();
}

/// The recorded searches of a strong solve account for every position it
/// searched, every result is a true bound, and the score is proved from
/// both sides: one search fails high with it and one fails low with it
/// (unless the score is the least or the most the solve starts from). A
/// weak solve records its one search.
#[test]
fn probes_account_for_every_solve() {
    let mut solver = Solver::<7, 6>::with_table_mb(TABLE_MB);
    solver.drop_book();
    let set = ours("ply15-22.txt");
    for Labelled {
        moves,
        position: p,
        score,
        ..
    } in &set
    {
        solver.clear_table();
        solver.reset_nodes();
        assert_eq!(solver.solve(p), *score, "{moves}");
        let probes = solver.probes();
        assert_eq!(
            probes.iter().map(|probe| probe.nodes).sum::<u64>(),
            solver.nodes(),
            "{moves}: {probes:?}"
        );
        // Without an immediate win (fixtures have none), the side to move
        // wins at best with its second disc from now and loses at worst to
        // the opponent's next: the solver starts from that range.
        let n = p.moves_played();
        let (least, most) = (-score::win(42, n + 1), score::win(42, n + 2));
        for probe in probes {
            assert_eq!(probe.beta, probe.alpha + 1, "{moves}: {probe:?}");
            // Fail-soft results are true bounds on the score.
            if probe.result <= probe.alpha {
                assert!(*score <= probe.result, "{moves}: {probe:?}");
            } else {
                assert!(*score >= probe.result, "{moves}: {probe:?}");
            }
        }
        let high = probes
            .iter()
            .any(|probe| probe.result > probe.alpha && probe.result == *score);
        let low = probes
            .iter()
            .any(|probe| probe.result <= probe.alpha && probe.result == *score);
        assert!(
            (high || *score == least) && (low || *score == most),
            "{moves} {score}: {probes:?}"
        );

        solver.reset_nodes();
        solver.solve_weak(p);
        let probes = solver.probes();
        assert!(probes.len() <= 1, "{moves}: {probes:?}");
        assert_eq!(
            probes.iter().map(|probe| probe.nodes).sum::<u64>(),
            solver.nodes()
        );
    }
}
