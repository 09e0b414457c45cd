//! `--journal`: a solve killed at random moments and started again with
//! the same journal finishes with the plain solve's score, and a solve run
//! again after it searches next to nothing; bad journals are one line and
//! a failed status.

use crate::common::{killed_until_done, score4, text};
use score4::rng::Rng;
use std::fs;

fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// The bound lines of a journal whose fields are all there.
fn bounds(path: &std::path::Path) -> usize {
    let bytes = fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .lines()
        .skip(1)
        .filter(|line| line.split(' ').count() == 7)
        .count()
}

/// `SCORE POSITIONS` of a `--stats` line.
fn score_and_positions(line: &str) -> (String, u64) {
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[0].to_string(), fields[1].parse().unwrap())
}

#[test]
fn a_solve_killed_at_random_moments_finishes_with_the_plain_score() {
    let plain = ok(&score4(&["solve", "--board", "6x6", "--stats", ""]));
    let (expected, searched) = score_and_positions(&plain);
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal");
    let args = [
        "solve",
        "--board",
        "6x6",
        "--stats",
        "--journal",
        journal.to_str().unwrap(),
        "--journal-min-work",
        "20000",
        "",
    ];
    let mut rng = Rng::new(0x5EED_0031);
    let mut last = 0;
    // Killed up to eight times; then left to finish (the whole solve takes
    // about a second, so the first two runs are killed).
    let (finished, kills) = killed_until_done(&args, &mut rng, 8, || {
        let now = bounds(&journal);
        assert!(now >= last, "bounds lost: {now} after {last}");
        last = now;
    });
    let line = ok(&finished);
    assert!(kills >= 2, "the solve was killed only {kills} times");
    assert_eq!(score_and_positions(&line).0, expected);
    // Run once more: the journal holds the root's bounds, so the solve
    // needs next to no search.
    let again = score4(&args);
    let (score, positions) = score_and_positions(&ok(&again));
    assert_eq!(score, expected);
    assert!(positions * 100 < searched, "{positions} of {searched}");
    assert!(
        text(&again.stderr).contains(" 0 damaged"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn bad_journals_are_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other");
    // A journal of the 6x5 board.
    ok(&score4(&[
        "solve",
        "--board",
        "6x5",
        "--journal",
        other.to_str().unwrap(),
        "--journal-min-work",
        "1000",
        "",
    ]));
    let not_one = dir.path().join("not-one");
    fs::write(&not_one, "4453 2\n").unwrap();
    let d = dir.path().to_str().unwrap();
    let o = other.to_str().unwrap();
    let n = not_one.to_str().unwrap();
    let records = dir.path().join("records").to_str().unwrap().to_string();
    let cases: [(&[&str], &str); 6] = [
        (
            &["solve", "--board", "5x6", "--journal", o, ""],
            "not a journal of the 5x6 board",
        ),
        (
            &["solve", "--journal", n, "4453"],
            "not a journal of the 7x6 board",
        ),
        (&["solve", "--journal", d, "4453"], "--journal"),
        (
            &[
                "split",
                "solve",
                "44",
                "--depth",
                "1",
                "--records",
                &records,
                "--journal",
                o,
            ],
            "not a journal of the 7x6 board",
        ),
        (
            &["solve", "--journal-min-work", "5000", "4453"],
            "--journal",
        ),
        (
            &["solve", "--journal", o, "--journal-min-work", "5", "4453"],
            "--journal-min-work",
        ),
    ];
    for (args, says) in cases {
        let out = score4(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
