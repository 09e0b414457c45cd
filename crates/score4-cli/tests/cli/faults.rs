//! Output faults and hostile input, for every command: a stdout whose
//! reader goes away ends a command quietly, a stdout closed from the start
//! and a full disk are one line on stderr and status 2, and nothing ever
//! panics or echoes raw bytes.
//!
//! Every command the binary has is in [`every_command`]: a command added
//! later belongs there, so that it inherits these checks.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use score4_testkit::Scratch;

const BIN: &str = env!("CARGO_BIN_EXE_score4");

// Labelled fixture data (fixtures/solver/ply33-40.txt).
const A: &str = "63534435444553512147632236572167167";
const A_SCORE: &str = "1";
const B: &str = "3574632736557124642755434345767263162112";

/// The file `name`, holding `text`, in a fresh directory, which goes when
/// the first value is dropped.
fn scratch(name: &str, text: &[u8]) -> (Scratch, PathBuf) {
    let dir = Scratch::new("faults");
    let file = dir.join(name);
    std::fs::write(&file, text).expect("write");
    (dir, file)
}

/// One invocation: arguments, and what it reads on stdin.
struct Case {
    args: Vec<String>,
    stdin: &'static str,
}

/// Every command, each with output to write: engine protocol (bare, named,
/// perfect), solve (arguments, stdin, analysis), bench (table, JSON), help
/// and version; and the directory of the set bench reads.
fn every_command() -> (Scratch, Vec<Case>) {
    let (dir, fixture) = scratch("set.txt", format!("{A} {A_SCORE}\n").as_bytes());
    let fixture = fixture.display().to_string();
    let case = |args: &[&str], stdin| Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin,
    };
    let cases = vec![
        case(&["o53", "y43"], ""),
        case(&["engine", "o53", "y43", "-level", "3", "-debug"], ""),
        case(
            &["o53", "y43", "o52", "y42", "o51", "-perfect", "-debug"],
            "",
        ),
        case(&["solve", A, B], ""),
        case(
            &["solve"],
            "4453445544\n63534435444553512147632236572167167\n",
        ),
        case(&["solve", "--analyze", "--stats", A], ""),
        case(&["solve", "--timeout", "60", "--analyze", A], ""),
        case(&["solve", "--best", A, "4453"], ""),
        case(
            &["solve", "--explain"],
            "4453\n63534435444553512147632236572167167\n",
        ),
        case(&["engine", "--help"], ""),
        case(&["bench", &fixture], ""),
        case(&["bench", "--json", &fixture], ""),
        case(&["--help"], ""),
        case(&["solve", "--help"], ""),
        case(&["--version"], ""),
    ];
    (dir, cases)
}

/// Runs `case` with stdout and stderr going where given.
fn run(case: &Case, stdout: Stdio, stderr: Stdio) -> Output {
    let mut child = Command::new(BIN)
        .args(&case.args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    // The command may end before reading all of its input.
    let _ = stdin.write_all(case.stdin.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("the binary finishes")
}

fn normal(case: &Case) -> Output {
    run(case, Stdio::piped(), Stdio::piped())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A pipe nobody reads: writing to it fails with a broken pipe at once.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

fn full_device() -> Stdio {
    Stdio::from(
        File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

#[test]
fn every_command_has_output_to_lose() {
    let (_dir, cases) = every_command();
    for case in cases {
        let o = normal(&case);
        assert!(!o.stdout.is_empty(), "{:?}", case.args);
        assert!(o.stderr.is_empty(), "{:?}: {}", case.args, text(&o.stderr));
    }
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let (_dir, cases) = every_command();
    for case in cases {
        let expected = normal(&case).status.code();
        let o = run(&case, closed_pipe(), Stdio::piped());
        assert_eq!(o.status.code(), expected, "{:?}", case.args);
        assert!(o.stderr.is_empty(), "{:?}: {}", case.args, text(&o.stderr));
    }
}

#[test]
fn a_stdout_closed_from_the_start_refuses_every_command() {
    let (_dir, cases) = every_command();
    for case in cases {
        // The shell closes descriptor 1 and runs the binary in its place.
        let o = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(BIN)
            .args(&case.args)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("sh runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{:?}: {err}", case.args);
        assert_eq!(
            err, "score4: standard output is closed: there is nowhere to write the answers\n",
            "{:?}",
            case.args
        );
    }
}

#[test]
fn a_full_disk_is_an_error_for_every_command() {
    let (_dir, cases) = every_command();
    for case in cases {
        let o = run(&case, full_device(), Stdio::piped());
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{:?}: {err}", case.args);
        assert_eq!(err.lines().count(), 1, "{:?}: {err}", case.args);
        assert!(err.contains("cannot write"), "{:?}: {err}", case.args);
    }
}

#[test]
fn a_full_stderr_leaves_the_status() {
    // Each of these has an error to report and nowhere to report it.
    let (_dir, file) = scratch("missing-dir", b"");
    let missing = file.join("no-such-file.txt");
    let cases: [(&[&str], Option<i32>); 5] = [
        (&["solve", "0", A], Some(1)),
        (&["o5"], Some(2)),
        (&["solve", "--board", "99x9"], Some(2)),
        (&["bench", &missing.display().to_string()], Some(2)),
        (&[], Some(2)),
    ];
    for (args, status) in cases {
        let case = Case {
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: "",
        };
        let o = run(&case, Stdio::piped(), full_device());
        assert_eq!(o.status.code(), status, "{args:?}");
    }
    let case = Case {
        args: vec!["solve".into(), "0".into(), A.into()],
        stdin: "",
    };
    let o = run(&case, Stdio::piped(), full_device());
    assert_eq!(text(&o.stdout), format!("\n{A} {A_SCORE}\n"));
}

#[test]
fn a_bad_argument_is_one_error_and_the_rest_are_solved() {
    let bad = OsStr::from_bytes(b"12\xff");
    let o = Command::new(BIN)
        .arg("solve")
        .arg(A)
        .arg(bad)
        .arg(A)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), format!("{A} {A_SCORE}\n\n{A} {A_SCORE}\n"));
    let err = text(&o.stderr);
    assert_eq!(err, "score4: argument 2: '12\\xff': not valid UTF-8\n");
}

/// Whether `err` is one line of printable text.
fn is_one_clean_line(err: &str) -> bool {
    err.lines().count() == 1 && !err.trim_end_matches('\n').chars().any(char::is_control)
}

#[test]
fn echoed_tokens_are_escaped_and_short() {
    let long = "x".repeat(100_000);
    let cases: [&[&str]; 7] = [
        &["solve", "12\u{1b}[31m"],
        &["solve", "12\u{202e}3"],
        &["solve", &long],
        &["o53", "y4\n3"],
        &["o5\u{1b}[2J"],
        &["o53", "-level", "\n"],
        &["solve", "--board", "7x\u{1b}[31m"],
    ];
    for args in cases {
        let o = Command::new(BIN).args(args).output().expect("runs");
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(is_one_clean_line(&err), "{args:?}: {err:?}");
        assert!(!err.contains('\u{202e}'), "{err:?}");
        assert!(err.len() < 300, "{err:?}");
    }
}

#[test]
fn a_huge_line_is_refused_without_holding_it() {
    let mut input = format!("{A}\n").into_bytes();
    input.extend(std::iter::repeat_n(0xff, 20 << 20));
    input.extend(format!("\n{A}\n").bytes());
    let mut child = Command::new(BIN)
        .arg("solve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let o = child.wait_with_output().expect("finishes");
    writer.join().expect("writer").expect("all input read");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), format!("{A} {A_SCORE}\n\n{A} {A_SCORE}\n"));
    assert_eq!(
        text(&o.stderr),
        "score4: line 2: longer than 1024 bytes\n",
        "the line is refused by its length, not echoed"
    );
}

#[test]
fn bench_refuses_what_solve_refuses() {
    // A finished game, a full board and an impossible label: each is a
    // malformed line, refused as a whole file (status 2), never counted as
    // a wrong answer; solve refuses the same positions.
    let full_draw = "257771314744647214154617633623313656555222";
    for (line, what) in [
        ("1212121 0", "already over"),
        (&*format!("{full_draw} 0"), "full"),
        (&*format!("{A} 99"), "outside"),
        ("4453 -22", "outside"),
    ] {
        let (_dir, file) = scratch("malformed.txt", format!("{line}\n").as_bytes());
        let o = Command::new(BIN)
            .arg("bench")
            .arg(&file)
            .output()
            .expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        assert!(o.stdout.is_empty());
        assert!(
            is_one_clean_line(&err) && err.contains(what),
            "{line}: {err}"
        );
        let moves = line.split(' ').next().unwrap();
        if what != "outside" {
            let o = Command::new(BIN)
                .args(["solve", moves])
                .output()
                .expect("runs");
            assert_eq!(o.status.code(), Some(1), "{line}");
        }
    }
}

#[test]
fn usage_errors_are_one_line() {
    let cases: [&[&str]; 5] = [
        &[],
        &["solve", "--bogus"],
        &["bench", "--limit"],
        &["solve", "--weak", "--analyze", "4"],
        &["frobnicate"],
    ];
    for args in cases {
        let o = Command::new(BIN).args(args).output().expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(
            is_one_clean_line(&err) && err.starts_with("score4: "),
            "{args:?}: {err:?}"
        );
    }
}

#[test]
fn a_negative_number_names_the_option_and_its_range() {
    let cases: [(&[&str], &str, &str); 10] = [
        (
            &["solve", "--table-mb", "-1", "4453"],
            "--table-mb",
            "from 1 to",
        ),
        (&["solve", "--threads", "-1", "4453"], "--threads", "1..="),
        (&["bench", "--table-mb", "-1"], "--table-mb", "from 1 to"),
        (&["bench", "--limit", "-1"], "--limit", "from 1 to"),
        (
            &["book", "build", "--depth", "-1", "--out", "x"],
            "--depth",
            "0..=64",
        ),
        (
            &["book", "check", "x", "--sample", "-3"],
            "--sample",
            "from 0 to",
        ),
        (&["play", "--seed", "-1"], "--seed", "from 0 to"),
        (
            &["serve", "--budget-ms", "-1"],
            "--budget-ms",
            "from 1 to 600000",
        ),
        (&["split", "plan", "4", "--depth", "-1"], "--depth", "0..=8"),
        (
            &["solve", "--journal", "j", "--journal-min-work", "-5", "4"],
            "--journal-min-work",
            "from 1000 to",
        ),
    ];
    for (args, option, range) in cases {
        let o = Command::new(BIN).args(args).output().expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(is_one_clean_line(&err), "{args:?}: {err:?}");
        assert!(err.contains(&format!("'{option} <")), "{args:?}: {err}");
        assert!(err.contains(range), "{args:?}: {err}");
    }
}

/// Runs the binary with its address space capped at `kib` KiB.
#[cfg(target_os = "linux")]
fn with_memory_limit(kib: u64, args: &str) -> Output {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" {args}"))
        .arg(BIN)
        .output()
        .expect("sh runs")
}

#[test]
#[cfg(target_os = "linux")]
fn no_memory_for_a_table_is_an_error_not_an_abort() {
    // The smallest limit (in steps of 1 MiB) under which the engine still
    // answers at level 1 (a table of 256 KiB) leaves no room for the 4 MiB
    // of `-perfect` or the 64 MiB of a deep level.
    let floor = (4..256)
        .map(|mib| mib * 1024)
        .find(|&kib| with_memory_limit(kib, "o53 y43 -level 1").status.success())
        .expect("the engine runs in 256 MiB");
    for args in [
        "o53 y43 -perfect",
        "o53 y43 -level 20",
        "solve --table-mb 64 4453",
    ] {
        let o = with_memory_limit(floor, args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args} under {floor} KiB: {err}");
        assert!(
            is_one_clean_line(&err) && err.contains("cannot allocate"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn values_clap_parses_are_escaped_and_cut() {
    let long = "7".repeat(131_000);
    for (args, shown) in [
        (
            &["solve", "--table-mb", "4\u{1b}[2J", "1"][..],
            r"'4\u{1b}[2J'",
        ),
        (&["foo\u{1b}[31mbar"], r"'foo\u{1b}[31mbar'"),
        (&["solve", "--board", &long], "(131000 bytes)"),
        (&["solve", "--x\u{1b}[31m"], r"'--x\u{1b}[31m'"),
        (&["solve", "--threads", "1\n2"], r"'1\n2'"),
        (&["bench", "--limit", "\u{202e}9"], r"'\u{202e}9'"),
    ] {
        let o = Command::new(BIN).args(args).output().expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(is_one_clean_line(&err), "{err:?}");
        assert!(!err.contains('\u{202e}'), "{err:?}");
        assert!(err.contains(shown), "{shown}: {err}");
        assert!(err.len() < 400, "{err:?}");
    }
}

#[test]
fn usage_errors_keep_the_suggestion() {
    // Clap may name more than one candidate ('serve' or 'solve'): the
    // intended one must be among them, on the same line.
    for (args, suggestion) in [
        (&["slove", "4453"][..], "'solve'"),
        (&["solve", "--tabel-mb", "8", "4"], "'--table-mb'"),
        (&["bench", "--jsno"], "'--json'"),
    ] {
        let o = Command::new(BIN).args(args).output().expect("runs");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(is_one_clean_line(&err), "{err:?}");
        let tip = err
            .trim_end()
            .rsplit_once("(did you mean ")
            .map(|(_, tip)| tip)
            .unwrap_or_else(|| panic!("{args:?}: no suggestion in {err}"));
        assert!(tip.ends_with("?)"), "{args:?}: {err}");
        assert!(tip.contains(suggestion), "{args:?}: {err}");
    }
}

/// `serve` prints its address through the same checked output as every
/// command: a stdout that cannot take it is one line and status 2, not a
/// panic, and the server is not left running.
#[test]
fn serve_reports_an_address_it_cannot_write() {
    let o = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stdout(full_device())
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(is_one_clean_line(&err), "{err:?}");
    assert!(err.contains("cannot write the output"), "{err}");
}
