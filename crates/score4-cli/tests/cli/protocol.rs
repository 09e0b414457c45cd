//! The `score4` binary against the recorded answers of the original and
//! against the reference model, through its stdout and exit status.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

use score4_testkit::classic::{random_grid, tokens, Oracle};
use score4_testkit::{cli, fixtures, Rng};

const BIN: &str = env!("CARGO_BIN_EXE_score4");

fn run(bin: &Path, args: &[String]) -> Output {
    cli::run(bin, args)
}

fn fixture_path() -> PathBuf {
    fixtures::path("score4-protocol-sample.jsonl")
}

/// One recorded case: arguments, exit status, stdout.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    args: Vec<String>,
    exit: i32,
    stdout: String,
}

#[test]
fn every_recorded_answer_is_reproduced() {
    let text = std::fs::read_to_string(fixture_path()).expect("fixture file");
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(cases.len(), 40);
    for case in &cases {
        let out = run(Path::new(BIN), &case.args);
        assert_eq!(
            (
                String::from_utf8_lossy(&out.stdout).as_ref(),
                out.status.code()
            ),
            (case.stdout.as_str(), Some(case.exit)),
            "args {:?}",
            case.args
        );
        assert!(
            out.stderr.is_empty(),
            "the original writes nothing to stderr"
        );
    }
}

#[test]
fn random_boards_match_the_model_through_stdout() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(11);
    for i in 0..300 {
        let level = 1 + (i % 6) as u32;
        let debug = i % 2 == 0;
        let discs = rng.below(43) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let mut args = tokens(&g, &mut rng);
        // Flags at a random place among the cells.
        if debug {
            let at = rng.below(args.len() as u64 + 1) as usize;
            args.insert(at, "-debug".into());
        }
        let at = rng.below(args.len() as u64 + 1) as usize;
        args.insert(at, level.to_string());
        args.insert(at, "-level".into());
        let (expected, status) = oracle.run(&g, level, debug);
        assert_answers(&args, &expected, status as i32);
    }
}

#[test]
fn deep_levels_print_the_level_given() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(13);
    let mut searched = 0;
    while searched < 30 {
        let discs = 34 + rng.below(9) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        if g.iter().flatten().filter(|&&c| c != 0).count() < 34 {
            continue;
        }
        let level = [100, 999, 32767][searched % 3];
        searched += 1;
        let mut args = tokens(&g, &mut rng);
        args.extend(["-debug".into(), "-level".into(), level.to_string()]);
        let (expected, status) = oracle.run(&g, level, true);
        assert_answers(&args, &expected, status as i32);
    }
}

/// A copy of the binary named as a driver expects it, in a directory of
/// its own (tests run in parallel and each removes its copy).
fn engine_exe() -> (PathBuf, PathBuf) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("score4-protocol-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join("engine.exe");
    std::fs::copy(BIN, &exe).expect("copy the binary");
    (dir, exe)
}

#[test]
fn under_another_name_it_speaks_the_engine_protocol() {
    let (dir, exe) = engine_exe();
    let oracle = Oracle::new();
    let empty = [[0i8; 7]; 6];
    let (expected, status) = oracle.run(&empty, 7, false);
    let out = run(&exe, &[]);
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).as_ref(),
            out.status.code()
        ),
        (expected.as_str(), Some(status as i32)),
        "zero arguments mean the empty board"
    );
    let args: Vec<String> = ["o53", "y43", "-debug"].map(String::from).to_vec();
    let mut g = empty;
    g[5][3] = 1;
    g[4][3] = -1;
    let out = run(&exe, &args);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        oracle.run(&g, 7, true).0
    );
    // The real name with the explicit subcommand and with a flag first.
    let out = run(
        Path::new(BIN),
        &["engine".into(), "o53".into(), "y43".into()],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        oracle.run(&g, 7, false).0
    );
    let out = run(
        Path::new(BIN),
        &["-level".into(), "2".into(), "o53".into(), "y43".into()],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        oracle.run(&g, 2, false).0
    );
    std::fs::remove_dir_all(dir).expect("clean up");
}

#[test]
fn malformed_input_is_rejected_naming_the_token() {
    let cases: &[(&[&str], &str)] = &[
        (&["o53", "y33"], "y33"),
        (&["o43"], "o43"),
        (&["o53", "o53"], "o53"),
        (&["o53", "y53"], "y53"),
        (&["o63"], "o63"),
        (&["o93"], "o93"),
        (&["o57"], "o57"),
        (&["o5"], "o5"),
        (&["o533", "-verbose"], "o533"),
        (&["hello", "yes"], "yes"),
        (&["o53", "-level"], "-level"),
        (&["-level", "seven", "o53"], "seven"),
        (&["-level", "0"], "'0'"),
        (&["-level", "32768"], "32768"),
        (&["-level", "-1"], "-1"),
        (&["o53", "-level", "5", "-level"], "-level"),
    ];
    for &(args, token) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let subcommand: Vec<String> = std::iter::once("engine".to_string())
            .chain(args.iter().cloned())
            .collect();
        let (dir, exe) = engine_exe();
        for (bin, args) in [(Path::new(BIN), &subcommand), (exe.as_path(), &args)] {
            let out = run(bin, args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "args {args:?}");
            assert!(out.stdout.is_empty(), "args {args:?}");
            assert_eq!(stderr.lines().count(), 1, "args {args:?}: {stderr}");
            assert!(stderr.contains(token), "args {args:?}: {stderr}");
        }
        std::fs::remove_dir_all(dir).expect("clean up");
    }
}

#[test]
fn unknown_tokens_are_ignored_as_by_the_original() {
    let oracle = Oracle::new();
    let mut rng = Rng::new(12);
    let noise = [
        "hello", "-verbose", "x53", "-Debug", "--level", "12", "", "O53", "-",
    ];
    let (dir, exe) = engine_exe();
    for i in 0..40 {
        let discs = rng.below(43) as usize;
        let g = random_grid(&oracle, &mut rng, discs);
        let mut args = tokens(&g, &mut rng);
        if i % 2 == 0 {
            args.push("-debug".into());
        }
        let (expected, status) = oracle.run(&g, 7, i % 2 == 0);
        let mut noisy = args.clone();
        for token in noise {
            let at = rng.below(noisy.len() as u64 + 1) as usize;
            noisy.insert(at, token.to_string());
        }
        let subcommand: Vec<String> = std::iter::once("engine".to_string())
            .chain(noisy.iter().cloned())
            .collect();
        for (bin, args) in [
            (exe.as_path(), &args),
            (exe.as_path(), &noisy),
            (Path::new(BIN), &subcommand),
        ] {
            let out = run(bin, args);
            assert_eq!(
                (
                    String::from_utf8_lossy(&out.stdout).as_ref(),
                    out.status.code()
                ),
                (expected.as_str(), Some(status as i32)),
                "args {args:?}"
            );
            assert!(out.stderr.is_empty(), "args {args:?}");
        }
    }
    std::fs::remove_dir_all(dir).expect("clean up");
}

/// Runs the binary with `args` and checks its stdout and exit status.
fn assert_answers(args: &[String], expected: &str, status: i32) {
    let out = run(Path::new(BIN), args);
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).as_ref(),
            out.status.code()
        ),
        (expected, Some(status)),
        "args {args:?}"
    );
}

#[test]
fn the_engine_subcommand_has_help_and_the_protocol_ignores_it_later() {
    for flag in ["--help", "-h"] {
        let out = run(Path::new(BIN), &["engine".to_string(), flag.to_string()]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert!(
            help.contains("-perfect") && help.contains("-level"),
            "{help}"
        );
    }
    // After a cell, as under any name, `--help` is an unknown token.
    let args = ["o53".to_string(), "--help".to_string()];
    let with = run(Path::new(BIN), &args);
    let without = run(Path::new(BIN), &args[..1]);
    assert_eq!(with.stdout, without.stdout);
    assert_eq!(with.status.code(), without.status.code());
    let (dir, exe) = engine_exe();
    let renamed = run(&exe, &["--help".to_string()]);
    let plain = run(&exe, &[]);
    assert_eq!(renamed.stdout, plain.stdout);
    std::fs::remove_dir_all(dir).expect("clean up");
}
