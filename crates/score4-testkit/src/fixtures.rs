//! The fixture files: ours in the repository, and c4's published sets,
//! which are not ours to copy in and are read in place only when asked.

use std::io::Write;
use std::path::{Path, PathBuf};

use score4::fixture::{self, Labelled};
use score4::{score, BoardSize};

/// The environment variable naming the folder of c4's published 7x6 sets.
/// The tests that read them run only when it is set.
pub const PUBLISHED_SETS: &str = "SCORE4_C4_SETS";

/// The repository's root, whichever crate's tests ask.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file under the repository's `fixtures/`.
pub fn path(name: &str) -> PathBuf {
    repo_root().join("fixtures").join(name)
}

/// A labelled `MOVES SCORE` file, read with the library's parser.
pub fn labelled<const W: usize, const H: usize>(path: &Path) -> Vec<Labelled<W, H>> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()));
    fixture::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One of our 7x6 solver sets, `fixtures/solver/NAME`.
pub fn ours(name: &str) -> Vec<Labelled> {
    labelled(&path("solver").join(name))
}

/// Every set file (`*.txt`) in `dir`, sorted by name.
pub fn sets_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

/// The folder of c4's published sets when [`PUBLISHED_SETS`] names one
/// (absolute, or relative to the repository's root); `None`, said on
/// stderr so that the skip shows, when it is unset. A folder that was
/// asked for and holds no set fails the test `test`: asking and testing
/// nothing must not pass.
pub fn published_sets(test: &str) -> Option<PathBuf> {
    let Some(value) = std::env::var_os(PUBLISHED_SETS) else {
        // Straight to the stream: the test harness captures `eprintln!`
        // of passing tests, and a skip nobody sees reads as a pass.
        let _ = writeln!(
            std::io::stderr(),
            "{test}: skipped; set {PUBLISHED_SETS} to the folder of c4's published 7x6 sets to run it"
        );
        return None;
    };
    assert!(
        !value.is_empty(),
        "{test}: {PUBLISHED_SETS} is set but empty: name the folder of c4's published sets"
    );
    let dir = repo_root().join(value);
    assert!(
        !sets_in(&dir).is_empty(),
        "{test}: {PUBLISHED_SETS}={}: no .txt set in it",
        dir.display()
    );
    Some(dir)
}

/// One of c4's published sets when the tests are asked to read them (see
/// [`published_sets`]); `None` when they are not. Missing or empty, it
/// fails the test.
pub fn published(test: &str, name: &str) -> Option<Vec<Labelled>> {
    published_sets(test).map(|dir| {
        let set = labelled(&dir.join(name));
        assert!(!set.is_empty(), "{test}: {name} holds no position");
        set
    })
}

/// The published first-player score of the empty board of each compiled
/// size in `fixtures/board-sizes.txt`, in the solver's scoring.
pub fn board_sizes() -> Vec<(BoardSize, i32)> {
    published_results()
        .into_iter()
        .filter_map(|((w, h), score)| Some((BoardSize::new(w, h).ok()?, score)))
        .collect()
}

/// The published score of the empty board of `size` (`WxH`), if listed.
pub fn board_size_result(size: &str) -> Option<i32> {
    published_results()
        .into_iter()
        .find(|((w, h), _)| format!("{w}x{h}") == size)
        .map(|(_, score)| score)
}

/// Every row of `fixtures/board-sizes.txt` (`SIZE WINNER LAST-DISC`
/// lines), compiled sizes and sizes past them: the width and height, and
/// the first player's score in the solver's scoring.
pub fn published_results() -> Vec<((usize, usize), i32)> {
    let path = path("board-sizes.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut results = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [size, winner, last] = fields[..] else {
            panic!("malformed line '{line}'");
        };
        let shape: score4::wide::Shape = size.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let last: u32 = last.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        let cells = shape.cells();
        assert!(0 < last && last <= cells as u32, "{line}");
        let win = score::win_by_disc(cells, last);
        let score = match winner {
            "draw" => {
                assert_eq!(last, cells as u32, "{line}: a draw ends on the last cell");
                0
            }
            "first" => win,
            "second" => -win,
            _ => panic!("{line}: unknown winner '{winner}'"),
        };
        results.push(((shape.width(), shape.height()), score));
    }
    results
}
