use super::*;

use crate::classic::Request;
use crate::position::random_games;
use crate::solver::{Solver, DEFAULT_TABLE_MB};

/// [`random_games`] on the board of any size, read from their moves.
fn random_positions<const W: usize, const H: usize>(
    count: usize,
    moves: std::ops::Range<usize>,
    seed: u64,
) -> Vec<(String, wide::Position)> {
    let shape = Shape::any(W, H);
    random_games::<W, H>(count, moves, seed)
        .into_iter()
        .map(|(moves, _)| {
            let p = wide::Position::parse(&shape, &moves).unwrap();
            (moves, p)
        })
        .collect()
}

/// The centre-most of the best-scoring columns: the solver's rule for a
/// best move, written out.
fn centre_most_best(shape: &Shape, scores: &[Option<i32>]) -> Option<usize> {
    let best = scores.iter().flatten().max()?;
    shape
        .centre_first()
        .iter()
        .copied()
        .find(|&c| scores[c] == Some(*best))
}

fn perfect_keeps_the_best_score<const W: usize, const H: usize>(plies: std::ops::Range<usize>) {
    let shape = Shape::any(W, H);
    let mut solver = wide::Solver::new(shape, DEFAULT_TABLE_MB).unwrap();
    let mut rng = Rng::new(7);
    for (moves, p) in random_positions::<W, H>(40, plies, 11) {
        let scores = solver.analyze(&p).unwrap();
        let best = scores.iter().flatten().max().copied().unwrap();
        let col = choose(&mut solver, &p, &Opponent::Perfect, &mut rng, None)
            .unwrap()
            .expect("a game that goes on has a move");
        assert_eq!(scores[col], Some(best), "{moves}: perfect played {col}");
        assert_eq!(Some(col), centre_most_best(&shape, &scores), "{moves}");
    }
}

#[test]
fn perfect_never_plays_below_the_best_score() {
    perfect_keeps_the_best_score::<5, 4>(0..14);
    perfect_keeps_the_best_score::<6, 5>(4..20);
    perfect_keeps_the_best_score::<7, 6>(12..30);
}

#[test]
fn fair_never_loses_when_it_need_not_and_tries_every_good_move() {
    let shape = Shape::any(6, 5);
    let mut solver = wide::Solver::new(shape, DEFAULT_TABLE_MB).unwrap();
    for (moves, p) in random_positions::<6, 5>(30, 2..20, 3) {
        let scores = solver.analyze(&p).unwrap();
        let good: Vec<usize> = (0..6)
            .filter(|&c| scores[c].is_some_and(|s| s >= 0))
            .collect();
        let mut seen = [false; 6];
        let mut rng = Rng::new(99);
        for _ in 0..60 {
            let col = choose(&mut solver, &p, &Opponent::Fair, &mut rng, None)
                .unwrap()
                .unwrap();
            assert!(p.can_play(&shape, col));
            if good.is_empty() {
                assert_eq!(Some(col), centre_most_best(&shape, &scores), "{moves}");
            } else {
                assert!(
                    good.contains(&col),
                    "{moves}: fair played losing {col}: {scores:?}"
                );
            }
            seen[col] = true;
        }
        // Sixty draws miss one of at most six equal moves with odds below 1e-4.
        for &c in &good {
            assert!(seen[c], "{moves}: fair never played {c} of {good:?}");
        }
    }
}

#[test]
fn soft_plays_legal_moves_cold_plays_best_and_a_seed_replays() {
    let shape = Shape::any(6, 5);
    let mut solver = wide::Solver::new(shape, DEFAULT_TABLE_MB).unwrap();
    for (moves, p) in random_positions::<6, 5>(20, 2..20, 5) {
        let scores = solver.analyze(&p).unwrap();
        let best = scores.iter().flatten().max().copied().unwrap();
        let play = |solver: &mut wide::Solver, t: f64, seed: u64| {
            let mut rng = Rng::new(seed);
            (0..20)
                .map(|_| {
                    choose(
                        solver,
                        &p,
                        &Opponent::Soft { temperature: t },
                        &mut rng,
                        None,
                    )
                    .unwrap()
                    .unwrap()
                })
                .collect::<Vec<_>>()
        };
        let warm = play(&mut solver, DEFAULT_TEMPERATURE, 42);
        assert!(warm.iter().all(|&c| p.can_play(&shape, c)));
        assert_eq!(warm, play(&mut solver, DEFAULT_TEMPERATURE, 42));
        // At a hundredth of a point one point worse is e^-100 as likely.
        for col in play(&mut solver, 0.01, 1) {
            assert_eq!(scores[col], Some(best), "{moves}");
        }
    }
}

#[test]
fn soft_draws_in_proportion_to_its_weights() {
    // Scores 0, -1, absent, 0 at temperature 1: weights 1, 1/e, -, 1.
    let scores = [Some(0), Some(-1), None, Some(0)];
    let mut rng = Rng::new(2024);
    let mut counts = [0u32; 4];
    let n = 20_000;
    for _ in 0..n {
        counts[soft_move(&scores, 1.0, &mut rng).unwrap()] += 1;
    }
    let total = 2.0 + (-1.0f64).exp();
    assert_eq!(counts[2], 0);
    for (col, w) in [(0, 1.0), (1, (-1.0f64).exp()), (3, 1.0)] {
        let expect = f64::from(n) * w / total;
        let got = f64::from(counts[col]);
        assert!(
            (got - expect).abs() < 0.05 * expect,
            "{col}: {got} vs {expect}"
        );
    }
}

#[test]
fn classic_plays_the_recorded_engine_move() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/score4-protocol-sample.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let shape = Shape::standard();
    let mut solver = wide::Solver::new(shape, 1).unwrap();
    let mut compared = 0;
    for line in text.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let args: Vec<&str> = record["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let stdout = record["stdout"].as_str().unwrap();
        let Ok(request) = Request::parse(&args) else {
            continue;
        };
        if request.debug || request.perfect {
            continue;
        }
        let p = request.board.position();
        assert_eq!(Board::from_position(&p), request.board, "{args:?}");
        let Ok(recorded) = stdout.lines().next().unwrap_or("").parse::<usize>() else {
            continue;
        };
        // The engine's board has orange to move, in the layout of every size.
        let (orange, yellow) = (request.board.orange(), request.board.yellow());
        let q = wide::Position::from_sides(&shape, orange.bits().into(), yellow.bits().into())
            .expect("a board of the rules");
        if q.ending(&shape).is_some() {
            continue;
        }
        let level = Opponent::Classic {
            level: request.level,
        };
        let got = choose(&mut solver, &q, &level, &mut Rng::new(0), None).unwrap();
        assert_eq!(got, Some(recorded), "{args:?}");
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} recorded moves compared");
}

#[test]
fn classic_matches_the_engine_on_random_positions() {
    let shape = Shape::standard();
    let mut solver = wide::Solver::new(shape, 1).unwrap();
    for (i, (moves, p)) in random_games::<7, 6>(60, 0..36, 17).iter().enumerate() {
        let q = wide::Position::parse(&shape, moves).unwrap();
        let level = 1 + (i as u32 % 8);
        let request = Request {
            board: Board::from_position(p),
            level,
            debug: false,
            perfect: false,
        };
        let expected = match classic::answer(&request).outcome {
            Outcome::Move { column, .. } => Some(column),
            _ => None,
        };
        let got = choose(
            &mut solver,
            &q,
            &Opponent::Classic { level },
            &mut Rng::new(0),
            None,
        );
        assert_eq!(got, Ok(expected), "{moves} at level {level}");
        // Orange is the side to move: its disc count is the smaller or equal.
        assert!(
            Board::from_position(p).orange().count() <= Board::from_position(p).yellow().count()
        );
    }
    let small = Shape::any(5, 4);
    assert_eq!(
        choose(
            &mut wide::Solver::new(small, 1).unwrap(),
            &wide::Position::new(),
            &Opponent::Classic { level: 3 },
            &mut Rng::new(0),
            None
        ),
        Err(ChooseError::ClassicBoard {
            width: 5,
            height: 4
        })
    );
}

#[test]
fn human_and_finished_games_have_no_move() {
    let shape = Shape::standard();
    let mut solver = wide::Solver::new(shape, DEFAULT_TABLE_MB).unwrap();
    let p = wide::Position::parse(&shape, "4453").unwrap();
    let mut rng = Rng::new(0);
    assert_eq!(
        choose(&mut solver, &p, &Opponent::Human, &mut rng, None),
        Ok(None)
    );
    let won = wide::Position::parse(&shape, "4455667").unwrap();
    for o in [
        Opponent::Perfect,
        Opponent::Fair,
        Opponent::Classic { level: 5 },
    ] {
        assert_eq!(choose(&mut solver, &won, &o, &mut rng, None), Ok(None));
    }
}

#[test]
fn a_stopped_search_chooses_nothing() {
    let mut solver = wide::Solver::new(Shape::standard(), DEFAULT_TABLE_MB).unwrap();
    solver.drop_book();
    let handle = solver.stop_handle();
    handle.stop();
    let empty = wide::Position::new();
    let mut rng = Rng::new(0);
    for o in [
        Opponent::Perfect,
        Opponent::Fair,
        Opponent::Soft { temperature: 1.0 },
    ] {
        assert_eq!(
            choose(&mut solver, &empty, &o, &mut rng, None),
            Err(ChooseError::Stopped(Stopped))
        );
    }
}

#[test]
fn names_read_back() {
    for text in [
        "human",
        "perfect",
        "fair",
        "soft:0.5",
        "classic:7",
        "classic:1",
    ] {
        let o: Opponent = text.parse().unwrap();
        assert_eq!(o.to_string(), text);
    }
    assert_eq!(
        "soft".parse(),
        Ok(Opponent::Soft {
            temperature: DEFAULT_TEMPERATURE
        })
    );
    assert_eq!("level:9".parse(), Ok(Opponent::Classic { level: 9 }));
    let err = |t: &str| t.parse::<Opponent>().unwrap_err().to_string();
    assert_eq!(
        err("god"),
        "unknown opponent 'god': expected human, classic:N, perfect, fair or soft[:T]"
    );
    assert!(err("classic:0").starts_with("bad classic level '0'"));
    assert!(err("classic").starts_with("bad classic level"));
    assert!(err("classic:x").starts_with("bad classic level"));
    for t in [
        "soft:0", "soft:-1", "soft:inf", "soft:NaN", "soft:1e3", "soft:101", "soft:",
    ] {
        assert!(err(t).starts_with("bad temperature"), "{t}");
    }
    let classic = Opponent::Classic { level: 7 };
    assert!(classic.check(BoardSize::STANDARD).is_ok());
    assert_eq!(
        classic
            .check("5x4".parse().unwrap())
            .unwrap_err()
            .to_string(),
        "the classic engine plays only on 7x6, not on 5x4"
    );
}

#[test]
fn words_count_the_side_to_moves_own_moves() {
    // Compared with a slow count: play the game out along best moves.
    let mut solver = Solver::<5, 4>::new();
    for (_, p) in random_games::<5, 4>(40, 0..12, 23) {
        let score = solver.solve(&p);
        let mut q = p;
        let mut own = 0;
        let mut winner_is_mover = None;
        for ply in 0.. {
            if q.is_game_over() {
                break;
            }
            if ply % 2 == 0 {
                own += 1;
            }
            let col = solver.best_move(&q).unwrap();
            if q.is_winning_move(col) {
                winner_is_mover = Some(ply % 2 == 0);
            }
            q.play(col);
        }
        let expected = match winner_is_mover {
            None => "draw".to_string(),
            Some(true) => format!("win in {own}"),
            Some(false) => format!("loss in {own}"),
        };
        assert_eq!(words(&p, score), Some(expected), "{p:?} score {score}");
    }
}

#[test]
fn quick_move_wins_else_blocks_else_plays_centre_most() {
    let shape = Shape::standard();
    // Three of the side to move's discs in column 1: it wins there.
    let p = wide::Position::parse(&shape, "121212").unwrap();
    assert_eq!(quick_move(&shape, &p), Some(0));
    // Three of the opponent's in column 1: only blocking there does not lose.
    let r = wide::Position::parse(&shape, "212131").unwrap();
    assert_eq!(quick_move(&shape, &r), Some(0));
    // Against the rule checked move by move, on many positions.
    let mut checked = 0;
    for (moves, p) in random_positions::<7, 6>(400, 0..40, 23) {
        let got = quick_move(&shape, &p);
        if p.ending(&shape).is_some() {
            assert_eq!(got, None);
            continue;
        }
        let playable: Vec<usize> = shape
            .centre_first()
            .iter()
            .copied()
            .filter(|&c| p.can_play(&shape, c))
            .collect();
        let wins: Vec<usize> = playable
            .iter()
            .copied()
            .filter(|&c| p.is_winning_move(&shape, c))
            .collect();
        let safe: Vec<usize> = playable
            .iter()
            .copied()
            .filter(|&c| !p.after(&shape, c).can_win_next(&shape))
            .collect();
        let expected = wins.first().or(safe.first()).or(playable.first()).copied();
        assert_eq!(got, expected, "{moves}");
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn a_responsive_face_caps_the_classic_level() {
    assert_eq!(
        Opponent::parse_responsive("classic:12"),
        Ok(Opponent::Classic { level: 12 })
    );
    assert_eq!(
        "classic:13".parse::<Opponent>(),
        Ok(Opponent::Classic { level: 13 })
    );
    for text in [
        "classic:13",
        "level:99999",
        "classic:0",
        "classic:",
        "classic",
    ] {
        let e = Opponent::parse_responsive(text).unwrap_err();
        assert!(
            matches!(
                e,
                OpponentError::BadLevel {
                    max: MAX_CLASSIC_LEVEL,
                    ..
                }
            ),
            "{text}: {e}"
        );
    }
    assert_eq!(Opponent::parse_responsive("fair"), Ok(Opponent::Fair));
}
