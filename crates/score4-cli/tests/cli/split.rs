//! `score4 split`: a solve killed at random moments and started again
//! finishes with the direct solve's score, having redone nothing it had
//! recorded; rounds of jobs over several record files give it too.

use std::collections::HashSet;
use std::fs;

use crate::common::{killed_until_done, score4, text};
use score4::rng::Rng;

fn ok(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// The score `score4 solve` gives the empty board of `board`.
fn direct(board: &str) -> String {
    ok(&score4(&["solve", "--board", board, ""]))
        .trim()
        .to_string()
}

/// `score4 split solve` of the empty `board`, `depth` moves down, with
/// `extra` options, keeping its records in `file`.
fn empty_board_split<'a>(
    board: &'a str,
    depth: &'a str,
    file: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["split", "solve", "-", "--board", board, "--depth", depth];
    args.extend_from_slice(extra);
    args.extend(["--records", file]);
    args
}

/// The record lines of a file whose checksum field is well formed, and
/// how many of them name the same search twice.
fn records(path: &std::path::Path) -> (usize, usize) {
    let bytes = fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let mut seen = HashSet::new();
    let mut lines = 0;
    let mut twice = 0;
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.len() == 3 && fields[2].len() == 16 {
            lines += 1;
            // The position and which side of the window the bound is on
            // name the search (each search is made once per window here).
            if !seen.insert((fields[0].to_string(), fields[1].to_string())) {
                twice += 1;
            }
        }
    }
    (lines, twice)
}

#[test]
fn a_solve_killed_at_random_moments_finishes_with_the_direct_score() {
    let board = "6x6";
    let expected = direct(board);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("records");
    let args = empty_board_split(board, "3", file.to_str().unwrap(), &[]);
    let mut rng = Rng::new(0x5EED_0030);
    let mut last = 0;
    // Killed up to eight times; then left to finish (the whole solve takes
    // about a second, so the first two runs are killed).
    let (finished, kills) = killed_until_done(&args, &mut rng, 8, || {
        let (now, _) = records(&file);
        assert!(now >= last, "records lost: {now} after {last}");
        last = now;
    });
    let score = ok(&finished).trim().to_string();
    assert_eq!(score, expected);
    assert!(kills >= 2, "the solve was killed only {kills} times");
    // Every search recorded before a kill was read back, not made again.
    let (lines, twice) = records(&file);
    assert!(lines > 10, "{lines} records");
    assert_eq!(twice, 0, "searches recorded twice");
    // Run once more: everything is read, nothing searched, same score.
    let again = score4(&args);
    assert_eq!(ok(&again).trim(), expected);
    assert!(
        text(&again.stderr).contains(" 0 damaged"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn rounds_of_jobs_over_several_files_give_the_direct_score() {
    let board = "7x5";
    let expected = direct(board);
    let dir = tempfile::tempdir().unwrap();
    let split = ["-", "--board", board, "--depth", "2"];
    let mut rounds = 0;
    let score = loop {
        let mut plan = vec!["split", "plan"];
        plan.extend(split);
        let files: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path().to_str().unwrap().to_string())
            .collect();
        plan.extend(files.iter().map(String::as_str));
        let out = ok(&score4(&plan));
        if let Some(score) = out.strip_prefix("score ") {
            break score.trim().to_string();
        }
        let jobs: Vec<&str> = out.lines().collect();
        assert!(!jobs.is_empty());
        // Two "machines", each with its own record file.
        for machine in 0..2 {
            let mine: String = jobs
                .iter()
                .skip(machine)
                .step_by(2)
                .map(|j| format!("{j}\n"))
                .collect();
            let out = dir.path().join(format!("part.{rounds}.{machine}"));
            let mut run = vec!["split", "run"];
            run.extend(split);
            run.extend(["--records", out.to_str().unwrap()]);
            let o = score4_testkit::cli::run_with_input(
                env!("CARGO_BIN_EXE_score4"),
                &run,
                mine.as_bytes(),
            );
            ok(&o);
        }
        rounds += 1;
        assert!(rounds < 40, "no end");
    };
    assert_eq!(score, expected);
}

#[test]
fn past_64_bits_and_nine_columns_a_split_gives_the_direct_score() {
    // 11x4, from a root whose moves and jobs name columns 10 and 11 by
    // their letters; the jobs of one round are run, then the solve goes on
    // from their records.
    let board = "11x4";
    let root = "233313b94bb974aa";
    let expected = ok(&score4(&["solve", "--board", board, root]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("records");
    let file = file.to_str().unwrap();
    let split = [root, "--board", board, "--depth", "2"];
    let mut plan = vec!["split", "plan"];
    plan.extend(split);
    let mut run = vec!["split", "run"];
    run.extend(split);
    run.extend(["--records", file]);
    let mut all_jobs = String::new();
    let planned = loop {
        let out = ok(&score4(&plan));
        if let Some(score) = out.strip_prefix("score ") {
            break score.to_string();
        }
        if plan.last() != Some(&file) {
            plan.push(file);
        }
        let o =
            score4_testkit::cli::run_with_input(env!("CARGO_BIN_EXE_score4"), &run, out.as_bytes());
        assert_eq!(ok(&o).lines().count(), out.lines().count());
        all_jobs.push_str(&out);
        assert!(all_jobs.len() < 100_000, "no end");
    };
    assert_eq!(format!("{root} {planned}"), expected);
    let letters = |j: &str| {
        j[root.len()..]
            .split(' ')
            .next()
            .unwrap()
            .contains(['a', 'b'])
    };
    assert!(all_jobs.lines().any(letters), "{all_jobs}");
    // A solve from the same records searches nothing more.
    let mut solve = vec!["split", "solve"];
    solve.extend(split);
    solve.extend(["--records", file]);
    let before = fs::read(file).unwrap();
    assert_eq!(format!("{root} {}", ok(&score4(&solve))), expected);
    assert_eq!(fs::read(file).unwrap(), before);
    let (_, twice) = records(std::path::Path::new(file));
    assert_eq!(twice, 0);
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("records");
    let f = file.to_str().unwrap();
    let cases: [&[&str]; 5] = [
        &["split", "solve", "1212121", "--records", f],
        &["split", "solve", "8", "--records", f],
        &["split", "solve", "44", "--guess", "22", "--records", f],
        &["split", "plan", "44", "--guess", "-21"],
        &[
            "split",
            "plan",
            "44",
            "--depth",
            "1",
            "/nonexistent/records",
        ],
    ];
    for args in cases {
        let o = score4(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("score4: split: "), "{err}");
    }
    // A job that is not one of the split's.
    let o = score4_testkit::cli::run_with_input(
        env!("CARGO_BIN_EXE_score4"),
        &["split", "run", "44", "--depth", "1", "--records", f],
        b"5 3\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("line 1: job 5 3"),
        "{}",
        text(&o.stderr)
    );
    // A line of megabytes is refused at the cap, not read whole.
    let o = score4_testkit::cli::run_with_input(
        env!("CARGO_BIN_EXE_score4"),
        &["split", "run", "44", "--depth", "1", "--records", f],
        &vec![b'4'; 8 << 20],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 1: longer than 1024 bytes"), "{err}");
}

#[test]
fn progress_names_each_search_as_it_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("records");
    let args = [
        "split",
        "solve",
        "-",
        "--board",
        "6x5",
        "--depth",
        "2",
        "--records",
        file.to_str().unwrap(),
        "--progress",
    ];
    let o = score4(&args);
    assert_eq!(ok(&o).trim(), direct("6x5"));
    let stderr = text(&o.stderr);
    let record_lines: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
        .collect();
    // One line per record, in the same order, with the search's window
    // (`MOVES ALPHA BOUND POSITIONS SECONDS`); the positions add up to the
    // run's total.
    let mut said = Vec::new();
    let mut positions = 0u64;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("score4: split: ") {
            let fields: Vec<&str> = rest.split(' ').collect();
            if fields.len() == 5 {
                fields[1].parse::<i32>().expect("alpha");
                fields[4].parse::<f64>().expect("seconds");
                positions += fields[3].parse::<u64>().expect("positions");
                said.push(format!("{} {}", fields[0], fields[2]));
            }
        }
    }
    assert!(!said.is_empty());
    assert_eq!(said, record_lines);
    assert!(
        stderr.contains(&format!(
            "split: {positions} positions searched by this run"
        )),
        "{stderr}"
    );
    // Without the option, only the total.
    fs::remove_file(&file).unwrap();
    let quiet = score4(&args[..args.len() - 1]);
    assert_eq!(text(&quiet.stderr).lines().count(), 1);
}

#[test]
fn a_guess_right_or_wrong_gives_the_direct_score() {
    let board = "6x5";
    let expected = direct(board);
    let dir = tempfile::tempdir().unwrap();
    for guess in ["-2", "0", "3"] {
        let file = dir.path().join(format!("records{guess}"));
        let args = empty_board_split(board, "3", file.to_str().unwrap(), &["--guess", guess]);
        assert_eq!(ok(&score4(&args)).trim(), expected, "--guess {guess}");
    }
}
