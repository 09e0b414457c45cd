//! `--board WxH` as a user runs it: other sizes solved and benchmarked,
//! unsupported ones refused.

use crate::common::{score4, text};

use score4::Position;
use score4_testkit::fixtures;
use score4_testkit::naive::{late_game, Naive};
use score4_testkit::reference::Reference;
use score4_testkit::Rng;

/// Moves played in the quiet 10x6 positions a journal is kept on.
const QUIET_MOVES: u32 = 30;

/// The published first-player scores of the small boards, from the fixture.
fn published_small() -> Vec<(String, i32)> {
    fixtures::board_sizes()
        .into_iter()
        .filter(|(size, _)| size.width() * size.height() <= 25)
        .map(|(size, score)| (size.to_string(), score))
        .collect()
}

#[test]
fn small_boards_match_the_published_results() {
    let small = published_small();
    assert!(small.len() >= 6, "{small:?}");
    for (size, score) in small {
        let o = score4(&["solve", "--board", &size, ""]);
        assert!(o.status.success(), "{size}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), format!(" {score}\n"), "{size}");
    }
}

#[test]
fn moves_and_analysis_follow_the_width() {
    // Three full rows of the 9x5 board: 18 empty cells, quick to solve.
    let rows = "123456789".repeat(3);
    let o = score4(&["solve", "--board", "9x5", "--analyze", &rows]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let fields: Vec<String> = text(&o.stdout)
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(fields.len(), 10, "{fields:?}");
    assert!(
        fields[1..].iter().all(|f| f.parse::<i32>().is_ok()),
        "{fields:?}"
    );
    // Column 6 is off a 5-wide board: one error line, an empty output line.
    let o = score4(&["solve", "--board", "5x4", "6"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "\n");
    let err = text(&o.stderr);
    assert!(err.contains("column 6 is out of range 1..5"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn unsupported_sizes_are_refused_naming_the_limit() {
    for size in ["3x6", "17x4", "4x32", "16x8"] {
        for command in ["solve", "bench"] {
            let o = score4(&[command, "--board", size, "1"]);
            assert_eq!(o.status.code(), Some(2), "{command} {size}");
            assert!(o.stdout.is_empty());
            let err = text(&o.stderr);
            let first = err.lines().next().unwrap_or("");
            assert!(first.contains(size), "{first}");
            assert!(
                first.contains("width * (height + 1) at most 128"),
                "{first}"
            );
        }
    }
    // Past 64 bits or nine columns: solved as any other board.
    for size in ["10x4", "9x7", "4x16", "8x8", "16x7"] {
        // The first player to move has three in column 1: a win at once.
        let o = score4(&["solve", "--board", size, "121212"]);
        assert!(o.status.success(), "{size}: {}", text(&o.stderr));
        assert!(text(&o.stdout).starts_with("121212 "), "{size}");
    }
    for size in ["7", "7x", "x6", "+7x6", "7x6x1"] {
        let o = score4(&["solve", "--board", size, "1"]);
        assert_eq!(o.status.code(), Some(2), "{size}");
        assert!(text(&o.stderr).contains("expected WIDTHxHEIGHT"), "{size}");
    }
}

#[test]
fn boards_past_64_bits_solve_as_the_unpruned_negamax_says() {
    let mut rng = Rng::new(128);
    for (w, h) in [(10, 4), (12, 4), (16, 7), (8, 8), (10, 6), (4, 24)] {
        let size = format!("{w}x{h}");
        let mut lines = String::new();
        let mut expected = String::new();
        while lines.lines().count() < 6 {
            let Some((moves, g)) = late_game(w, h, 6 + rng.index(5), &mut rng) else {
                continue;
            };
            let scores = Naive::new().move_scores(&g);
            expected.push_str(&moves);
            for s in scores {
                expected.push_str(&s.map_or(" -".to_string(), |s| format!(" {s}")));
            }
            expected.push('\n');
            lines.push_str(&moves);
            lines.push('\n');
        }
        let o = score4_testkit::cli::run_with_input(
            env!("CARGO_BIN_EXE_score4"),
            &["solve", "--board", &size, "--analyze"],
            lines.as_bytes(),
        );
        assert!(o.status.success(), "{size}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), expected, "{size}");
    }
    // Letters name the columns past 9, in either case; nothing else does.
    // Three of the first player's in column 10: a win with its 4th disc,
    // 1 + (48 - 7) / 2; the position printed as given.
    let o = score4(&["solve", "--board", "12x4", "AbAbAb"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "AbAbAb 21\n");
    let o = score4(&["solve", "--board", "12x4", "d"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("column 13 is out of range 1..12"),
        "{}",
        text(&o.stderr)
    );
    let o = score4(&["solve", "--board", "12x4", "10"]);
    assert!(
        text(&o.stderr).contains("'0' is not a column"),
        "{}",
        text(&o.stderr)
    );
    // 0-based digits, as c4's sets write them: the same positions, printed
    // as given; 9 is the tenth column.
    let o = score4(&["solve", "--base", "0", "3342", "9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).starts_with("3342 -2\n"),
        "{}",
        text(&o.stdout)
    );
    assert!(
        text(&o.stderr).contains("column 10 is out of range 1..7"),
        "{}",
        text(&o.stderr)
    );
    let o = score4(&["solve", "--base", "0", "--board", "10x4", "989898"]);
    assert_eq!(text(&o.stdout), "989898 17\n", "{}", text(&o.stderr));
    let o = score4(&["solve", "--base", "0", "--board", "10x4", "9a"]);
    assert!(
        text(&o.stderr).contains("'a' is not a column (--base 0)"),
        "{}",
        text(&o.stderr)
    );
    // Threads and deadlines work there as on the compiled sizes: two
    // threads (which share positions of fewer than 30 moves on 10x6) give
    // one thread's scores, and the empty board, far from solved in a
    // moment, is bounded with the exit status 3.
    let mut lines = String::new();
    while lines.lines().count() < 6 {
        if let Some((moves, _)) = late_game(10, 6, 32, &mut rng) {
            lines.push_str(&moves);
            lines.push('\n');
        }
    }
    let plain = solve_10x6(&lines, &[]).0;
    assert_eq!(solve_10x6(&lines, &["--threads", "2"]).0, plain);
    let o = score4(&["solve", "--board", "10x6", "--timeout", "0.3", ""]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let line = text(&o.stdout);
    let (lower, upper) = line
        .trim()
        .split_once("..")
        .and_then(|(l, u)| Some((l.trim().parse::<i32>().ok()?, u.parse::<i32>().ok()?)))
        .unwrap_or_else(|| panic!("no bounds: {line:?}"));
    assert!(lower < upper && lower >= -30 && upper <= 30, "{line}");
    // A book there is read (this one is missing): said, not ignored.
    let o = score4(&["solve", "--board", "10x6", "--book", "x.book", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot read 'x.book'"), "{err}");
    assert!(!std::path::Path::new("x.book").exists());
}

#[test]
fn bench_checks_labelled_positions_of_another_size() {
    // Positions of a 5x4 game, labelled here by the plain negamax.
    let game = "3324153251412";
    let mut reference = Reference::remembering();
    let mut lines = String::new();
    for len in 4..game.len() {
        let moves = &game[..len];
        let p: Position<5, 4> = moves.parse().expect("a legal game");
        if p.can_win_next() {
            continue;
        }
        lines += &format!("{moves} {}\n", reference.score(&p));
    }
    let dir = std::env::temp_dir().join(format!("score4-board-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("5x4.txt");
    std::fs::write(&good, &lines).unwrap();
    let file = good.display().to_string();
    let o = score4(&["bench", "--board", "5x4", "--json", &file]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["files"][0]["positions"], lines.lines().count());
    assert_eq!(report["files"][0]["wrong"], 0);

    // One label off by one: counted wrong, and the run fails.
    let (first, rest) = lines.split_once('\n').unwrap();
    let (moves, score) = first.split_once(' ').unwrap();
    let bad = dir.join("5x4-bad.txt");
    let off = score.parse::<i32>().unwrap() + 1;
    std::fs::write(&bad, format!("{moves} {off}\n{rest}")).unwrap();
    let o = score4(&[
        "bench",
        "--board",
        "5x4",
        "--json",
        &bad.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["wrong_answers"][0]["moves"], moves);

    // Past 64 bits: late positions of 11x4 and 10x6 labelled by the
    // unpruned negamax, one label off by one.
    let mut rng = Rng::new(411);
    for (w, h) in [(11, 4), (10, 6)] {
        let mut lines = String::new();
        while lines.lines().count() < 8 {
            let Some((moves, g)) = late_game(w, h, 7 + rng.index(4), &mut rng) else {
                continue;
            };
            let best = Naive::new().move_scores(&g).into_iter().flatten().max();
            lines += &format!("{moves} {}\n", best.expect("a game that goes on"));
        }
        let (first, rest) = lines.split_once('\n').unwrap();
        let (moves, score) = first.split_once(' ').unwrap();
        let score: i32 = score.parse().unwrap();
        // Towards zero: a score the position could have.
        let off = if score > 0 { score - 1 } else { score + 1 };
        let file = dir.join(format!("{w}x{h}.txt"));
        std::fs::write(&file, format!("{moves} {off}\n{rest}")).unwrap();
        let size = format!("{w}x{h}");
        let o = score4(&[
            "bench",
            "--board",
            &size,
            "--json",
            &file.display().to_string(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(report["files"][0]["positions"], 8);
        assert_eq!(report["files"][0]["wrong"], 1);
        assert_eq!(report["wrong_answers"][0]["moves"], moves);
        assert_eq!(report["wrong_answers"][0]["got"], score);
        if w <= 10 {
            // The same set as c4's test sets write it, 0-based digits,
            // read with `--base 0` and named back as given.
            let zero = |m: &str| -> String {
                m.chars()
                    .map(|c| {
                        let col = score4::wide::notation::column(c).unwrap();
                        char::from_digit(col as u32 - 1, 10).unwrap()
                    })
                    .collect()
            };
            let lines: String = format!("{moves} {off}\n{rest}")
                .lines()
                .map(|l| {
                    let (m, s) = l.split_once(' ').unwrap();
                    format!("{} {s}\n", zero(m))
                })
                .collect();
            let file = dir.join(format!("{w}x{h}-base0.txt"));
            std::fs::write(&file, lines).unwrap();
            let path = file.display().to_string();
            let o = score4(&["bench", "--board", &size, "--base", "0", "--json", &path]);
            assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
            let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(report["files"][0]["positions"], 8);
            assert_eq!(report["files"][0]["wrong"], 1);
            assert_eq!(report["wrong_answers"][0]["moves"], zero(moves));
            // Read in the notation, the digits name other columns: the
            // labels no longer hold, or the moves are no game.
            let o = score4(&["bench", "--board", &size, "--json", &path]);
            assert!(!o.status.success(), "{}", text(&o.stdout));
        }
    }

    // The 7x6 sets are not a default for other boards.
    let o = score4(&["bench", "--board", "5x4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no default fixture sets for 5x4"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `score4 solve --board 10x6 EXTRA` with `input` on stdin: its output and
/// its errors, once it has succeeded.
fn solve_10x6(input: &str, extra: &[&str]) -> (String, String) {
    let mut args = vec!["solve", "--board", "10x6"];
    args.extend(extra);
    let o =
        score4_testkit::cli::run_with_input(env!("CARGO_BIN_EXE_score4"), &args, input.as_bytes());
    assert!(o.status.success(), "{extra:?}: {}", text(&o.stderr));
    (text(&o.stdout), text(&o.stderr))
}

/// A journal past 64 bits (10x6's keys have 70), on quiet positions (no
/// move gives the opponent a win at once) whose searches are long enough
/// to be kept: kept by one run, read back by a second with the same scores.
#[test]
fn a_journal_past_64_bits_is_kept_and_read_back() {
    let mut rng = Rng::new(0x10_0A5);
    let shape = score4::wide::Shape::new(10, 6).unwrap();
    let mut quiet = String::new();
    while quiet.lines().count() < 3 {
        let mut p = score4::wide::Position::new();
        let mut moves = String::new();
        while p.moves_played() < QUIET_MOVES {
            let safe: Vec<usize> = (0..10)
                .filter(|&c| p.can_play(&shape, c) && !p.after(&shape, c).can_win_next(&shape))
                .collect();
            let Some(&col) = safe.get(rng.index(safe.len().max(1))) else {
                break;
            };
            p.play(&shape, col);
            moves.push(score4::wide::notation::character(col + 1).unwrap());
        }
        if p.moves_played() == QUIET_MOVES && !p.can_win_next(&shape) {
            quiet.push_str(&moves);
            quiet.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal");
    let journal = journal.to_str().unwrap();
    // MOVES SCORE of each line, without --stats' counts and times.
    let run = |extra: &[&str]| {
        let (out, err) = solve_10x6(&quiet, &[&["--stats"], extra].concat());
        let scores: Vec<String> = out
            .lines()
            .map(|line| line.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .collect();
        (scores, err)
    };
    let (quiet_scores, _) = run(&[]);
    let keep = ["--journal", journal, "--journal-min-work", "1000"];
    assert_eq!(run(&keep).0, quiet_scores);
    let (again, said) = run(&keep);
    assert_eq!(again, quiet_scores);
    let read: usize = said
        .split_once("journal: ")
        .and_then(|(_, rest)| rest.split_once(": "))
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(read > 0 && said.contains(" 0 damaged"), "{said}");
}
