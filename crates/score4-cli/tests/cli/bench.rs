//! `score4 bench` as a user runs it: labelled files in, a report out, and a
//! failing exit status when an answer disagrees with its label.

use std::path::PathBuf;
use std::process::{Command, Output};

fn repo_file(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join(path).display().to_string()
}

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_score4"))
        .arg("bench")
        .args(["--table-mb", "8"])
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("one JSON object on stdout")
}

#[test]
fn json_report_counts_positions_and_nodes() {
    let file = repo_file("fixtures/solver/ply33-40.txt");
    for extra in [&[][..], &["--weak"], &["--fresh-table"]] {
        let mut args = vec!["--json", "--limit", "7", file.as_str()];
        args.extend_from_slice(extra);
        let out = bench(&args);
        assert!(out.status.success(), "{:?} {out:?}", extra);
        let report = json(&out);
        let f = &report["files"][0];
        assert_eq!(f["file"], file.as_str());
        assert_eq!(f["positions"], 7);
        assert_eq!(f["wrong"], 0);
        let number = |key: &str| {
            f[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{key} is not a number in {f}"))
        };
        assert!(number("mean_nodes") > 0.0);
        assert!(number("median_us") > 0.0);
        assert!(number("max_us") >= number("median_us"));
        assert!(number("max_us") >= number("mean_us"));
        assert_eq!(report["wrong_answers"].as_array().map(Vec::len), Some(0));
    }
}

#[test]
fn wrong_labels_are_listed_and_fail_the_run() {
    let dir = std::env::temp_dir().join(format!("score4-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("labels.txt");
    // 4453 scores -2 (see the solver fixtures); the second label is a lie.
    std::fs::write(&file, "# comment\n4453 -2\n4453 3\n").expect("write");
    let path = file.display().to_string();

    let out = bench(&["--json", &path]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["files"][0]["wrong"], 1);
    let wrong = &report["wrong_answers"][0];
    assert_eq!(
        (wrong["line"].as_u64(), wrong["expected"].as_i64()),
        (Some(3), Some(3))
    );
    assert_eq!(wrong["got"], -2);

    let table = bench(&[&path]);
    assert_eq!(table.status.code(), Some(1));
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains(&format!("wrong: {path}:3 4453 expected 3 got -2")),
        "{text}"
    );

    // A weak run compares signs only, so the lie of "3" for a loss still fails.
    let weak = bench(&["--json", "--weak", &path]);
    assert_eq!(json(&weak)["files"][0]["wrong"], 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_files_are_named() {
    let out = bench(&["no/such/file.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such/file.txt"), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn a_file_without_positions_is_refused() {
    let dir = score4_testkit::Scratch::new("bench-empty");
    let good = repo_file("fixtures/solver/ply33-40.txt");
    for (name, text) in [("empty.txt", ""), ("comments.txt", "# no positions\n\n")] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.display().to_string();
        for args in [&[path.as_str()][..], &["--json", &good, &path]] {
            let out = bench(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(out.stdout.is_empty(), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(name) && err.contains("no positions"), "{err}");
        }
    }
    // Nor is a limit that takes none of a file's positions.
    let out = bench(&["--limit", "0", &good]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--limit"));
}

#[test]
fn impossible_table_sizes_are_refused_not_aborted() {
    for size in ["0", "99999999999", "lots"] {
        for command in ["bench", "solve"] {
            let out = Command::new(env!("CARGO_BIN_EXE_score4"))
                .args([command, "--table-mb", size, "4453"])
                .output()
                .expect("the binary runs");
            assert_eq!(out.status.code(), Some(2), "{command} --table-mb {size}");
            assert!(out.stdout.is_empty());
            assert!(String::from_utf8_lossy(&out.stderr).contains("--table-mb"));
        }
    }
}

#[test]
fn tables_larger_than_memory_fail_cleanly_or_work() {
    // 64 GiB: whether the system grants it depends on its overcommit policy,
    // but either the solve answers or one line says why; never an abort.
    // Thread counts beyond the limit are refused the same way.
    let out = Command::new(env!("CARGO_BIN_EXE_score4"))
        .args(["solve", "--table-mb", "65536", "445566"])
        .output()
        .expect("the binary runs");
    match out.status.code() {
        Some(0) => assert_eq!(String::from_utf8_lossy(&out.stdout), "445566 18\n"),
        Some(2) => {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.stdout.is_empty());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("cannot allocate"), "{err}");
        }
        other => panic!("exit status {other:?}"),
    }
    for threads in ["0", "257", "100000", "many"] {
        let out = Command::new(env!("CARGO_BIN_EXE_score4"))
            .args(["solve", "--threads", threads, "445566"])
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(2), "--threads {threads}");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--threads"));
    }
}
