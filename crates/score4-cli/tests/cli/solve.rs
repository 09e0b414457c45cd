//! `score4 solve` as a user runs it: arguments, stdin, output formats and
//! what happens to bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use score4_testkit::positions::random_moves;
use score4_testkit::Rng;

/// Runs `score4 solve` with `args`, feeding `stdin` if given.
fn solve(args: &[&str], stdin: Option<&str>) -> Output {
    solve_bytes(args, stdin.map(str::as_bytes))
}

/// Runs `score4 solve` with `args`, feeding `stdin` (any bytes) if given.
fn solve_bytes(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_score4"))
        .arg("solve")
        .args(["--table-mb", "8"])
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(text)
            .expect("write stdin");
    }
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8")
}

// Labelled fixture data (fixtures/solver/ply33-40.txt and ply23-32.txt).
// Columns 3, 4 and 5 of A are full.
const A: &str = "63534435444553512147632236572167167";
const A_SCORE: &str = "1";
const B: &str = "15433341343131465416775";
const B_SCORE: &str = "9";
const C: &str = "3574632736557124642755434345767263162112";

#[test]
fn positions_as_arguments() {
    let o = solve(&[A, B], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{A} {A_SCORE}\n{B} {B_SCORE}\n"));
}

#[test]
fn positions_from_stdin_in_order() {
    // Only the first field counts, so fixture lines can be fed as they are.
    let o = solve(&[], Some(&format!("{B}\n{A} 3\n445566\n")));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("{B} {B_SCORE}\n{A} {A_SCORE}\n445566 18\n")
    );
}

#[test]
fn weak_prints_the_sign() {
    let o = solve(&["--weak", A, B, C, "4455661"], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o), format!("{A} 1\n{B} 1\n{C} 0\n4455661 -1\n"));
}

#[test]
fn analyze_prints_every_column() {
    // Columns 3 and 7 win at once with the 4th disc (18); any other move
    // keeps both threats and wins with the 5th (17).
    let o = solve(&["--analyze", "445566"], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "445566 17 17 18 17 17 17 18\n");
    // A full column has no score; the best move keeps the position's score.
    let o = solve(&["--analyze"], Some(&format!("{A}\n")));
    let line = stdout(&o);
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields.len(), 8, "{line}");
    assert_eq!(fields[0], A);
    assert_eq!(&fields[3..6], &["-", "-", "-"]);
    let scores: Vec<i32> = [1, 2, 6, 7]
        .iter()
        .map(|&i| fields[i].parse().expect("score"))
        .collect();
    assert_eq!(
        scores.iter().max().map(|s| s.to_string()).as_deref(),
        Some(A_SCORE)
    );
}

#[test]
fn stats_append_nodes_and_microseconds() {
    let o = solve(&["--stats", A], None);
    assert!(o.status.success());
    let line = stdout(&o);
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields.len(), 4, "{line}");
    assert_eq!(&fields[..2], &[A, A_SCORE]);
    assert!(fields[2].parse::<u64>().expect("nodes") > 0);
    fields[3].parse::<u64>().expect("microseconds");
}

#[test]
fn probes_list_every_search() {
    for (args, windows) in [
        (&["--stats", "--probes", B][..], "null"),
        (&["--stats", "--probes", "--weak", B][..], "weak"),
    ] {
        let o = solve(args, None);
        assert!(o.status.success());
        let line = stdout(&o);
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(fields.len() > 4, "{line}");
        let nodes: u64 = fields[2].parse().expect("nodes");
        let mut sum = 0;
        for probe in &fields[4..] {
            // ALPHA..BETA=RESULT/POSITIONS
            let (window, rest) = probe.split_once('=').expect("=");
            let (alpha, beta) = window.split_once("..").expect("..");
            let (alpha, beta): (i32, i32) = (alpha.parse().unwrap(), beta.parse().unwrap());
            let (result, searched) = rest.split_once('/').expect("/");
            result.parse::<i32>().expect("result");
            sum += searched.parse::<u64>().expect("positions");
            match windows {
                "null" => assert_eq!(beta, alpha + 1, "{line}"),
                _ => assert_eq!((alpha, beta), (-1, 1), "{line}"),
            }
        }
        assert_eq!(sum, nodes, "{line}");
    }
    // Answered from the book: no search.
    let o = solve(&["--probes", "4"], None);
    assert_eq!(stdout(&o), "4 -1\n");
}

#[test]
fn bad_lines_are_reported_and_skipped() {
    let input = format!("{A}\n44a4\n48\n4444444\n12121213\n1212121\n{B}\n");
    let o = solve(&[], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!("{A} {A_SCORE}\n\n\n\n\n\n{B} {B_SCORE}\n"),
        "one line out per line in, bad ones empty"
    );
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{err}");
    for (line, (number, position, needle)) in lines.iter().zip([
        (2, "44a4", "move 3"),
        (3, "48", "move 2"),
        (4, "4444444", "move 7"),
        (5, "12121213", "move 8"),
        (6, "1212121", "move 7"),
    ]) {
        assert!(line.contains(&format!("line {number}")), "{line}");
        assert!(line.contains(position), "{line}");
        assert!(line.contains(needle), "{line}");
    }
}

#[test]
fn full_board_is_rejected() {
    // A drawn game: every column filled, nobody with four in a row.
    let full = "547125662261271266215743771576315353334444";
    let o = solve(&[full], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "\n");
    let err = stderr(&o);
    assert!(
        err.contains("argument 1") && err.contains(full) && err.contains("full"),
        "{err}"
    );
}

#[test]
fn a_line_that_is_not_utf8_is_reported_and_skipped() {
    let mut input = format!("{A}\n").into_bytes();
    input.extend_from_slice(b"44\xff5\n");
    input.extend_from_slice(format!("{B}\r\n").as_bytes());
    let o = solve_bytes(&[], Some(&input));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("{A} {A_SCORE}\n\n{B} {B_SCORE}\n"));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 2") && err.contains("UTF-8"), "{err}");
}

/// The positions of a labelled set, every `step`-th.
fn positions(text: &str, step: usize) -> Vec<String> {
    text.lines()
        .step_by(step)
        .map(|line| line.split(' ').next().expect("moves").to_string())
        .collect()
}

/// Positions of random games on the `W` x `H` board, none of them over,
/// each at least `from` moves in.
fn random_positions<const W: usize, const H: usize>(
    count: usize,
    seed: u64,
    from: u32,
) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let len = from + rng.below(u64::from((W * H) as u32 - 1 - from)) as u32;
            random_moves::<W, H>(&mut rng, len).0
        })
        .collect()
}

/// What the solver's analysis says of a position: its score and its best
/// columns, numbered from 1.
fn analysed<const W: usize, const H: usize>(
    solver: &mut score4::Solver<W, H>,
    moves: &str,
) -> (i32, Vec<usize>) {
    let p = score4::Position::<W, H>::parse(moves).expect("parses");
    let scores = solver.analyze(&p);
    let score = scores.iter().flatten().max().copied().expect("a move");
    let best = (1..).zip(scores).filter(|(_, s)| *s == Some(score));
    (score, best.map(|(c, _)| c).collect())
}

/// The columns of `best moves 2, 4 and 6` or `best move 4`.
fn listed_columns(text: &str) -> Vec<usize> {
    let list = text
        .strip_prefix("best moves ")
        .or_else(|| text.strip_prefix("best move "))
        .unwrap_or_else(|| panic!("no best moves in {text:?}"));
    list.split([',', ' '])
        .filter(|w| !w.is_empty() && *w != "and")
        .map(|c| c.parse().expect("a column"))
        .collect()
}

/// The score the convention gives a win with the winner's `disc`-th disc,
/// told as the help tells it: one more than the discs the winner has left,
/// the first player having the odd disc of an odd board.
fn convention(cells: usize, winner_first: bool, disc: usize) -> i32 {
    let discs = if winner_first {
        cells.div_ceil(2)
    } else {
        cells / 2
    };
    (discs + 1 - disc) as i32
}

/// Checks `--best` and `--explain` against the solver's analysis on the
/// `W` x `H` board for `positions`.
fn best_and_explain_match_analysis<const W: usize, const H: usize>(positions: &[String]) {
    let board = format!("{W}x{H}");
    let input = positions.join("\n") + "\n";
    let best = solve(&["--board", &board, "--best"], Some(&input));
    let explained = solve(&["--board", &board, "--explain"], Some(&input));
    assert!(best.status.success(), "{}", stderr(&best));
    assert!(explained.status.success(), "{}", stderr(&explained));
    let (best, explained) = (stdout(&best), stdout(&explained));
    assert_eq!(best.lines().count(), positions.len());
    assert_eq!(explained.lines().count(), positions.len());
    let mut solver = score4::Solver::<W, H>::with_table_mb(8);
    for ((moves, best), explained) in positions.iter().zip(best.lines()).zip(explained.lines()) {
        let (score, columns) = analysed(&mut solver, moves);
        // --best: the position, then every best column in increasing order.
        let mut fields = best.split(' ');
        assert_eq!(fields.next(), Some(moves.as_str()), "{best}");
        let got: Vec<usize> = fields.map(|c| c.parse().expect("column")).collect();
        assert_eq!(got, columns, "{best}");
        // --explain: who moves, who wins with which disc, the score, the
        // same best moves.
        let label = if moves.is_empty() {
            "the empty board"
        } else {
            moves
        };
        let rest = explained
            .strip_prefix(&format!("{label}: "))
            .unwrap_or_else(|| panic!("{explained}"));
        let (verdict, listed) = rest.split_once("; ").expect("; ");
        assert_eq!(listed_columns(listed), columns, "{explained}");
        assert!(
            verdict.ends_with(&format!(" (score {score})")),
            "{explained}"
        );
        let mover_first = moves.len() % 2 == 0;
        let mover = if mover_first { "first" } else { "second" };
        let other = if mover_first { "second" } else { "first" };
        let verdict = verdict
            .strip_prefix(&format!("the {mover} player (to move) "))
            .unwrap_or_else(|| panic!("{explained}"));
        let disc = |text: &str| -> usize {
            let number = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            number.parse().unwrap_or_else(|_| panic!("{explained}"))
        };
        let cells = W * H;
        if score == 0 {
            assert!(verdict.starts_with("draws "), "{explained}");
        } else if score > 0 {
            let k = verdict
                .strip_prefix("wins with its ")
                .and_then(|v| v.split(' ').next())
                .unwrap_or_else(|| panic!("{explained}"));
            assert_eq!(
                convention(cells, mover_first, disc(k)),
                score,
                "{explained}"
            );
        } else {
            let k = verdict
                .strip_prefix(&format!("loses to the {other} player's "))
                .and_then(|v| v.split(' ').next())
                .unwrap_or_else(|| panic!("{explained}"));
            assert_eq!(
                -convention(cells, !mover_first, disc(k)),
                score,
                "{explained}"
            );
        }
    }
}

#[test]
fn best_and_explain_agree_with_the_analysis_on_7x6() {
    let mut sample = vec![String::new()];
    for (text, step) in [
        (include_str!("../../../../fixtures/solver/ply4-8.txt"), 20),
        (include_str!("../../../../fixtures/solver/ply15-22.txt"), 10),
        (include_str!("../../../../fixtures/solver/ply23-32.txt"), 8),
        (include_str!("../../../../fixtures/solver/ply33-40.txt"), 5),
    ] {
        sample.extend(positions(text, step));
    }
    best_and_explain_match_analysis::<7, 6>(&sample);
}

#[test]
fn best_and_explain_agree_with_the_analysis_on_odd_and_small_boards() {
    best_and_explain_match_analysis::<5, 5>(&random_positions::<5, 5>(60, 7, 0));
    best_and_explain_match_analysis::<4, 4>(&random_positions::<4, 4>(60, 11, 0));
    best_and_explain_match_analysis::<7, 5>(&random_positions::<7, 5>(30, 13, 6));
}

#[test]
fn best_and_explain_refuse_what_solve_refuses() {
    let full = "547125662261271266215743771576315353334444";
    for mode in ["--best", "--explain"] {
        let o = solve(&[mode, "445566", "1212121", full], None);
        assert_eq!(o.status.code(), Some(1), "{mode}");
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{mode}: {out}");
        assert!(lines[0].starts_with("445566"), "{mode}: {out}");
        assert_eq!(&lines[1..], ["", ""], "{mode}");
        assert_eq!(stderr(&o).lines().count(), 2, "{mode}");
    }
    // One line per position: the counts of --stats and --probes would
    // make a --best line ambiguous, and --explain is for reading.
    for args in [
        &["--best", "--stats", "4"][..],
        &["--explain", "--probes", "4"],
        &["--best", "--explain", "4"],
        &["--best", "--analyze", "4"],
        &["--weak", "--explain", "4"],
    ] {
        let o = solve(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}");
    }
}

#[test]
fn an_argument_with_spaces_is_refused() {
    for bad in ["4 4 5 3", "4453 -2", "4453\t", " 4453"] {
        let o = solve(&[A, bad, B], None);
        assert_eq!(o.status.code(), Some(1), "{bad:?}");
        assert_eq!(stdout(&o), format!("{A} {A_SCORE}\n\n{B} {B_SCORE}\n"));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("score4: argument 2: '") && err.contains("spaces"),
            "{err}"
        );
    }
    // A line of stdin is still read up to its first space.
    let o = solve(&[], Some("4453 -2\n"));
    assert_eq!(stdout(&o), "4453 -2\n");
}

#[test]
fn help_explains_scores_and_its_examples_are_what_solve_prints() {
    let o = Command::new(env!("CARGO_BIN_EXE_score4"))
        .args(["solve", "--help"])
        .output()
        .expect("runs");
    assert!(o.status.success());
    let help = stdout(&o);
    assert!(help.contains("22 - k") && help.contains("k - 22"), "{help}");
    let examples = help.split("Examples:\n").nth(1).expect("examples");
    let mut run = 0;
    let mut lines = examples.lines().map(str::trim).peekable();
    while let Some(line) = lines.next() {
        let Some(command) = line.strip_prefix("$ score4 ") else {
            continue;
        };
        let mut expected = String::new();
        while let Some(out) = lines.next_if(|l| !l.starts_with('$') && !l.is_empty()) {
            expected += out;
            expected += "\n";
        }
        let args: Vec<&str> = command.split(' ').collect();
        let o = Command::new(env!("CARGO_BIN_EXE_score4"))
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(stdout(&o), expected, "{command}");
        run += 1;
    }
    assert!(run >= 3, "{examples}");
}

/// The first `n` positions of a fixture set, with their labels.
fn fixture(name: &str, n: usize) -> Vec<(String, i32)> {
    let path = format!(
        "{}/../../fixtures/solver/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .expect("the fixture")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(n)
        .map(|l| {
            let (moves, score) = l.split_once(' ').expect("MOVES SCORE");
            (moves.to_string(), score.trim().parse().expect("a score"))
        })
        .collect()
}

/// A field of `solve --timeout`: the bounds it states, and whether it is
/// one score.
fn bounds(field: &str) -> ((i32, i32), bool) {
    match field.split_once("..") {
        Some((lo, hi)) => {
            let range = (lo.parse().expect("LO"), hi.parse().expect("HI"));
            assert!(range.0 < range.1, "{field}: an empty or exact range");
            (range, false)
        }
        None => {
            let s = field.parse().expect("a score");
            ((s, s), true)
        }
    }
}

#[test]
fn timeout_with_time_to_spare_answers_as_without() {
    let mut positions: Vec<String> = fixture("ply15-22.txt", 4)
        .into_iter()
        .chain(fixture("ply33-40.txt", 4))
        .map(|(m, _)| m)
        .collect();
    // Positions of the book, answered from it.
    positions.extend(["4453", "", "445566"].map(String::from));
    let positions: Vec<&str> = positions.iter().map(String::as_str).collect();
    for flags in [&[][..], &["--weak"], &["--analyze"]] {
        let plain = solve(&[flags, &positions[..]].concat(), None);
        let timed = solve(
            &[flags, &["--timeout", "600"], &positions[..]].concat(),
            None,
        );
        assert_eq!(stdout(&timed), stdout(&plain), "{flags:?}");
        assert_eq!(timed.status.code(), Some(0), "{flags:?}");
    }
}

#[test]
fn timeout_prints_bounds_that_hold_the_score() {
    // Searches of a few hundred milliseconds each, cut at 20 ms: each is
    // settled or not by then depending on the machine, and whichever it
    // is, what is printed must hold the exact score.
    let set = fixture("ply9-14.txt", 6);
    let positions: Vec<&str> = set.iter().map(|(m, _)| m.as_str()).collect();
    let exact = solve(&[&["--analyze"], &positions[..]].concat(), None);
    let exact: Vec<Vec<String>> = stdout(&exact)
        .lines()
        .map(|l| l.split(' ').skip(1).map(String::from).collect())
        .collect();
    for flags in [&[][..], &["--weak"], &["--analyze"]] {
        let o = solve(
            &[flags, &["--timeout", "0.02"], &positions[..]].concat(),
            None,
        );
        let out = stdout(&o);
        let mut all_settled = true;
        for (i, line) in out.lines().enumerate() {
            let (moves, label) = &set[i];
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields[0], moves, "{line}");
            let truths: Vec<Option<i32>> = if flags == ["--analyze"] {
                exact[i].iter().map(|s| s.parse().ok()).collect()
            } else if flags == ["--weak"] {
                vec![Some(label.signum())]
            } else {
                vec![Some(*label)]
            };
            assert_eq!(fields.len() - 1, truths.len(), "{line}");
            for (field, truth) in fields[1..].iter().zip(truths) {
                match truth {
                    None => assert_eq!(*field, "-", "{line}"),
                    Some(truth) => {
                        let ((lo, hi), settled) = bounds(field);
                        assert!((lo..=hi).contains(&truth), "{line}: {truth}");
                        all_settled &= settled;
                    }
                }
            }
        }
        assert_eq!(out.lines().count(), set.len(), "{out}");
        let expected = if all_settled { 0 } else { 3 };
        assert_eq!(o.status.code(), Some(expected), "{flags:?}: {out}");
    }
}

#[test]
fn timeout_on_a_position_of_hours_prints_its_bounds() {
    // The empty 8x7 board: a first player's win with the 53rd disc, by the
    // published results, which take the solver hours.
    let published = std::fs::read_to_string(format!(
        "{}/../../fixtures/board-sizes.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let disc: i32 = published
        .lines()
        .find_map(|l| l.strip_prefix("8x7 first "))
        .expect("8x7 in the published results")
        .trim()
        .parse()
        .unwrap();
    let score = 1 + (56 - disc) / 2;
    let o = solve(&["--board", "8x7", "--timeout", "0.2", ""], None);
    assert_eq!(o.status.code(), Some(3));
    let out = stdout(&o);
    let field = out.trim_start().trim_end();
    let ((lo, hi), settled) = bounds(field);
    assert!(!settled && (lo..=hi).contains(&score), "{out}");
    // The sign's bounds, and every column's.
    let o = solve(&["--board", "8x7", "--timeout", "0.2", "--weak", ""], None);
    assert_eq!(o.status.code(), Some(3));
    let ((lo, hi), _) = bounds(stdout(&o).trim());
    assert!(-1 <= lo && lo < hi && hi <= 1 && hi == 1, "{}", stdout(&o));
    let o = solve(
        &["--board", "8x7", "--timeout", "0.2", "--analyze", "4"],
        None,
    );
    assert_eq!(o.status.code(), Some(3));
    let out = stdout(&o);
    let fields: Vec<&str> = out.trim_end().split(' ').collect();
    assert_eq!(fields.len(), 9, "{out}");
    assert!(fields[1..].iter().any(|f| f.contains("..")), "{out}");
    // A position refused besides: its status says more than one unsettled.
    let o = solve(&["--board", "8x7", "--timeout", "0.2", "", "9"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().nth(1), Some(""));
}

#[test]
fn timeout_takes_seconds_and_a_question_it_can_bound() {
    for (args, words) in [
        (&["--timeout", "0", "4"][..], "from 0.001 to 604800"),
        (&["--timeout", "-1", "4"], "from 0.001 to 604800"),
        (&["--timeout", "soon", "4"], "from 0.001 to 604800"),
        (&["--timeout", "1", "--best", "4"], "cannot be used with"),
        (&["--timeout", "1", "--explain", "4"], "cannot be used with"),
        (&["--timeout", "1", "--probes", "4"], "cannot be used with"),
    ] {
        let o = solve(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--timeout") && err.contains(words), "{err}");
    }
}

/// `--progress` shows on stderr, as a solve goes, ranges that hold the
/// score, each within the last; stdout is what the plain solve prints.
#[test]
fn progress_shows_the_proven_range_as_the_solve_goes() {
    // A position of `ply4-8.txt`: a second or so of search without the book.
    let p = "35676";
    let plain = solve(&["--no-book", p], None);
    let o = solve(&["--no-book", "--progress", "0.02", p], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&plain));
    let score: i32 = stdout(&o)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let shown: Vec<(i32, i32)> = stderr(&o)
        .lines()
        .map(|line| {
            let rest = line
                .strip_prefix(&format!("score4: progress: '{p}': "))
                .unwrap_or_else(|| panic!("not a progress line: {line}"));
            let range = rest
                .split("score ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap();
            let (lower, upper) = range.split_once("..").unwrap();
            (lower.parse().unwrap(), upper.parse().unwrap())
        })
        .collect();
    assert!(!shown.is_empty(), "nothing shown");
    for (i, &(lower, upper)) in shown.iter().enumerate() {
        assert!(
            lower <= score && score <= upper,
            "{lower}..{upper} misses {score}"
        );
        if i > 0 {
            let (last_lower, last_upper) = shown[i - 1];
            assert!(last_lower <= lower && upper <= last_upper);
        }
    }
    // A stderr that cannot be written loses the progress lines, never the
    // answer, and panics nothing.
    #[cfg(target_os = "linux")]
    {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = Command::new(env!("CARGO_BIN_EXE_score4"))
            .args([
                "solve",
                "--table-mb",
                "8",
                "--no-book",
                "--progress",
                "0.02",
                p,
            ])
            .stdin(Stdio::null())
            .stderr(full)
            .output()
            .expect("the binary runs");
        assert!(o.status.success(), "{:?}", o.status);
        assert_eq!(stdout(&o), stdout(&plain));
    }
    // Only for the score itself.
    for other in ["--analyze", "--weak", "--best"] {
        let o = solve(&["--progress", "1", other, p], None);
        assert_eq!(o.status.code(), Some(2), "{other}");
        assert!(stderr(&o).contains("--progress"), "{other}: {}", stderr(&o));
    }
}
