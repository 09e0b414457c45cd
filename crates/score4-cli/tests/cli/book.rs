//! `score4 book` as a user runs it: built in one run or in shares and
//! merged (the same bytes), refused when damaged or mismatched, and used
//! by `solve` and `bench` (resumption and faults: `book_faults.rs`).

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{score4, text};

use score4::book::{Book, Kind};
use score4::wide::{self, Shape};
use score4::Position;
use score4_testkit::naive::{late_game, Naive};
use score4_testkit::{Rng, Scratch};

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> Scratch {
    Scratch::new(&format!("book-{test}"))
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Builds the 5x4 book of depth 8 into `dir`, with extra options.
fn build_5x4(dir: &Path, name: &str, extra: &[&str]) -> Output {
    build_5x4_to(dir, name, "8", extra)
}

/// Builds the 5x4 book of `depth` into `dir`, with extra options.
fn build_5x4_to(dir: &Path, name: &str, depth: &str, extra: &[&str]) -> Output {
    let out = path(&dir.join(name));
    let mut args = vec![
        "book",
        "build",
        "--board",
        "5x4",
        "--depth",
        depth,
        "--table-mb",
        "4",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", &out]);
    score4(&args)
}

/// Asserts that `o` is a refusal: status 2 and one line saying `why`.
fn refused(o: &Output, why: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.lines().count() == 1 && err.contains(why), "{err}");
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn shares_merged_are_the_book_byte_for_byte() {
    let dir = scratch("shares");
    ok(&build_5x4(&dir, "whole.book", &["--threads", "2"]));
    for i in 1..=3 {
        ok(&build_5x4(
            &dir,
            &format!("part{i}"),
            &["--shard", &format!("{i}/3")],
        ));
    }
    let parts: Vec<String> = [3, 1, 2]
        .iter()
        .map(|i| path(&dir.join(format!("part{i}"))))
        .collect();
    let merged = path(&dir.join("merged.book"));
    let mut args = vec!["book", "merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["--out", &merged]);
    ok(&score4(&args));
    let whole = std::fs::read(dir.join("whole.book")).unwrap();
    assert_eq!(std::fs::read(&merged).unwrap(), whole);

    // A missing share, parts of two depths, and a whole book among parts
    // are each refused with one line.
    let other_depth = path(&dir.join("d7"));
    ok(&build_5x4_to(&dir, "d7", "7", &["--shard", "1/3"]));
    let whole_path = path(&dir.join("whole.book"));
    for set in [
        vec![&*parts[0], &*parts[1]],
        vec![&*parts[0], &*parts[1], &*other_depth],
        vec![&*parts[0], &*parts[1], &*parts[2], &*whole_path],
    ] {
        let mut args = vec!["book", "merge"];
        args.extend(set.iter().copied());
        args.extend(["--out", &merged]);
        let o = score4(&args);
        assert_eq!(o.status.code(), Some(2), "{set:?}");
        assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
    }
}

#[test]
fn damaged_or_mismatched_books_are_refused() {
    let dir = scratch("damage");
    ok(&build_5x4(&dir, "good.book", &[]));
    let good = std::fs::read(dir.join("good.book")).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 4;
    let cases = [
        ("truncated", good[..good.len() - 3].to_vec(), "truncated"),
        ("flipped", flipped, "checksum"),
        ("text", b"4453 1\n".to_vec(), "not a score4 book"),
    ];
    for (name, bytes, why) in cases {
        let file = path(&dir.join(name));
        std::fs::write(&file, bytes).unwrap();
        for args in [
            vec!["book", "info", &file],
            vec!["solve", "--board", "5x4", "--book", &file, "1"],
        ] {
            let o = score4(&args);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(
                err.lines().count() == 1 && err.contains(why),
                "{args:?}: {err}"
            );
        }
    }
    // A header claiming every 7x6 position with 42 moves, and no
    // records: refused at once, not listed, as too deep; one of 12 moves,
    // listable, as incomplete.
    for (depth, why) in [(42, "too deep"), (12, "incomplete")] {
        let forged = Book::from_entries(
            score4::wide::Shape::standard(),
            depth,
            score4::book::Kind::Book,
            vec![],
        );
        let file = path(&dir.join(format!("forged{depth}")));
        std::fs::write(&file, forged.to_bytes()).unwrap();
        let o = score4(&["book", "check", &file]);
        refused(&o, why);
    }
    // A 5x4 book on the 7x6 board.
    let o = score4(&["solve", "--book", &path(&dir.join("good.book")), "4"]);
    refused(&o, "is for 5x4, not 7x6");
    // An empty output name, which would put the checkpoint and the lock in
    // the working directory.
    let o = score4(&[
        "book", "build", "--board", "4x4", "--depth", "2", "--out", "",
    ]);
    refused(&o, "a value is required for '--out");
}

#[test]
fn solve_answers_from_the_book_what_search_answers() {
    let dir = scratch("use");
    ok(&build_5x4(&dir, "b.book", &[]));
    let book = path(&dir.join("b.book"));
    // Every position in play with up to 5 moves, in move notation.
    let mut lines = String::new();
    let mut stack = vec![(Position::<5, 4>::new(), String::new())];
    while let Some((p, moves)) = stack.pop() {
        if p.is_game_over() {
            continue;
        }
        lines.push_str(&moves);
        lines.push('\n');
        if moves.len() < 5 {
            for col in p.playable_columns() {
                stack.push((p.after(col), format!("{moves}{}", col + 1)));
            }
        }
    }
    for mode in [&[][..], &["--weak"], &["--analyze"]] {
        let run = |extra: &[&str]| {
            let mut child = Command::new(env!("CARGO_BIN_EXE_score4"));
            child
                .args(["solve", "--board", "5x4", "--stats"])
                .args(mode)
                .args(extra);
            let mut child = child
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(lines.as_bytes())
                .unwrap();
            let o = child.wait_with_output().unwrap();
            ok(&o);
            text(&o.stdout)
        };
        let from_book = run(&["--book", &book]);
        let searched = run(&["--no-book"]);
        // Answers agree; the book's took no search at all.
        let answers = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| {
                    let f: Vec<&str> = l.split(' ').collect();
                    f[..f.len() - 2].join(" ")
                })
                .collect()
        };
        assert_eq!(answers(&from_book), answers(&searched), "{mode:?}");
        for line in from_book.lines() {
            let nodes = line.split(' ').rev().nth(1).unwrap();
            assert_eq!(nodes, "0", "{mode:?}: {line}");
        }
    }
}

#[test]
fn a_book_past_64_bits_answers_from_its_records_and_only_on_its_board() {
    // A 10x4 book (keys of 50 bits) and a 13x4 one (65 bits: 16-byte
    // keys) of late positions scored by the unpruned negamax; `solve`
    // answers each from the book, searching nothing.
    let dir = scratch("wide");
    let mut rng = Rng::new(13);
    for (w, h) in [(10, 4), (13, 4)] {
        let shape = Shape::new(w, h).unwrap();
        let (mut entries, mut lines, mut expected) = (Vec::new(), String::new(), Vec::new());
        while entries.len() < 5 {
            let Some((moves, g)) = late_game(w, h, 8, &mut rng) else {
                continue;
            };
            let score = Naive::new().score(&g);
            let p = wide::Position::parse(&shape, &moves).unwrap();
            entries.push((p.canonical_key(&shape), score as i8));
            lines += &format!("{moves}\n");
            expected.push(format!("{moves} {score} 0"));
        }
        let book = Book::from_entries(shape, shape.cells() as u32, Kind::Book, entries);
        let file = dir.join(format!("{w}x{h}.book"));
        std::fs::write(&file, book.to_bytes()).unwrap();
        let size = format!("{w}x{h}");
        let o = score4_testkit::cli::run_with_input(
            env!("CARGO_BIN_EXE_score4"),
            &["solve", "--board", &size, "--stats", "--book", &path(&file)],
            lines.as_bytes(),
        );
        ok(&o);
        // Each line: moves, score, positions searched, time.
        let answers: Vec<String> = text(&o.stdout)
            .lines()
            .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(answers, expected, "{size}");
        let o = score4(&["solve", "--board", "10x6", "--book", &path(&file), "1"]);
        refused(&o, &format!("book is for {size}, not 10x6"));
    }
}

#[test]
fn the_built_in_book_answers_the_opening_without_search() {
    let o = score4(&["solve", "--stats", ""]);
    ok(&o);
    let out = text(&o.stdout);
    let fields: Vec<&str> = out.split_whitespace().collect();
    assert_eq!((fields[0], fields[1]), ("1", "0"), "{out}");
}
