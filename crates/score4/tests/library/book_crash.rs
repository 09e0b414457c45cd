//! A build resumed after any damage a crash can leave in its checkpoint
//! writes the same bytes as an uninterrupted build: a seeded fuzz of torn,
//! zeroed, flipped and zero-padded checkpoints, and concurrent saves.

use std::fs;
use std::io::Write;
use std::path::Path;

use score4::book::build::{self, Options, Plan, Progress};
use score4::book::checkpoint::{BuildId, Checkpoint};
use score4::book::Book;
use score4::rng::Rng;
use score4::wide::Shape;
use score4_testkit::Scratch;

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> Scratch {
    Scratch::new(&format!("crash-{test}"))
}

const DEPTH: u32 = 8;

/// The board of every build here: small enough to build in a blink.
fn board() -> Shape {
    Shape::any(5, 4)
}

fn options(out: &Path, share: Option<(u16, u16)>) -> Options {
    Options {
        shape: board(),
        depth: DEPTH,
        share,
        threads: 2,
        table_mb: 1,
        out: out.to_path_buf(),
    }
}

/// Builds to `out`, returning the file's bytes and the leaves searched.
fn build_to(out: &Path, share: Option<(u16, u16)>) -> (Vec<u8>, usize) {
    let mut last = None;
    let built = build::build(&options(out, share), |p: Progress| last = Some(p)).unwrap();
    let last = last.unwrap();
    assert_eq!(last.done, last.total, "progress reaches the end");
    (fs::read(out).unwrap(), built.searched)
}

/// Damages the bytes of a checkpoint as a crash or a bad disk can.
fn damage(bytes: &mut Vec<u8>, rng: &mut Rng) -> &'static str {
    let len = bytes.len();
    let tail = 1 + rng.below(64.min(len as u64)) as usize;
    match rng.below(6) {
        0 => {
            bytes.truncate(len - rng.below(len as u64 + 1) as usize);
            "truncated"
        }
        1 => {
            bytes[len - tail..].fill(0);
            "zeroed tail"
        }
        2 => {
            for _ in 0..1 + rng.below(4) {
                let at = len - 1 - rng.below(tail as u64) as usize;
                bytes[at] ^= 1 << rng.below(8);
            }
            "flipped tail"
        }
        3 => {
            bytes.truncate(len - rng.below(13) as usize);
            let zeros = rng.below(5000) as usize;
            bytes.resize(bytes.len() + zeros, 0);
            "cut and zero-padded"
        }
        4 => {
            // The case: the last score zeroed, zeros appended.
            let at = len - 5;
            if at >= 16 {
                bytes[at] = 0;
            }
            bytes.extend_from_slice(&[0; 100]);
            "last score zeroed, padded"
        }
        _ => {
            let at = rng.below(len as u64) as usize;
            bytes[at] ^= 1 << rng.below(8);
            "one flip anywhere"
        }
    }
}

#[test]
fn a_resumed_build_after_any_damage_writes_the_uninterrupted_bytes() {
    let dir = scratch("fuzz");
    let (whole, searched) = build_to(&dir.join("whole.book"), None);
    let reference = Book::from_bytes(whole.clone()).unwrap();
    let plan = Plan::new(&board(), DEPTH);
    assert_eq!(searched, plan.leaves().len());
    let id = BuildId {
        shape: board(),
        depth: DEPTH,
        share: None,
    };
    let mut rng = Rng::new(2026);
    for trial in 0..30 {
        let out = dir.join(format!("t{trial}.book"));
        let partial = dir.join(format!("t{trial}.book.partial"));
        // What a killed run leaves: some leaves solved, in any order.
        let mut ck = Checkpoint::open(&partial, id, plan.leaves()).unwrap();
        let solved = rng.below(plan.leaves().len() as u64) as usize;
        let start = rng.below((plan.leaves().len() - solved) as u64 + 1) as usize;
        for p in &plan.leaves()[start..start + solved] {
            let key = p.canonical_key(&board());
            ck.record(key, reference.get(key).unwrap() as i8).unwrap();
        }
        drop(ck);
        let mut bytes = fs::read(&partial).unwrap();
        let how = damage(&mut bytes, &mut rng);
        fs::write(&partial, &bytes).unwrap();
        let (resumed, searched) = build_to(&out, None);
        assert!(resumed == whole, "trial {trial}: {how}: the book differs");
        assert!(
            searched >= plan.leaves().len() - solved,
            "trial {trial}: {how}: kept more records than were written"
        );
        assert!(
            !partial.exists(),
            "trial {trial}: the checkpoint is removed"
        );
    }
}

#[test]
fn a_checked_record_with_a_score_no_leaf_can_have_is_dropped() {
    // Records that pass their CRC are trusted to be what the build wrote;
    // an out-of-range score (a forged one) is still caught.
    let dir = scratch("forged");
    let out = dir.join("f.book");
    let plan = Plan::new(&board(), DEPTH);
    let id = BuildId {
        shape: board(),
        depth: DEPTH,
        share: None,
    };
    let leaf = &plan.leaves()[0];
    let mut f = fs::File::create(dir.join("f.book.partial")).unwrap();
    f.write_all(&id.header()).unwrap();
    f.write_all(&id.record(leaf.canonical_key(&board()), 7))
        .unwrap();
    drop(f);
    let (forged, searched) = build_to(&out, None);
    // Dropped on reading (7 is beyond any position with 8 moves), so
    // every leaf was searched.
    assert_eq!(searched, plan.leaves().len());
    let (whole, _) = build_to(&dir.join("whole.book"), None);
    assert_eq!(forged, whole);
}

#[test]
fn shares_resumed_after_damage_merge_to_the_whole_book() {
    let dir = scratch("shares");
    let (whole, _) = build_to(&dir.join("whole.book"), None);
    let mut rng = Rng::new(7);
    let mut parts = Vec::new();
    for i in 1..=3u16 {
        let out = dir.join(format!("part.{i}"));
        // A first run of the share, then its checkpoint restored from a
        // copy, damaged, and resumed.
        let (first, _) = build_to(&out, Some((i, 3)));
        let id = BuildId {
            shape: board(),
            depth: DEPTH,
            share: Some((i, 3)),
        };
        let plan = Plan::new(&board(), DEPTH);
        let book = Book::from_bytes(first.clone()).unwrap();
        let partial = dir.join(format!("part.{i}.partial"));
        let mut ck = Checkpoint::open(&partial, id, plan.share(i.into(), 3)).unwrap();
        for (key, score) in book.entries().take(book.len() / 2) {
            ck.record(key, score as i8).unwrap();
        }
        drop(ck);
        let mut bytes = fs::read(&partial).unwrap();
        damage(&mut bytes, &mut rng);
        fs::write(&partial, &bytes).unwrap();
        fs::remove_file(&out).unwrap();
        let (again, _) = build_to(&out, Some((i, 3)));
        assert_eq!(again, first, "share {i}");
        parts.push(out);
    }
    let merged = dir.join("merged.book");
    build::merge(&parts, &merged).unwrap();
    assert_eq!(fs::read(&merged).unwrap(), whole);
}

#[test]
fn a_share_no_cutting_has_is_refused_before_any_work() {
    let dir = scratch("noshare");
    let out = dir.join("p.book");
    for share in [(0, 3), (4, 3), (1, 0)] {
        let r = build::build(&options(&out, Some(share)), |_| {});
        assert!(
            matches!(r, Err(build::BuildError::NoSuchShare { .. })),
            "{share:?}: {r:?}"
        );
    }
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn concurrent_saves_to_one_path_leave_one_whole_book_and_no_litter() {
    let dir = scratch("saves");
    let out = dir.join("r.book");
    let size = board();
    // Two different books, each large enough that writes overlap.
    let a = Book::from_entries(
        size,
        DEPTH,
        score4::book::Kind::Book,
        (0..200_000u128).map(|k| (k * 2, 1)).collect(),
    );
    let b = Book::from_entries(
        size,
        DEPTH,
        score4::book::Kind::Book,
        (0..150_000u128).map(|k| (k * 3, -1)).collect(),
    );
    for _ in 0..20 {
        std::thread::scope(|s| {
            for book in [&a, &b, &a, &b] {
                let out = &out;
                s.spawn(move || book.save(out).unwrap());
            }
        });
        let read = Book::load(&out).unwrap();
        assert!(read == a || read == b);
    }
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["r.book"], "no temporary file is left");
}

#[test]
fn a_build_stopped_by_its_caller_resumes_to_the_same_bytes() {
    let dir = scratch("stopped");
    let (whole, searched) = build_to(&dir.join("whole.book"), None);
    let out = dir.join("stopped.book");
    let mut calls = 0;
    let r = build::build_stoppable(&options(&out, None), |_| {
        calls += 1;
        if calls > 40 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    let Err(build::BuildError::Stopped { done, total, .. }) = r else {
        panic!("not stopped: {r:?}");
    };
    assert!(done >= 40 && done < total, "{done} of {total}");
    assert!(!out.exists(), "a stopped build wrote its book");
    // The next run searches only what the stopped one left.
    let built = build::build(&options(&out, None), |_| {}).unwrap();
    assert_eq!(built.searched, searched - done);
    assert_eq!(fs::read(&out).unwrap(), whole);
}

#[test]
fn an_empty_output_name_is_refused_before_anything_is_written() {
    let r = build::build(&options(Path::new(""), None), |_| {});
    let Err(e) = r else {
        panic!("an empty name was built");
    };
    assert!(e.to_string().contains("the name is empty"), "{e}");
    assert!(!Path::new(".partial").exists() && !Path::new(".lock").exists());
}
