//! The engine protocol's `-perfect` mode against labelled positions: the
//! chosen move must keep the position's exact score, and be the centre-most
//! such move.

use score4::classic::{answer_perfect, Outcome, Request};
use score4::{fixture, Geometry, Solver};

type G = Geometry<7, 6>;

/// The Score4 cell tokens of a position, its side to move as orange.
fn tokens(p: &score4::Position) -> Vec<String> {
    let mut tokens = Vec::new();
    for col in 0..7 {
        for row in 0..6 {
            let cell = G::cell(col, row);
            let colour = if p.current().contains(cell) {
                'o'
            } else if p.opponent().contains(cell) {
                'y'
            } else {
                continue;
            };
            tokens.push(format!("{colour}{}{col}", 5 - row));
        }
    }
    tokens
}

#[test]
fn perfect_moves_keep_the_labelled_score() {
    let text = include_str!("../../../../fixtures/solver/ply33-40.txt");
    let set = fixture::parse::<7, 6>(text).expect("fixture parses");
    let mut solver = Solver::with_table_mb(8);
    for labelled in set.iter().take(60) {
        let mut args = tokens(&labelled.position);
        args.push("-perfect".into());
        args.push("-debug".into());
        let request = Request::parse(&args).expect("cells of a real game parse");
        let answer = answer_perfect(&request, &mut solver);
        let scores = answer.columns;
        let best = scores.iter().flatten().max().copied();
        assert_eq!(best, Some(labelled.score), "{}", labelled.moves);
        let Outcome::Move { column, wins } = answer.outcome else {
            panic!("{}: no move chosen", labelled.moves);
        };
        assert_eq!(scores[column], Some(labelled.score));
        let distance = |c: usize| c.abs_diff(3);
        for (other, score) in scores.iter().enumerate() {
            if *score == Some(labelled.score) {
                assert!(distance(other) >= distance(column), "{}", labelled.moves);
            }
        }
        assert_eq!(wins, labelled.position.is_winning_move(column));
        // Without -debug the move is found with less work: the same move.
        let quiet = Request::parse(&args[..args.len() - 1]).expect("parses");
        let quiet = answer_perfect(&quiet, &mut solver);
        assert_eq!(quiet.outcome, answer.outcome, "{}", labelled.moves);
        assert_eq!(quiet.columns, [None; 7]);
        assert_eq!(answer.level, 42 - labelled.position.moves_played());
        // One debug line per playable column, then the move, then `I win`
        // exactly when the move wins.
        let mut expected = String::new();
        for (c, score) in scores.iter().enumerate() {
            if let Some(score) = score {
                expected += &format!("Depth {}, placing on {c}, score:{score}\n", answer.level);
            }
        }
        expected += &format!("{column}\n");
        if wins {
            expected += "I win\n\n";
        }
        assert_eq!(answer.to_string(), expected, "{}", labelled.moves);
        assert_eq!(answer.exit_status(), if wins { 255 } else { 0 });
        for (c, score) in scores.iter().enumerate() {
            assert_eq!(score.is_some(), labelled.position.can_play(c));
        }
    }
}

/// The labelled sets hold no immediate wins, so their children provide
/// them: when orange can win at once, `-perfect` must take the win (the
/// centre-most winning column) and say so.
#[test]
fn perfect_mode_takes_an_immediate_win() {
    let text = include_str!("../../../../fixtures/solver/ply33-40.txt");
    let set = fixture::parse::<7, 6>(text).expect("fixture parses");
    let mut solver = Solver::with_table_mb(8);
    let mut wins_seen = 0;
    for labelled in set.iter().take(60) {
        for col in labelled.position.playable_columns() {
            let child = labelled.position.after(col);
            if child.is_game_over() || !child.can_win_next() {
                continue;
            }
            wins_seen += 1;
            let mut args = tokens(&child);
            args.push("-perfect".into());
            let answer = answer_perfect(&Request::parse(&args).expect("parses"), &mut solver);
            let winning: Vec<usize> = (0..7).filter(|&c| child.is_winning_move(c)).collect();
            let centre_most = winning.iter().min_by_key(|&&c| c.abs_diff(3)).copied();
            let Outcome::Move { column, wins } = answer.outcome else {
                panic!("{}{}: no move chosen", labelled.moves, col + 1);
            };
            assert_eq!(Some(column), centre_most, "{}{}", labelled.moves, col + 1);
            assert!(wins);
            assert_eq!(answer.to_string(), format!("{column}\nI win\n\n"));
            assert_eq!(answer.exit_status(), 255);
        }
    }
    assert!(wins_seen > 0, "no child with an immediate win");
}

#[test]
fn perfect_mode_keeps_the_game_over_answers() {
    let mut solver = Solver::with_table_mb(1);
    let won =
        Request::parse(["y53", "y52", "y51", "y50", "o43", "o42", "o41", "-perfect"]).unwrap();
    assert_eq!(answer_perfect(&won, &mut solver).to_string(), "You win\n\n");
    let mine = Request::parse(["o53", "o52", "o51", "o50", "-perfect"]).unwrap();
    assert_eq!(answer_perfect(&mine, &mut solver).exit_status(), 255);
    // A drawn game: every column filled, nobody with four in a row.
    let full: score4::Position = "547125662261271266215743771576315353334444"
        .parse()
        .unwrap();
    let mut args = tokens(&full);
    args.push("-perfect".into());
    let answer = answer_perfect(&Request::parse(&args).unwrap(), &mut solver);
    assert_eq!(answer.outcome, Outcome::NoMove);
    assert_eq!(
        (answer.to_string().as_str(), answer.exit_status()),
        ("No move possible\n", 255)
    );
}
