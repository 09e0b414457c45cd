//! The anytime analysis: every state it reports holds the exact scores
//! (from the unpruned reference on small boards, from the labelled sets and
//! the plain analysis on 7x6), ranges only narrow, a finished analysis is
//! the exact one, a stop part way keeps what was proven, and the best move
//! it proves is the perfect one.

use std::time::{Duration, Instant};

use score4::fixture::Labelled;
use score4::play::{choose_until, range_words, words, Opponent};
use score4::solver::{Analysis, Goal};
use score4::wide::{self, Shape};
use score4::{Position, Solver};
use score4_testkit::fixtures::ours;
use score4_testkit::positions::random_position;
use score4_testkit::reference::Reference;
use score4_testkit::Rng;

/// Long enough that no tick comes between the searches' reports.
const NO_TICK: Duration = Duration::from_secs(3600);

/// Checks one state against the exact scores and the state before it.
fn check_state<const W: usize>(
    what: &str,
    exact: &[Option<i32>; W],
    before: Option<&Analysis<W>>,
    now: &Analysis<W>,
) {
    for (col, (&exact, &range)) in exact.iter().zip(&now.columns).enumerate() {
        match (exact, range) {
            (None, None) => {}
            (Some(score), Some(range)) => {
                assert!(
                    range.contains(score),
                    "{what}: column {col}: {range:?} misses {score}"
                );
                if let Some(old) = before.and_then(|b| b.columns[col]) {
                    assert!(
                        range.lower >= old.lower && range.upper <= old.upper,
                        "{what}: column {col} widened from {old:?} to {range:?}"
                    );
                }
            }
            other => panic!("{what}: column {col}: {other:?}"),
        }
    }
    if let Some(b) = before {
        assert!(now.nodes >= b.nodes, "{what}: positions went back");
    }
    let all_exact = now.columns.iter().flatten().all(|r| r.exact().is_some());
    assert_eq!(
        now.done, all_exact,
        "{what}: done in every state, not only the last"
    );
}

/// Runs an analysis to its end, checking every state it reports.
fn analysed<const W: usize, const H: usize>(
    solver: &mut Solver<W, H>,
    p: &Position<W, H>,
    exact: &[Option<i32>; W],
) -> Analysis<W> {
    let what = format!("{W}x{H} {p:?}");
    let mut last: Option<Analysis<W>> = None;
    let mut updates = 0;
    let done = solver.analyze_anytime(p, Goal::Everything, None, NO_TICK, |a| {
        check_state(&what, exact, last.as_ref(), a);
        last = Some(*a);
        updates += 1;
    });
    assert!(
        updates >= 2,
        "{what}: the first state and the last are reported"
    );
    assert_eq!(Some(done), last, "{what}: the last report is the result");
    assert!(done.done, "{what}");
    assert_eq!(
        done.columns.map(|r| r.and_then(|r| r.exact())),
        *exact,
        "{what}"
    );
    done
}

/// `count` random positions of `moves` moves, each proven move by move
/// and checked against the reference.
fn against_reference<const W: usize, const H: usize>(
    seed: u64,
    count: usize,
    moves: std::ops::Range<u32>,
) {
    let mut rng = Rng::new(seed);
    let mut reference = Reference::remembering();
    let mut solver = Solver::<W, H>::with_table_mb(1);
    for _ in 0..count {
        let moves = moves.start + rng.below(u64::from(moves.end - moves.start)) as u32;
        let p = random_position::<W, H>(&mut rng, moves);
        let exact = reference.move_scores(&p);
        analysed(&mut solver, &p, &exact);
    }
}

#[test]
fn agrees_with_the_reference_on_small_boards() {
    // 5x5 from move 6: from the first moves the reference walks nearly
    // every position of the board, which tripled the test's time
    // (docs/testing.md); the smaller boards start from the empty one.
    const FIRST_5X5: u32 = 6;
    against_reference::<4, 4>(1, 300, 0..14);
    against_reference::<5, 4>(2, 200, 0..18);
    against_reference::<4, 5>(3, 200, 0..18);
    against_reference::<5, 5>(4, 60, FIRST_5X5..22);
}

#[test]
fn agrees_with_the_reference_late_in_7x6_and_9x6_games() {
    let mut reference = Reference::remembering();
    let mut rng = Rng::new(5);
    let mut solver = Solver::<7, 6>::with_table_mb(4);
    for _ in 0..40 {
        let moves = 28 + rng.below(8) as u32;
        let p = random_position::<7, 6>(&mut rng, moves);
        analysed(&mut solver, &p, &reference.move_scores(&p));
    }
    let mut solver = Solver::<9, 6>::with_table_mb(4);
    for _ in 0..15 {
        let moves = 40 + rng.below(6) as u32;
        let p = random_position::<9, 6>(&mut rng, moves);
        analysed(&mut solver, &p, &reference.move_scores(&p));
    }
}

/// Positions of the middle game, whose searches take thousands of
/// positions, against the plain analysis (itself checked against the
/// labels and the reference elsewhere).
fn middle_game() -> Vec<Labelled> {
    ours("ply15-22.txt").into_iter().step_by(10).collect()
}

#[test]
fn agrees_with_the_plain_analysis_in_the_middle_game() {
    let mut plain = Solver::<7, 6>::with_table_mb(8);
    let mut anytime = Solver::<7, 6>::with_table_mb(8);
    for labelled in middle_game() {
        let exact = plain.analyze(&labelled.position);
        let done = analysed(&mut anytime, &labelled.position, &exact);
        assert_eq!(done.score().and_then(|s| s.exact()), Some(labelled.score));
    }
}

/// Stopped by its handle after its `k`-th report, for several `k`, an
/// analysis keeps every range it proved, each holding the exact score,
/// and the solver goes on to answer right once resumed.
#[test]
fn a_stop_part_way_keeps_what_was_proven() {
    let mut plain = Solver::<7, 6>::with_table_mb(8);
    let mut solver = Solver::<7, 6>::with_table_mb(8);
    solver.drop_book();
    let handle = solver.stop_handle();
    let mut unfinished = 0;
    for (i, labelled) in middle_game().iter().enumerate() {
        let p = &labelled.position;
        let exact = plain.analyze(p);
        let k = 1 + i % 6;
        let what = format!("{} stopped after {k}", labelled.moves);
        let mut reports = 0;
        let mut last: Option<Analysis<7>> = None;
        solver.clear_table();
        let end = solver.analyze_anytime(p, Goal::Everything, None, NO_TICK, |a| {
            check_state(&what, &exact, last.as_ref(), a);
            last = Some(*a);
            reports += 1;
            if reports == k {
                handle.stop();
            }
        });
        check_state(&what, &exact, None, &end);
        unfinished += usize::from(!end.done);
        handle.resume();
        assert_eq!(solver.solve(p), labelled.score, "{what}");
    }
    assert!(
        unfinished > 0,
        "no analysis was cut short: the test tests nothing"
    );
}

/// A deadline already passed searches nothing: what needs no search is
/// there, the other columns span every score they could have.
#[test]
fn a_passed_deadline_gives_what_needs_no_search() {
    let mut solver = Solver::<7, 6>::new();
    solver.drop_book();
    let p: Position = "445566".parse().unwrap();
    let exact = Solver::<7, 6>::new().analyze(&p);
    let a = solver.analyze_anytime(&p, Goal::Everything, Some(Instant::now()), NO_TICK, |_| {});
    check_state("445566", &exact, None, &a);
    // The one position each stopped search counts before it looks.
    assert!(a.nodes <= 1, "{a:?}");
    assert!(!a.done);
    // Columns 3 and 7 (0-based 2 and 6) win at once.
    assert_eq!(a.columns[2].and_then(|r| r.exact()), exact[2]);
    assert_eq!(a.columns[6].and_then(|r| r.exact()), exact[6]);
    assert!(a.columns[3].is_some_and(|r| r.exact().is_none()));
    // A finished game has no moves, and is done.
    let won: Position = "1212121".parse().unwrap();
    let over = solver.analyze_anytime(
        &won,
        Goal::Everything,
        Some(Instant::now()),
        NO_TICK,
        |_| {},
    );
    assert_eq!(over.columns, [None; 7]);
    assert!(over.done && over.best().is_none());
}

/// With the goal of a best move, the analysis stops once the move is
/// proven, and that move is the one the solver's perfect play chooses.
#[test]
fn the_proven_best_move_is_the_perfect_one() {
    let mut rng = Rng::new(7);
    let mut perfect = Solver::<7, 6>::with_table_mb(8);
    let mut anytime = Solver::<7, 6>::with_table_mb(8);
    let mut positions: Vec<Position> = middle_game().iter().map(|l| l.position).collect();
    for _ in 0..60 {
        let moves = 20 + rng.below(20) as u32;
        positions.push(random_position::<7, 6>(&mut rng, moves));
    }
    for p in positions {
        let a = anytime.analyze_anytime(&p, Goal::BestMove, None, NO_TICK, |_| {});
        let best = a.best().expect("a game in play has a move");
        assert!(best.proven, "{p:?}: {a:?}");
        assert_eq!(Some(best.column), perfect.best_move(&p), "{p:?}: {a:?}");
    }
}

/// During one long search the ticks carry the positions searched so far,
/// and a deadline ends it.
#[test]
fn ticks_show_progress_during_a_long_search() {
    let mut solver = Solver::<7, 6>::with_table_mb(16);
    solver.drop_book();
    let deadline = Instant::now() + Duration::from_millis(400);
    let mut seen: Vec<Analysis<7>> = Vec::new();
    let end = solver.analyze_anytime(
        &Position::new(),
        Goal::Everything,
        Some(deadline),
        Duration::from_millis(20),
        |a| seen.push(*a),
    );
    assert!(!end.done, "the empty board is not solved in 0.4 s");
    assert!(
        seen.windows(2)
            .all(|w| w[1].nodes >= w[0].nodes && w[1].elapsed >= w[0].elapsed),
        "progress only goes forward"
    );
    // The weak search of the first column alone outlasts the deadline:
    // ticks show its positions rising while no range narrows.
    let ticked = seen
        .windows(2)
        .any(|w| w[0].columns == w[1].columns && w[1].nodes > w[0].nodes);
    assert!(ticked, "no tick showed progress: {seen:?}");
}

/// Every range's words agree with the exact score's: a win "in at most
/// n" is a win in n or fewer, and so on.
#[test]
fn range_words_agree_with_the_exact_words() {
    let mut plain = Solver::<7, 6>::with_table_mb(8);
    let mut solver = Solver::<7, 6>::with_table_mb(8);
    solver.drop_book();
    let mut checked = 0;
    for labelled in middle_game() {
        let p = &labelled.position;
        let exact = plain.analyze(p);
        solver.clear_table();
        solver.analyze_anytime(p, Goal::Everything, None, NO_TICK, |a| {
            for (range, score) in a.columns.iter().zip(exact) {
                let (Some(range), Some(score)) = (range, score) else {
                    continue;
                };
                let said = range_words(p, *range);
                let truth = words(p, score).unwrap();
                let number = |text: &str| text.rsplit(' ').next().unwrap().parse::<u32>().ok();
                // "no loss in under n": a draw, a win, or a loss in n or more.
                let not_under = |part: &str, kind: &str| {
                    !truth.starts_with(kind) || number(&truth) >= number(part)
                };
                let agrees = match said.as_str() {
                    "draw or better" => truth == "draw" || truth.starts_with("win"),
                    "not a win" => truth == "draw" || truth.starts_with("loss"),
                    "not proven yet" => true,
                    s if s.starts_with("no ") => s.split(", ").all(|part| {
                        if part.starts_with("no loss in under ") {
                            not_under(part, "loss")
                        } else {
                            part.starts_with("no win in under ") && not_under(part, "win")
                        }
                    }),
                    s if s.contains("at most") => {
                        s.split(' ').next() == truth.split(' ').next()
                            && number(&truth) <= number(s)
                    }
                    s => s == truth,
                };
                assert!(
                    agrees,
                    "{}: {range:?} said {said:?}, exact {truth:?}",
                    labelled.moves
                );
                checked += 1;
            }
        });
    }
    assert!(checked > 100);
}

/// An opponent's move within a deadline: with time enough, the move
/// `choose` plays, proven; with none, still a move, marked unproven. The
/// moves are checked against the compiled solver's own.
#[test]
fn moves_within_a_deadline() {
    let mut rng = Rng::new(9);
    let standard = Shape::standard();
    let mut solver = wide::Solver::new(standard, 8).unwrap();
    let mut plain = Solver::<7, 6>::with_table_mb(8);
    let far = Some(Instant::now() + Duration::from_secs(3600));
    for labelled in middle_game() {
        let p = &labelled.position;
        let q = wide::Position::parse(&standard, &labelled.moves).unwrap();
        let choice = choose_until(&mut solver, &q, &Opponent::Perfect, &mut rng, far).unwrap();
        assert_eq!(choice.column, plain.best_move(p), "{}", labelled.moves);
        assert!(choice.proven);
        let fair = choose_until(&mut solver, &q, &Opponent::Fair, &mut rng, far).unwrap();
        let column = fair.column.unwrap();
        let scores = plain.analyze(p);
        let best = scores.iter().flatten().max().unwrap();
        assert!(fair.proven && scores[column].is_some_and(|s| s >= 0 || s == *best));
    }
    let mut big = wide::Solver::new(Shape::new(9, 6).unwrap(), 8).unwrap();
    let empty = wide::Position::new();
    let now = Some(Instant::now());
    for opponent in [Opponent::Perfect, Opponent::Fair] {
        let choice = choose_until(&mut big, &empty, &opponent, &mut rng, now).unwrap();
        assert!(!choice.proven && choice.column.is_some(), "{opponent}");
    }
    // Stopped by its handle, it has no move to give.
    big.stop_handle().stop();
    let stopped = choose_until(&mut big, &empty, &Opponent::Perfect, &mut rng, far);
    assert!(stopped.is_err());
}
