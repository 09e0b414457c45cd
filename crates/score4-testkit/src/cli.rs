//! Running a binary as a user does and reading what it wrote. The path
//! comes from the test (`env!("CARGO_BIN_EXE_score4")`), which only the
//! binary's own test crate knows.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `bin` with `args`, stdin empty, and collects what it wrote.
pub fn run(bin: impl AsRef<Path>, args: &[impl AsRef<std::ffi::OsStr>]) -> Output {
    // A test that copies the binary (to run it under the engine's name)
    // can have its copy's write handle inherited by a process another
    // test forks at that moment, and exec then fails with "text file
    // busy" until that process execs: a known Linux race, so try again.
    let mut tries = 0;
    loop {
        match Command::new(bin.as_ref())
            .args(args)
            .stdin(Stdio::null())
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.expect("the binary runs"),
        }
    }
}

/// Runs `bin` with `args`, feeding it `stdin`, and collects what it wrote.
pub fn run_with_input(
    bin: impl AsRef<Path>,
    args: &[impl AsRef<std::ffi::OsStr>],
    stdin: &[u8],
) -> Output {
    let mut child = Command::new(bin.as_ref())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A program that refuses its input may stop reading it: a broken pipe
    // is its answer, not the test's failure.
    match child.stdin.take().expect("piped").write_all(stdin) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("the binary finishes")
}

/// Output as text: every line score4 writes is UTF-8 (user text is escaped).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}
