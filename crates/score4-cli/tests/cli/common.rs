//! What the command-line tests share: the `score4` binary, whose path only
//! this crate's tests know, run through the shared runner.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use score4::rng::Rng;

pub use score4_testkit::cli::text;

/// Runs `score4` with `args`, stdin empty, and collects what it wrote.
pub fn score4(args: &[&str]) -> Output {
    score4_testkit::cli::run(env!("CARGO_BIN_EXE_score4"), args)
}

/// Runs `score4 args` again and again, killing it with SIGKILL (nothing of
/// the process runs after it) at 30 to 250 ms, drawn from `rng`, up to
/// `kills` times and calling `after_kill` after each; then lets a run
/// finish. What that run wrote, and how many runs were killed.
pub fn killed_until_done(
    args: &[&str],
    rng: &mut Rng,
    kills: usize,
    mut after_kill: impl FnMut(),
) -> (Output, usize) {
    let mut killed = 0;
    loop {
        let mut child = Command::new(env!("CARGO_BIN_EXE_score4"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if killed < kills {
            let wait = Duration::from_millis(30 + rng.below(220));
            let start = Instant::now();
            while start.elapsed() < wait && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_millis(2));
            }
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap();
                child.wait().unwrap();
                killed += 1;
                after_kill();
                continue;
            }
        }
        return (child.wait_with_output().unwrap(), killed);
    }
}
