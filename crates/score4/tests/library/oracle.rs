//! The fast engine against the reference model, through the library API.

use score4::classic::{answer, Request, Search, MAX_LEVEL};
use score4::heuristic;
use score4::Board;
use score4_testkit::classic::{drawn_grid, random_grid, tokens, Grid, Oracle};
use score4_testkit::Rng;

fn board_of(g: &Grid, rng: &mut Rng) -> Board {
    Board::from_cells(tokens(g, rng)).expect("generated boards obey gravity")
}

/// Compares debug and plain answers for `count` random boards per level.
fn agree(levels: std::ops::RangeInclusive<u32>, count: usize, seed: u64) {
    let oracle = Oracle::new();
    let mut rng = Rng::new(seed);
    // Which kinds of boards the random draw produced, so a generator that
    // drifts away from the hard cases fails loudly.
    let mut seen = Coverage::default();
    let deepest = *levels.end();
    for level in levels {
        for i in 0..count {
            // Spread disc counts over the whole game, with extra weight on
            // nearly full boards. Random play rarely fills the board without
            // four in a row, so some boards are drawn games on purpose.
            let discs = if rng.below(4) == 0 {
                30 + rng.below(13) as usize
            } else {
                rng.below(43) as usize
            };
            let g = if i % 100 == 0 {
                drawn_grid(&oracle, &mut rng)
            } else {
                random_grid(&oracle, &mut rng, discs)
            };
            let board = board_of(&g, &mut rng);
            // One search of the model for both outputs: it is most of the
            // test's time.
            for (debug, (expected, status)) in
                [false, true].into_iter().zip(oracle.run_both(&g, level))
            {
                let request = Request {
                    board,
                    level,
                    debug,
                    perfect: false,
                };
                let got = answer(&request);
                seen.note(&board, &got);
                assert_eq!(
                    (got.to_string(), got.exit_status()),
                    (expected, status),
                    "level {level} debug {debug} case {i}:\n{board}"
                );
            }
        }
    }
    seen.check(deepest);
}

#[derive(Default, Debug)]
struct Coverage {
    you_win: usize,
    i_win: usize,
    winning_move: usize,
    no_move: usize,
    forced_loss: usize,
    full_board_value: usize,
    unequal_counts: usize,
    nearly_full: usize,
}

impl Coverage {
    fn note(&mut self, board: &Board, got: &score4::classic::Answer) {
        use score4::classic::Outcome;
        match got.outcome {
            Outcome::YouWin => self.you_win += 1,
            Outcome::IWin => self.i_win += 1,
            Outcome::Move { wins: true, .. } => self.winning_move += 1,
            Outcome::Move { .. } => {}
            Outcome::NoMove => self.no_move += 1,
        }
        let values = got.columns.iter().flatten();
        if values
            .clone()
            .any(|&v| (-10_000_000 < v) && (v <= -1_000_001))
        {
            self.forced_loss += 1;
        }
        if values.clone().any(|&v| v.abs() == 10_000_000) {
            self.full_board_value += 1;
        }
        let (o, y) = (board.orange().count(), board.yellow().count());
        if o != y && o != y + 1 && y != o + 1 {
            self.unequal_counts += 1;
        }
        if o + y >= 36 {
            self.nearly_full += 1;
        }
    }

    /// Fails unless every kind of board was seen; a root column can only
    /// be worth a full board's value when two or more plies are searched.
    fn check(&self, deepest: u32) {
        let c = self;
        let all = [
            c.you_win,
            c.i_win,
            c.winning_move,
            c.no_move,
            c.forced_loss,
            c.unequal_counts,
            c.nearly_full,
            if deepest >= 2 { c.full_board_value } else { 1 },
        ];
        assert!(all.iter().all(|&n| n > 0), "coverage too thin: {c:?}");
        eprintln!("{c:?}");
    }
}

#[test]
fn static_score_matches_the_window_count() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(1);
    for _ in 0..20_000 {
        let discs = rng.below(43) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let board = board_of(&g, &mut rng);
        assert_eq!(
            heuristic::score(board.orange(), board.yellow()),
            oracle.score(&g),
            "\n{board}"
        );
    }
}

#[test]
fn shallow_levels_match_the_model() {
    agree(1..=3, 1500, 2);
}

#[test]
fn level_four_matches_the_model() {
    agree(4..=4, 1200, 3);
}

#[test]
fn level_five_matches_the_model() {
    agree(5..=5, 1000, 4);
}

#[test]
fn level_six_matches_the_model() {
    agree(6..=6, 400, 5);
}

/// 200 positions in two tests, so that they run on two cores.
#[test]
fn level_seven_matches_the_model() {
    agree(7..=7, 100, 6);
}

#[test]
fn level_seven_matches_the_model_elsewhere() {
    agree(7..=7, 100, 16);
}

#[test]
fn a_search_can_be_reused_across_levels() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(7);
    let mut search = Search::for_level(5);
    for i in 0..300 {
        let level = 1 + (i % 5) as u32;
        let discs = 4 + rng.below(30) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let board = board_of(&g, &mut rng);
        let got = search.answer(&board, level, true);
        assert_eq!(
            (got.to_string(), got.exit_status()),
            oracle.run(&g, level, true),
            "level {level}:\n{board}"
        );
    }
    assert!(search.nodes() > 0);
}

#[test]
fn deep_levels_on_nearly_full_boards_match_the_model() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(8);
    let mut searched = 0;
    while searched < 150 {
        let discs = 35 + rng.below(8) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let board = board_of(&g, &mut rng);
        // The model's tree grows with the empty cells; keep it small.
        if board.occupied().count() < 35 {
            continue;
        }
        searched += 1;
        // Levels beyond the empty cells still shift win values, up to the
        // largest level the protocol accepts.
        let level = match searched % 3 {
            0 => 8 + rng.below(92) as u32,
            1 => 100 + rng.below(1000) as u32,
            _ => MAX_LEVEL,
        };
        let got = Search::for_level(level).answer(&board, level, true);
        assert_eq!(
            (got.to_string(), got.exit_status()),
            oracle.run(&g, level, true),
            "level {level}:\n{board}"
        );
    }
}

#[test]
fn level_zero_searches_one_ply_as_the_original() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(9);
    for _ in 0..200 {
        let discs = rng.below(43) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let board = board_of(&g, &mut rng);
        let got = Search::for_level(0).answer(&board, 0, true);
        assert_eq!(
            (got.to_string(), got.exit_status()),
            oracle.run(&g, 0, true),
            "\n{board}"
        );
    }
}
