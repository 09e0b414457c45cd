//! Every console example in `README.md` and `docs/*.md`, run against the
//! binary and compared with the output the page shows, so that a change of
//! output fails the tests instead of leaving a wrong example behind.
//!
//! A ```` ```console ```` block holds `$ COMMAND` lines, each followed by the
//! lines it prints (stdout and stderr together). Each command runs under
//! `sh`, so pipes and `&&` read as they would in a terminal; `$ echo $?`
//! shows the exit status of the command before it. In an expected line,
//! `[..]` matches any text within the line; a line that is only `...`
//! matches any number of lines. Every block runs in a directory of its own,
//! where `score4` and `engine.exe` are this binary and `fixtures` and
//! `crates` are the repository's. Blocks marked ```` ```sh ```` are not run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One command of an example and what it should print.
struct Step {
    /// Where the `$` line stands, as `FILE:LINE`.
    place: String,
    command: String,
    expected: Vec<String>,
}

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The console blocks of the Markdown file `path`, each a list of steps.
fn console_blocks(path: &Path) -> Vec<Vec<Step>> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match current.as_mut() {
            None if fence && line.trim() == "```console" => current = Some(Vec::new()),
            None => {}
            Some(_) if fence => blocks.extend(current.take()),
            Some(steps) => {
                if let Some(command) = line.strip_prefix("$ ") {
                    steps.push(Step {
                        place: format!("{name}:{}", i + 1),
                        command: command.to_string(),
                        expected: Vec::new(),
                    });
                } else {
                    let step = steps.last_mut().unwrap_or_else(|| {
                        panic!("{name}:{}: output before any `$ ` command", i + 1)
                    });
                    step.expected.push(line.trim_end().to_string());
                }
            }
        }
    }
    assert!(current.is_none(), "{name}: a console block is not closed");
    blocks
}

/// Whether `text` matches `pattern`, where each `[..]` stands for any text.
fn line_matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Whether the lines `actual` match the lines `expected`, where a line
/// `...` stands for any number of lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && lines_match(rest, more)),
    }
}

/// A directory of its own for one block: `bin/` with the binary under both
/// its names, and `work/` with links to the repository's fixtures and
/// sources, where the commands run.
struct Sandbox {
    dir: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "score4-docs-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("bin")).expect("a temporary directory");
        fs::create_dir_all(dir.join("work")).expect("a temporary directory");
        let binary = Path::new(env!("CARGO_BIN_EXE_score4"));
        for name in ["score4", "engine.exe"] {
            std::os::unix::fs::symlink(binary, dir.join("bin").join(name)).expect("a link");
        }
        for name in ["fixtures", "crates"] {
            std::os::unix::fs::symlink(root().join(name), dir.join("work").join(name))
                .expect("a link");
        }
        Sandbox { dir }
    }

    /// Runs `command` under `sh`, returning what it printed on stdout and
    /// stderr together, and its exit status.
    fn run(&self, command: &str) -> (String, i32) {
        let path = match std::env::var_os("PATH") {
            Some(path) => {
                let mut dirs = vec![self.dir.join("bin")];
                dirs.extend(std::env::split_paths(&path));
                std::env::join_paths(dirs).expect("a PATH")
            }
            None => self.dir.join("bin").into_os_string(),
        };
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(self.dir.join("work"))
            .env("PATH", path)
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        (text, output.status.code().unwrap_or(-1))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Runs every block of `files` and fails with every example that printed
/// something else than its page shows. Returns the number of commands run.
fn check(files: &[PathBuf]) -> usize {
    let mut failures = Vec::new();
    let mut commands = 0;
    for file in files {
        for block in console_blocks(file) {
            let sandbox = Sandbox::new();
            let mut status = 0;
            for step in block {
                commands += 1;
                let actual = if step.command == "echo $?" {
                    format!("{status}\n")
                } else {
                    let (text, code) = sandbox.run(&step.command);
                    status = code;
                    text
                };
                let lines: Vec<&str> = actual.lines().map(str::trim_end).collect();
                if !lines_match(&step.expected, &lines) {
                    failures.push(format!(
                        "{}: $ {}\n--- expected\n{}\n--- printed\n{}",
                        step.place,
                        step.command,
                        step.expected.join("\n"),
                        lines.join("\n")
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) print something else than the page shows:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    commands
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let commands = check(&[root().join("README.md")]);
    assert!(commands > 0, "README.md has no console example");
}

#[test]
fn docs_examples_print_what_the_docs_show() {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "docs/ has no Markdown file");
    let commands = check(&files);
    assert!(commands > 0, "docs/ has no console example");
}

#[test]
fn wildcards_match_what_they_stand_for_and_nothing_else() {
    assert!(line_matches("4453 -2", "4453 -2"));
    assert!(!line_matches("4453 -2", "4453 -21"));
    assert!(!line_matches("4453 -2", "4453"));
    assert!(line_matches("4453 -2 [..]", "4453 -2 57 12"));
    assert!(!line_matches("4453 -2 [..]", "4453 -1 57 12"));
    assert!(line_matches("[..] us [..] total", "1.3 us 0.4 us total"));
    assert!(!line_matches("a[..]b[..]c", "a c b"));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert!(line_matches("ab[..]ba", "abba"));
    let expected = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&expected(&["a", "...", "z"]), &["a", "z"]));
    assert!(lines_match(
        &expected(&["a", "...", "z"]),
        &["a", "b", "c", "z"]
    ));
    assert!(!lines_match(&expected(&["a", "...", "z"]), &["a", "b"]));
    assert!(!lines_match(&expected(&["a", "b"]), &["a", "b", "c"]));
    assert!(!lines_match(&expected(&["a", "b", ""]), &["a", "b"]));
}
