//! `score4 book` under faults: a build killed and resumed, a checkpoint
//! damaged or of an old format, two runs of one output, symlinks and
//! special files as outputs, memory and thread limits, endless or forged
//! inputs. Every refusal is one line and status 2, never a panic, an
//! abort or a wrong book.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{score4, text};

use score4::book::build::Plan;
use score4::book::checkpoint::BuildId;
use score4::book::{Book, Kind};
use score4::wide::Shape;
use score4_testkit::Scratch;

const BIN: &str = env!("CARGO_BIN_EXE_score4");

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> Scratch {
    Scratch::new(&format!("faults-book-{test}"))
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// `book build` of `board` to `depth` into `out`, with extra options.
fn build_args(board: &str, depth: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["book", "build", "--board", board, "--depth", depth]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(["--table-mb", "4", "--threads", "1"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--out".to_string(), path(out)]);
    args
}

fn run(args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    score4(&args)
}

/// Runs `script` with `sh -c`, `$1` being the binary, with a time limit.
fn sh(script: &str, limit: Duration) -> Output {
    let child = Command::new("sh")
        .args(["-c", script, "sh", BIN])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    finish_within(child, limit)
}

/// Waits for `child`, killing it (and failing) past `limit`.
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().expect("killed");
            panic!("still running after {limit:?}: {}", text(&o.stderr));
        }
        sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Asserts that `o` is a refusal: status 2 and one line saying `why`.
fn refused(o: &Output, why: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.lines().count() == 1 && err.contains(why), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn a_build_killed_and_its_checkpoint_damaged_resumes_to_the_same_bytes() {
    let dir = scratch("kill");
    let fresh = dir.join("fresh.book");
    ok(&run(&build_args("6x4", "8", &fresh, &[])));
    let fresh_bytes = fs::read(&fresh).unwrap();
    // A build killed (SIGKILL) part way: whatever it wrote, the last
    // record's score zeroed, the file cut after it and 100 zeros added.
    let out = dir.join("z.book");
    let partial = dir.join("z.book.partial");
    let child = Command::new(BIN)
        .args(build_args("6x4", "8", &out, &[]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = child;
    let start = Instant::now();
    while fs::metadata(&partial).map_or(0, |m| m.len()) < 16 + 13 * 50
        && child.try_wait().unwrap().is_none()
        && start.elapsed() < Duration::from_secs(30)
    {
        sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(partial.exists(), "the build finished before it was killed");
    let mut bytes = fs::read(&partial).unwrap();
    let whole = 16 + (bytes.len() - 16) / 13 * 13;
    bytes.truncate(whole);
    if whole > 16 {
        bytes[whole - 5] = 0;
    }
    bytes.extend_from_slice(&[0; 100]);
    fs::write(&partial, &bytes).unwrap();
    let _ = fs::remove_file(&out);
    ok(&run(&build_args("6x4", "8", &out, &[])));
    assert!(
        fs::read(&out).unwrap() == fresh_bytes,
        "the resumed book differs"
    );
    assert!(!partial.exists());
    let o = score4(&["book", "check", &path(&out), "--sample", "50"]);
    ok(&o);
}

#[test]
fn a_checkpoint_resumes_with_exactly_its_checked_records() {
    let dir = scratch("resume");
    let fresh = dir.join("fresh.book");
    ok(&run(&build_args("5x4", "8", &fresh, &[])));
    let book = Book::from_bytes(fs::read(&fresh).unwrap()).unwrap();
    let shape = Shape::any(5, 4);
    let plan = Plan::new(&shape, 8);
    let id = BuildId {
        shape,
        depth: 8,
        share: None,
    };
    // 1,000 records, then one zeroed and half of another.
    let mut partial = id.header().to_vec();
    for p in &plan.leaves()[..1000] {
        let key = p.canonical_key(&shape);
        partial.extend_from_slice(&id.record(key, book.get(key).unwrap() as i8));
    }
    let whole = partial.clone();
    partial.extend_from_slice(&vec![0; id.record_bytes()]);
    partial.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
    let out = dir.join("resumed.book");
    fs::write(dir.join("resumed.book.partial"), &partial).unwrap();
    let o = run(&build_args("5x4", "8", &out, &[]));
    ok(&o);
    let searched = plan.leaves().len() - 1000;
    assert!(
        text(&o.stdout).contains(&format!("searched {searched} positions")),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(fs::read(&out).unwrap(), fs::read(&fresh).unwrap());
    assert!(!dir.join("resumed.book.partial").exists());

    // A checkpoint of another build is refused, not mixed in.
    let other = dir.join("other.book");
    fs::write(dir.join("other.book.partial"), &whole).unwrap();
    refused(&run(&build_args("5x4", "7", &other, &[])), "another build");
    // So is one of the old, unchecked format, with what to do.
    let mut old = b"score4ck".to_vec();
    old.extend_from_slice(&[1, 5, 4, 8, 0, 0, 0, 0]);
    fs::write(dir.join("old.book.partial"), &old).unwrap();
    refused(
        &run(&build_args("5x4", "8", &dir.join("old.book"), &[])),
        "format 1",
    );
}

#[test]
fn share_and_its_old_name_shard_build_the_same_part() {
    let dir = scratch("alias");
    let a = dir.join("a.part");
    let b = dir.join("b.part");
    ok(&run(&build_args("5x4", "6", &a, &["--share", "2/3"])));
    ok(&run(&build_args("5x4", "6", &b, &["--shard", "2/3"])));
    assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap());
    let o = score4(&["book", "info", &path(&a)]);
    assert!(text(&o.stdout).contains("kind share 2/3"));
}

#[test]
fn outputs_that_are_not_regular_files_are_refused_before_any_work() {
    let dir = scratch("special");
    // A directory: refused at once, even for a build of hours.
    let start = Instant::now();
    let o = run(&build_args("7x6", "14", &dir, &[]));
    refused(&o, "not a regular file");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(!dir.with_extension("partial").exists());
    let part = dir.join("part.1");
    ok(&run(&build_args("5x4", "6", &part, &["--share", "1/1"])));
    let o = score4(&["book", "merge", &path(&part), "--out", &path(&dir)]);
    refused(&o, "not a regular file");
    // A symlink as the output, its checkpoint or its lock: the file it
    // points to is never written.
    let victim = dir.join("victim.txt");
    fs::write(&victim, "keep me").unwrap();
    for suffix in ["", ".partial", ".lock"] {
        let out = dir.join(format!("s{}.book", suffix.len()));
        let link = PathBuf::from(format!("{}{suffix}", out.display()));
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let o = run(&build_args("5x4", "6", &out, &[]));
        assert_eq!(o.status.code(), Some(2), "{suffix}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr).lines().count(), 1, "{}", text(&o.stderr));
        assert_eq!(fs::read(&victim).unwrap(), b"keep me", "{suffix}");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    // A device (or any special file) is never replaced.
    let o = run(&build_args("5x4", "6", Path::new("/dev/null"), &[]));
    refused(&o, "not a regular file");
    assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file());
}

#[test]
fn a_second_run_of_one_output_is_refused_at_once() {
    let dir = scratch("lock");
    let out = dir.join("busy.book");
    // A build that takes a while, holding the output.
    let mut first = Command::new(BIN)
        .args(build_args("7x6", "7", &out, &[]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let partial = dir.join("busy.book.partial");
    let start = Instant::now();
    while !partial.exists() && start.elapsed() < Duration::from_secs(30) {
        sleep(Duration::from_millis(5));
    }
    assert!(partial.exists(), "the first build started");
    let started = Instant::now();
    let o = run(&build_args("7x6", "7", &out, &[]));
    refused(&o, "being written by another build or merge");
    let part = dir.join("part.1");
    ok(&run(&build_args("5x4", "6", &part, &["--share", "1/1"])));
    let o = score4(&["book", "merge", &path(&part), "--out", &path(&out)]);
    refused(&o, "being written by another build or merge");
    assert!(started.elapsed() < Duration::from_secs(5));
    let _ = first.kill();
    let _ = first.wait();
    // A lock held by another program (flock(1)) refuses as well; once it
    // is gone, so is the refusal.
    let lock = format!("{}.lock", out.display());
    let _ = fs::remove_file(&partial);
    // The shell takes the lock on its descriptor 9, says so, and becomes
    // `sleep`, so that killing it releases the lock.
    let held = dir.join("held");
    let holder = Command::new("sh")
        .args([
            "-c",
            "exec 9>>\"$0\" && flock -n 9 && touch \"$1\" && exec sleep 30",
            &lock,
            &path(&held),
        ])
        .spawn();
    if let Ok(mut holder) = holder {
        let start = Instant::now();
        while !held.exists() && start.elapsed() < Duration::from_secs(10) {
            sleep(Duration::from_millis(5));
        }
        let have_flock = Command::new("flock").arg("--version").output().is_ok();
        assert!(held.exists() || !have_flock, "flock took the lock");
        if held.exists() {
            let o = run(&build_args("5x4", "6", &out, &[]));
            refused(&o, "being written by another build or merge");
        }
        let _ = holder.kill();
        let _ = holder.wait();
        ok(&run(&build_args("5x4", "6", &out, &[])));
    }
}

#[test]
fn concurrent_merges_to_one_output_never_corrupt_it() {
    let dir = scratch("merges");
    let mut parts = Vec::new();
    for i in 1..=2 {
        let part = dir.join(format!("part.{i}"));
        ok(&run(&build_args(
            "6x4",
            "8",
            &part,
            &["--share", &format!("{i}/2")],
        )));
        parts.push(path(&part));
    }
    // What the merge writes alone (that it is the whole book, other tests
    // check).
    let alone = dir.join("alone.book");
    ok(&score4(&[
        "book",
        "merge",
        &parts[0],
        &parts[1],
        "--out",
        &path(&alone),
    ]));
    let whole = fs::read(&alone).unwrap();
    let out = path(&dir.join("r.book"));
    for round in 0..30 {
        let spawn = || {
            Command::new(BIN)
                .args(["book", "merge", &parts[0], &parts[1], "--out", &out])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
            if o.status.code() != Some(0) {
                refused(&o, "being written by another build or merge");
            }
        }
        assert!(fs::read(&out).unwrap() == whole, "round {round}");
    }
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["alone.book", "part.1", "part.2", "r.book"]);
}

#[test]
fn limits_on_threads_and_memory_are_one_line_not_an_abort() {
    let dir = scratch("limits");
    let cases = [
        // A solving thread's stack (`SEARCH_STACK_BYTES`, 64 MiB of
        // address space) does not fit in 50 MB, while the program and its
        // 1 MiB tables do: the first thread is refused, whatever the timing.
        (
            "ulimit -v 50000; \"$1\" book build --board 4x4 --depth 4 --threads 16 --table-mb 1 --out ",
            "threads.book",
            "cannot start a solving thread",
        ),
        // Listing depth 14 needs far more than 100 MB (the less, the sooner
        // it runs out).
        (
            "ulimit -v 100000; \"$1\" book build --depth 14 --threads 1 --table-mb 1 --out ",
            "big.book",
            "not enough memory to list the positions",
        ),
    ];
    for (script, name, why) in cases {
        let out = dir.join(name);
        let o = sh(
            &format!("{script}'{}'", out.display()),
            Duration::from_secs(120),
        );
        refused(&o, why);
        assert!(!out.exists());
    }
    // A share forged to claim every 7x6 position (depth 42, no records):
    // refused before listing, as its depth could hold more positions than
    // one machine lists; one of depth 12, which can be listed, is refused
    // after listing a bounded number. Both under a memory limit too.
    let forged = |depth: u32, name: &str| {
        let share = Book::from_entries(
            Shape::standard(),
            depth,
            Kind::Share { index: 1, count: 1 },
            vec![],
        );
        let file = dir.join(name);
        fs::write(&file, share.to_bytes()).unwrap();
        path(&file)
    };
    let (deep, listable) = (forged(42, "forged.part"), forged(12, "forged12.part"));
    for (command, why) in [
        (format!("\"$1\" book check '{deep}'"), "may hold up to"),
        (
            format!(
                "\"$1\" book merge '{deep}' --out '{}'",
                dir.join("m.book").display()
            ),
            "more than the 100000000 one machine lists",
        ),
        (
            format!("\"$1\" book check '{listable}'"),
            "too many for its 0 records",
        ),
    ] {
        let o = sh(
            &format!("ulimit -v 1000000; {command}"),
            Duration::from_secs(60),
        );
        refused(&o, why);
    }
}

#[test]
fn a_depth_too_deep_to_list_is_refused_before_listing() {
    let dir = scratch("deep");
    // In 300 MB, where a listing of those depths runs out of memory
    // (depth 14 of 7x6, just under the bound, is listed: see above).
    for (board, depth) in [("7x6", "30"), ("7x6", "15"), ("8x5", "14"), ("4x4", "64")] {
        let out = dir.join(format!("{board}-{depth}.book"));
        let o = sh(
            &format!(
                "ulimit -v 300000; \"$1\" book build --board {board} --depth {depth} \\
                 --threads 1 --table-mb 4 --out '{}'",
                out.display()
            ),
            Duration::from_secs(120),
        );
        if board == "4x4" {
            // Every position of 4x4 fits: its depth is the board's cells.
            ok(&o);
            continue;
        }
        refused(
            &o,
            &format!("a book of depth {depth} of {board} may hold up to"),
        );
        refused(&o, "more than the 100000000 one machine lists");
        assert!(!out.exists());
        assert!(!dir.join(format!("{board}-{depth}.book.partial")).exists());
    }
}

#[test]
fn merge_refuses_a_leaf_score_no_position_can_have() {
    let dir = scratch("range");
    let part = dir.join("part.1");
    ok(&run(&build_args("5x4", "8", &part, &["--share", "1/1"])));
    let good = Book::from_bytes(fs::read(&part).unwrap()).unwrap();
    // 7 is a valid score on 5x4 (at most 10), but not with 8 moves played
    // (at most 6).
    let mut entries: Vec<(u128, i8)> = good.entries().map(|(k, s)| (k, s as i8)).collect();
    entries[0].1 = 7;
    let liar = Book::from_entries(*good.shape(), 8, good.kind(), entries);
    fs::write(&part, liar.to_bytes()).unwrap();
    let o = score4(&[
        "book",
        "merge",
        &path(&part),
        "--out",
        &path(&dir.join("m.book")),
    ]);
    refused(&o, "out of the range");
    assert!(!dir.join("m.book").exists());
}

#[test]
fn endless_or_oversized_inputs_fail_fast() {
    let dir = scratch("endless");
    let limit = Duration::from_secs(10);
    for (script, why) in [
        ("\"$1\" book info /dev/zero", "not a score4 book"),
        ("\"$1\" solve --book /dev/urandom 4", "book: "),
        ("\"$1\" book check /dev/zero", "not a score4 book"),
        ("\"$1\" bench /dev/zero", "longer than"),
    ] {
        let o = sh(script, limit);
        refused(&o, why);
    }
    // A book with bytes after its records: refused from its length.
    let good = dir.join("good.book");
    ok(&run(&build_args("5x4", "4", &good, &[])));
    let mut long = fs::read(&good).unwrap();
    long.extend_from_slice(&[0; 4096]);
    let file = dir.join("long.book");
    fs::write(&file, &long).unwrap();
    let o = score4(&["book", "info", &path(&file)]);
    refused(&o, "where its header announces");
    // Errors about a book from solve and bench say so first.
    let missing = path(&dir.join("missing.book"));
    let o = score4(&["solve", "--book", &missing, "4"]);
    refused(&o, "score4: book: cannot read");
    let set = dir.join("set.txt");
    fs::write(&set, "4453 -2\n").unwrap();
    let o = score4(&["bench", &path(&set), "--book", &missing]);
    refused(&o, "score4: book: cannot read");
    let o = score4(&["solve", "--board", "5x4", "--book", &path(&file), "4"]);
    refused(&o, "score4: book: ");
}
