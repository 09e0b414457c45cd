//! `score4 solve` as a user runs it: arguments, stdin, output formats and
//! what happens to bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
